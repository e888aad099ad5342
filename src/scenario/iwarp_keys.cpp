// cluster.iwarp: the key table of IwarpSpec (iwarp_spec.hpp has the source of each default), and what the
// iWARP fabric (cluster.fabric.technology: iwarp) changes in the rest of the cluster: the
// fabric's packet is the segment's RDMA payload (mss - 20, replacing fabric.mtu), each packet
// carries the TCP/IP/MPA headers (roce.header_bytes), the Ethernet is lossy (roce.lossless:
// false unless written) and DCQCN is off (TCP's congestion control instead); with DCTCP the
// marker marks every packet above K = ecn.kmin (kmax = kmin unless written: step marking).
// The timeout floor is iwarp.min_rto, else the NIC preset's tcp_min_rto, else Linux's 200 ms;
// the send jitter is iwarp.send_jitter, else one full segment on the wire at the NIC's line rate.
// An iWARP storage fabric (cluster.storage_fabric.technology: iwarp) takes the segment as its
// packet in the same way (its links' classes: rate and efficiency).
#include "scenario/validate.hpp"

#include "scenario/key_types.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace fabricsim::scenario {

namespace {

constexpr const char* kPath = "cluster.iwarp";

// A jumbo frame of 9216 bytes at most (the largest switch MTU in common use) less IPv4, TCP
// and timestamps; at least a segment that holds the MPA and DDP headers and some data.
constexpr std::int64_t kMinMss = 256;
constexpr std::int64_t kMaxMss = 9216 - 52;
// TCP's largest scaled window (RFC 7323 §2.3).
constexpr Bytes kMaxReceiveWindow{std::int64_t{1} << 30};

// A byte count written as a plain integer (a segment size).
Field<Bytes> byte_count(std::int64_t min, std::int64_t max) {
    Field<std::int64_t> i = integer64(min, max);
    return {i.doc,
            [read = i.read](const Node& n, const std::string& path, Issues& issues) -> std::optional<Bytes> {
                const auto v = read(n, path, issues);
                if (!v) return std::nullopt;
                return Bytes{*v};
            },
            [](const Bytes& b) { return Value{std::int64_t{b.count()}}; }};
}

const Node* find(const Node* map, const char* key) { return map == nullptr ? nullptr : map->find(key); }

}  // namespace

const Table<IwarpSpec>& iwarp_table() {
    using S = IwarpSpec;
    static const Table<S> t{
        kPath,
        {
            key("congestion_control", &S::congestion_control,
                choice<TcpCongestion>("congestion control", {{"newreno", TcpCongestion::newreno},
                                                             {"cubic", TcpCongestion::cubic},
                                                             {"dctcp", TcpCongestion::dctcp}}),
                kPacket, "NewReno (RFC 5681/6582), CUBIC (RFC 8312) or DCTCP (RFC 8257) on the switches' ECN marks."),
            key("mss", &S::mss, byte_count(kMinMss, kMaxMss), kAllModels,
                "TCP payload per segment: a 9000-byte jumbo frame less IPv4, TCP and timestamps. The fabric's packet "
                "carries `mss` − 20 bytes of RDMA data."),
            key("min_rto", &S::min_rto, optional_of(time(Zero::rejected)), kPacket,
                "Floor of the retransmission timeout (Linux's TCP_RTO_MIN is 200 ms).")
                .shown_default("the NIC's `tcp_min_rto`, else `200ms`"),
            key("ack_every", &S::ack_every, integer(1, 64), kPacket,
                "In-order segments per ACK (RFC 5681 §4.2); out-of-order and hole-filling segments and a message's "
                "last are acknowledged at once."),
            key("delayed_ack", &S::delayed_ack, time(Zero::rejected), kPacket,
                "The longest an in-order segment waits for its ACK (Linux's TCP_DELACK_MIN)."),
            key("initial_window", &S::initial_window, integer(1, 1024), kPacket,
                "Segments in the first window (RFC 6928)."),
            key("receive_window", &S::receive_window,
                at_most(size(Zero::rejected), kMaxReceiveWindow, "size, 1 B to 1 GiB",
                        [](const Node&, Bytes v) {
                            return fmt::format("{} B is above TCP's largest scaled window of 1 GiB (RFC 7323 §2.3); "
                                               "expected at most 1GiB",
                                               v.count());
                        }),
                kPacket, "Bytes the receiver lets be in flight."),
            key("dupthresh", &S::dupthresh, integer(1, 64), kPacket,
                "SACKed segments above a hole that mark it lost (RFC 6675 DupThresh)."),
            key("send_jitter", &S::send_jitter, optional_of(time(Zero::allowed)), kPacket,
                "The engine sends each segment a random time, uniform in [0, `send_jitter`], after the window let "
                "it go: an engine's timing varies, and without it identical senders stay in lock step and drop "
                "tail cuts the same flows every cycle (Floyd and Jacobson's phase effect; "
                "[models/iwarp.md](models/iwarp.md)). `0`: none.")
                .shown_default("one full segment on the wire at `server.nic.line_rate` (723.04 ns at 100 Gb/s)"),
        }};
    return t;
}

void validate_iwarp(const Node* node, const Node& cluster, std::optional<Bandwidth> link_speed, ClusterSpec& spec,
                    Issues& issues) {
    IwarpSpec& out = spec.iwarp;
    out.enabled = spec.fabric.iwarp;
    if (node != nullptr) {
        const SectionRead r = read_table(*node, kPath, iwarp_table(), out, issues);
        if (r.map != nullptr && !out.enabled)
            issues.add(r.map->location, kPath,
                       "cluster.iwarp is set but the fabric is not iWARP; expected cluster.fabric.technology: iwarp "
                       "(or leave cluster.iwarp out)");
    }
    // An iWARP storage fabric: its packet is the segment too (cluster.iwarp's, else the defaults').
    if (spec.storage_fabric.enabled && spec.storage_fabric.fabric.iwarp) {
        if (const Node* mtu = find(find(&cluster, "storage_fabric"), "mtu"))
            issues.add(mtu->location, "cluster.storage_fabric.mtu",
                       "an iWARP fabric's packet is a TCP segment; expected no storage_fabric.mtu: its segment is "
                       "cluster.iwarp.mss");
        spec.storage_fabric.fabric.mtu = iwarp_segment_payload(out);
    }
    if (!out.enabled) return;
    if (!out.min_rto) out.min_rto = spec.server.nic.tcp_min_rto ? *spec.server.nic.tcp_min_rto : Time::ms(200);
    if (!out.send_jitter) out.send_jitter = iwarp_default_jitter(out, spec.server.nic.line_rate);
    // The iWARP fabric's packet is the segment (fabric.mtu would say otherwise: refused).
    if (const Node* mtu = find(find(&cluster, "fabric"), "mtu"))
        issues.add(mtu->location, "cluster.fabric.mtu",
                   "an iWARP fabric's packet is a TCP segment; expected no fabric.mtu: set cluster.iwarp.mss instead");
    spec.fabric.mtu = iwarp_segment_payload(out);
    const Node* roce = find(&cluster, "roce");
    if (find(roce, "header_bytes") == nullptr) spec.roce.header_bytes = kIwarpHeaderBytes;
    if (find(roce, "lossless") == nullptr) spec.roce.lossless = false;
    spec.roce.dcqcn.enabled = false;
    if (out.congestion_control == TcpCongestion::dctcp && find(find(roce, "ecn"), "kmax") == nullptr) {
        if (!spec.roce.ecn.kmin && link_speed) spec.roce.ecn.kmin = ecn_kmin_auto(*link_speed);
        spec.roce.ecn.kmax = spec.roce.ecn.kmin;
    }
}

}  // namespace fabricsim::scenario
