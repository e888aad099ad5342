// cluster.iwarp: RDMA over TCP (iWARP: RFC 5040 RDMAP, RFC 5041 DDP, RFC 5044 MPA) on a
// lossy Ethernet fabric (cluster.fabric.technology: iwarp; docs/models/iwarp.md). The
// switches, their MMU and ECN marker are the RoCE model's (cluster.roce), with PFC off; each
// connection runs TCP in its RNIC's offload engine. Plain struct; every default cites its source.
#pragma once

#include "core/units.hpp"

#include <cstdint>
#include <optional>

namespace fabricsim::scenario {

enum class TcpCongestion { newreno, cubic, dctcp };

// TCP/IP/MPA/DDP bytes on the wire beside an iWARP segment's RDMA payload: Ethernet preamble
// and SFD 8, inter-frame gap 12, header 14, FCS 4 (IEEE 802.3), IPv4 20 (RFC 791), TCP 20
// (RFC 9293) with the timestamp option 12 (RFC 7323 §3; on by default in Linux and the
// offload engines), MPA length 2 and CRC 4 without markers (RFC 5044 §7.1, markers are
// negotiated off by current RNICs), DDP tagged header and RDMAP control 14 (RFC 5041 §4.1).
inline constexpr std::int64_t kIwarpHeaderBytes = 8 + 12 + 14 + 4 + 20 + 20 + 12 + 6 + 14;
// The MPA and DDP/RDMAP bytes inside the TCP payload: an MSS carries MSS - 20 bytes of RDMA data.
inline constexpr std::int64_t kIwarpFramingBytes = 6 + 14;

struct IwarpSpec {
    bool enabled = false;  // the compute fabric is iWARP (cluster.fabric.technology: iwarp)
    // NewReno (RFC 5681/6582) as the offload engines run by default (Chelsio's TOE
    // congestion-control choices are Reno variants); CUBIC (RFC 8312); DCTCP (RFC 8257) with
    // the switches' ECN marking (cluster.roce.ecn).
    TcpCongestion congestion_control = TcpCongestion::newreno;
    // TCP payload per segment: a 9000-byte jumbo frame less IPv4 20, TCP 20 and timestamps 12.
    Bytes mss = Bytes{8948};
    // Retransmission timeout floor (RFC 6298 §2.4 asks for 1 s; Linux uses TCP_RTO_MIN = 200 ms,
    // include/net/tcp.h). nullopt: the NIC preset's (nic.tcp_min_rto), else 200 ms.
    std::optional<Time> min_rto;
    // The receiver acknowledges every ack_every in-order segments (RFC 5681 §4.2: at least every
    // second full-sized segment), every out-of-order one at once, and an RDMA message's last.
    int ack_every = 2;
    // A lone in-order segment is acknowledged after this (Linux TCP_DELACK_MIN = 40 ms).
    Time delayed_ack = Time::ms(40);
    int initial_window = 10;                        // segments (RFC 6928)
    Bytes receive_window = Bytes{4 * 1024 * 1024};  // bytes in flight the receiver admits
    int dupthresh = 3;                              // RFC 5681 §3.2, RFC 6675 DupThresh
    // The engine sends a segment a random time, uniform in [0, send_jitter], after the window let
    // it go (the message's start, or the ACK that opened a full window): a real engine's
    // scheduling and DMA reads vary. Without it, identical senders stay in phase and a
    // drop-tail queue drops from the same flows every cycle; Floyd and Jacobson ("On Traffic
    // Phase Effects in Packet-Switched Gateways", Internetworking: Research and Experience 3(3),
    // 1992) remove the bias with a random processing time at the sources of up to about one
    // bottleneck service time, as ns-2's TCP agents do with `overhead_` (tcp/tcp.cc). nullopt:
    // one full segment's time on the wire at the NIC's line rate (iwarp_default_jitter); zero:
    // none (every segment goes the moment the window allows).
    std::optional<Time> send_jitter;
    bool operator==(const IwarpSpec&) const = default;
};

// The RDMA payload of one full segment (the packet model's unit on the fabric).
constexpr Bytes iwarp_segment_payload(const IwarpSpec& s) { return Bytes{s.mss.count() - kIwarpFramingBytes}; }

// The default send jitter: one full segment, with its kIwarpHeaderBytes, on the wire at the
// NIC's line rate (the bottleneck service time of Floyd and Jacobson's rule when the NICs'
// links are the bottleneck's speed: 9038 B at 100 Gb/s = 723.04 ns).
inline Time iwarp_default_jitter(const IwarpSpec& s, Bandwidth line_rate) {
    return transmit_time(Bytes{iwarp_segment_payload(s).count() + kIwarpHeaderBytes}, line_rate);
}

}  // namespace fabricsim::scenario
