#include "scenario/validate_iwarp.hpp"

#include "scenario/field_readers.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace fabricsim::scenario {

namespace {

constexpr const char* kPath = "cluster.iwarp";
const std::vector<std::string> kKeys{"congestion_control", "mss",         "min_rto",
                                     "ack_every",          "delayed_ack", "initial_window",
                                     "receive_window",     "dupthresh",   "send_jitter"};
const std::vector<std::string> kCongestion{"newreno", "cubic", "dctcp"};

TcpCongestion congestion_of(const std::string& s) {
    if (s == "cubic") return TcpCongestion::cubic;
    if (s == "dctcp") return TcpCongestion::dctcp;
    return TcpCongestion::newreno;
}

// A jumbo frame of 9216 bytes at most (the largest switch MTU in common use) less IPv4, TCP
// and timestamps; at least a segment that holds the MPA and DDP headers and some data.
constexpr std::int64_t kMinMss = 256;
constexpr std::int64_t kMaxMss = 9216 - 52;

const Node* find(const Node* map, const char* key) { return map == nullptr ? nullptr : map->find(key); }

}  // namespace

void validate_iwarp(const Node* node, const Node& cluster, std::optional<Bandwidth> link_speed, ClusterSpec& spec,
                    Issues& issues) {
    IwarpSpec& out = spec.iwarp;
    out.enabled = spec.fabric.iwarp;
    const Node* map = node == nullptr ? nullptr : read_section(*node, kPath, issues);
    if (map != nullptr) {
        check_keys(*map, kPath, kKeys, issues);
        if (!out.enabled)
            issues.add(map->location, kPath,
                       "cluster.iwarp is set but the fabric is not iWARP; expected cluster.fabric.technology: iwarp "
                       "(or leave cluster.iwarp out)");
        if (const Node* n = map->find("congestion_control"))
            if (auto v =
                    read_choice(*n, key_path(kPath, "congestion_control"), "congestion control", kCongestion, issues))
                out.congestion_control = congestion_of(*v);
        if (const Node* n = map->find("mss"))
            if (auto v = read_int(*n, key_path(kPath, "mss"), kMinMss, kMaxMss, issues)) out.mss = Bytes{*v};
        if (const Node* n = map->find("min_rto"))
            if (auto v = read_time(*n, key_path(kPath, "min_rto"), Zero::rejected, issues)) out.min_rto = *v;
        if (const Node* n = map->find("ack_every"))
            if (auto v = read_int(*n, key_path(kPath, "ack_every"), 1, 64, issues))
                out.ack_every = static_cast<int>(*v);
        if (const Node* n = map->find("delayed_ack"))
            if (auto v = read_time(*n, key_path(kPath, "delayed_ack"), Zero::rejected, issues)) out.delayed_ack = *v;
        if (const Node* n = map->find("initial_window"))
            if (auto v = read_int(*n, key_path(kPath, "initial_window"), 1, 1024, issues))
                out.initial_window = static_cast<int>(*v);
        if (const Node* n = map->find("receive_window"))
            if (auto v = read_bytes(*n, key_path(kPath, "receive_window"), Zero::rejected, issues)) {
                if (*v > Bytes{std::int64_t{1} << 30})
                    issues.add(n->location, key_path(kPath, "receive_window"),
                               fmt::format("{} B is above TCP's largest scaled window of 1 GiB (RFC 7323 §2.3); "
                                           "expected at most 1GiB",
                                           v->count()));
                else
                    out.receive_window = *v;
            }
        if (const Node* n = map->find("dupthresh"))
            if (auto v = read_int(*n, key_path(kPath, "dupthresh"), 1, 64, issues))
                out.dupthresh = static_cast<int>(*v);
        if (const Node* n = map->find("send_jitter"))
            if (auto v = read_time(*n, key_path(kPath, "send_jitter"), Zero::allowed, issues)) out.send_jitter = *v;
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
