// cluster.iwarp and `technology: iwarp` (docs/SCENARIO.md, "iWARP"): what the iWARP fabric
// changes in cluster.roce and cluster.fabric, every key read, and the exact errors.
#include "cluster_text.hpp"
#include "scenario/loader.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::scenario;
using namespace fabricsim::literals;

namespace {
const cluster_text::ClusterText kText{"w"};
}

TEST_CASE("technology iwarp: lossy Ethernet, no DCQCN, TCP segments of mss - 20 bytes with 110 bytes of headers",
          "[loader][iwarp]") {
    const ClusterSpec c = kText.cluster("  fabric: { technology: iwarp }\n");
    CHECK(c.fabric.iwarp);
    CHECK(c.fabric.technology == Technology::roce);  // Ethernet switches
    CHECK(c.iwarp.enabled);
    CHECK(c.iwarp.congestion_control == TcpCongestion::newreno);
    CHECK(c.iwarp.mss == 8948_B);
    CHECK(c.iwarp.min_rto == std::optional<Time>(200_ms));  // Linux TCP_RTO_MIN without a NIC figure
    CHECK(c.fabric.mtu == 8928_B);                          // 8948 - MPA 6 - DDP/RDMAP 14
    CHECK(c.roce.header_bytes == 8 + 12 + 14 + 4 + 20 + 20 + 12 + 6 + 14);
    CHECK_FALSE(c.roce.lossless);
    CHECK_FALSE(c.roce.dcqcn.enabled);
    // The send jitter: one full segment on the wire at the NIC's line rate, (8928 + 110) B x 8 /
    // 100 Gb/s = 723.04 ns.
    CHECK(kText.cluster("  server: { nic: { line_rate: 100Gbps } }\n  fabric: { technology: iwarp }\n")
              .iwarp.send_jitter == std::optional<Time>(Time::ps(723'040)));
    // RoCE keeps its own.
    const ClusterSpec r = kText.cluster("");
    CHECK_FALSE(r.iwarp.enabled);
    CHECK(r.roce.lossless);
    CHECK(r.fabric.mtu == 4096_B);
}

TEST_CASE(
    "every key of cluster.iwarp is read, and DCTCP marks in steps at ecn.kmin, and the NIC's tcp_min_rto is the floor",
    "[loader][iwarp]") {
    const ClusterSpec c = kText.cluster(
        "  server: { nic: { line_rate: 100Gbps, tcp_min_rto: 5ms, offload_latency: 400ns } }\n"
        "  fabric: { technology: iwarp }\n"
        "  roce: { ecn: { kmin: 180KB } }\n"
        "  iwarp: { congestion_control: dctcp, mss: 4000, ack_every: 1, delayed_ack: 1ms, initial_window: 4,\n"
        "           receive_window: 1MiB, dupthresh: 5, send_jitter: 0 }\n");
    CHECK(c.iwarp.congestion_control == TcpCongestion::dctcp);
    CHECK(c.iwarp.mss == 4000_B);
    CHECK(c.fabric.mtu == 3980_B);
    CHECK(c.iwarp.min_rto == std::optional<Time>(5_ms));  // from the NIC
    CHECK(c.server.nic.offload_latency == 400_ns);
    CHECK(c.iwarp.ack_every == 1);
    CHECK(c.iwarp.delayed_ack == 1_ms);
    CHECK(c.iwarp.initial_window == 4);
    CHECK(c.iwarp.receive_window == 1_MiB);
    CHECK(c.iwarp.dupthresh == 5);
    CHECK(c.iwarp.send_jitter == std::optional<Time>(Time::zero()));  // zero: no jitter
    CHECK(c.roce.ecn.kmin == std::optional<Bytes>(180_KB));
    CHECK(c.roce.ecn.kmax == std::optional<Bytes>(180_KB));
    // min_rto written beats the NIC's.
    CHECK(
        kText
            .cluster(
                "  server: { nic: { tcp_min_rto: 5ms } }\n  fabric: { technology: iwarp }\n  iwarp: { min_rto: 1ms }\n")
            .iwarp.min_rto == std::optional<Time>(1_ms));
}

TEST_CASE("cluster.iwarp off an iWARP fabric, fabric.mtu on one, and a bad congestion control are errors",
          "[loader][iwarp]") {
    // Columns count from 1: the mapping after "  iwarp: " starts at 10, the value after
    // "  fabric: { technology: iwarp, mtu: " at 37.
    CHECK(kText.issues("  iwarp: { mss: 4000 }\n") ==
          std::vector<std::string>{"w.yaml:4:10: cluster.iwarp: cluster.iwarp is set but the fabric is not iWARP; "
                                   "expected cluster.fabric.technology: iwarp (or leave cluster.iwarp out)"});
    CHECK(kText.issues("  fabric: { technology: iwarp, mtu: 4096B }\n") ==
          std::vector<std::string>{"w.yaml:4:37: cluster.fabric.mtu: an iWARP fabric's packet is a TCP segment; "
                                   "expected no fabric.mtu: set cluster.iwarp.mss instead"});
    const auto bad = kText.issues("  fabric: { technology: iwarp }\n  iwarp: { congestion_control: bbr }\n");
    REQUIRE(bad.size() == 1);
    CHECK(bad[0].find("cluster.iwarp.congestion_control") != std::string::npos);
    CHECK(bad[0].find("newreno, cubic, dctcp") != std::string::npos);
}
