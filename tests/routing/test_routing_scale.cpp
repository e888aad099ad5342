#include <catch2/catch.hpp>

#include "fabric/routing.hpp"
#include "fabrics.hpp"

#include <chrono>
#include <cstdint>
#include <iostream>

using namespace fabricsim;
using namespace fabricsim::fabric;
using scenario::RoutingKind;
using scenario::Technology;
using namespace routing_test;

TEST_CASE("tables of a 1024-host 3-tier fat tree (k = 16) take under 1 MiB", "[routing][scale]") {
    // O(switches x leaves): 320 switches x 128 leaves x 4 bytes = 160 KiB of table, plus per-node
    // data; an all-pairs table would be 1024^2 entries at least.
    const Fabric f = fat_tree(16, 3);
    const Routing r(f.topology, RoutingKind::ecmp, Technology::roce, 1);
    CHECK(r.table_bytes() < (1U << 20));
    CHECK(r.path(FlowKey{f.hosts[0], f.hosts[1023], 0}).size() == 6U);
}

TEST_CASE("servers wired alike share one intra-server table", "[routing][scale]") {
    // Doubling 64 HGX servers (25 nodes each) to 128 adds per-node and fabric data, but not
    // another 25 x 25 table of 4-byte entries per server (64 x 2500 bytes).
    const Cluster small = hgx_cluster(64, ServerShape{}, 32);
    const Cluster large = hgx_cluster(128, ServerShape{}, 32);
    const Routing a(small.topology, RoutingKind::ecmp, Technology::roce, 1);
    const Routing b(large.topology, RoutingKind::ecmp, Technology::roce, 1);
    INFO("64 servers: " << a.table_bytes() << " bytes, 128 servers: " << b.table_bytes() << " bytes");
    CHECK(b.table_bytes() - a.table_bytes() < 64U * 25U * 25U * 4U);
}

namespace {

void report(const char* what, const Topology& t) {
    const auto start = std::chrono::steady_clock::now();
    const Routing r(t, RoutingKind::ecmp, Technology::roce, 1);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::cout << what << ": " << t.nodes().size() << " nodes, " << t.links().size() << " links; tables "
              << static_cast<double>(r.table_bytes()) / (1 << 20) << " MiB, built in " << took.count() << " s\n";
}

}  // namespace

// Sizing figures for docs/models/routing.md; run by hand: routing_tests "[.scale]".
TEST_CASE("routing table size and build time on large fabrics", "[.scale]") {
    report("3-tier fat tree k=16 (1024 NICs)", fat_tree(16, 3).topology);
    report("3-tier fat tree k=32 (8192 NICs)", fat_tree(32, 3).topology);
    report("3-tier fat tree k=64 (65536 NICs)", fat_tree(64, 3).topology);
    const Cluster hgx = hgx_cluster(1024, ServerShape{}, 32);
    report("1024 HGX servers (8192 GPUs), 2-tier leaf-spine of 256 leaves", hgx.topology);

    // next_port per packet hop: GPU-to-GPU flows at a leaf, under each policy.
    const Topology& t = hgx.topology;
    for (RoutingKind policy : {RoutingKind::ecmp, RoutingKind::static_, RoutingKind::spray}) {
        const Routing r(t, policy, Technology::roce, 1);
        const int calls = 10'000'000;
        std::uint64_t sum = 0;
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i) {
            const FlowKey key{t.rank(RankId{static_cast<std::uint32_t>(i % 32)}).gpu,
                              t.rank(RankId{static_cast<std::uint32_t>(4096 + i % 4096)}).gpu,
                              static_cast<std::uint32_t>(i)};
            sum += r.next_port(hgx.leaves[0], key, static_cast<std::uint64_t>(i));
        }
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        std::cout << "next_port at a leaf (" << static_cast<int>(policy) << "): " << took.count() / calls * 1e9
                  << " ns per call (checksum " << sum << ")\n";
    }
}
