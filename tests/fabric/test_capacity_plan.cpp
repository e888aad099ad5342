// `fabricsim plan`'s library half (src/report/): the bill of materials of small fabrics against
// counts derived by hand, the cost and power of a price table, the buffer checks and the
// rail-optimized cross-rail comparison.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "fabric/topology_builder.hpp"
#include "fabric/topology_summary.hpp"
#include "fabric_test_helpers.hpp"
#include "report/bill_of_materials.hpp"
#include "report/display_units.hpp"
#include "report/fabric_checks.hpp"
#include "report/plan_cost.hpp"
#include "report/price_table.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using scenario::Ratio;
using scenario::TopologyKind;

namespace {

// 16 HGX H100 (8 x 400G NICs each: N = 16, K = 8) on 64-port 400G switches; NIC cables 3 m
// (passive copper at 400G reaches 3 m), leaf-spine cables 30 m (optical, SR reach).
scenario::ClusterSpec sixteen_h100(TopologyKind kind, Ratio ratio) {
    scenario::ClusterSpec c = test::cluster(16, test::hgx_h100(), kind, 64, Bandwidth::Gbps(400), ratio);
    c.server.preset = "test-server";
    c.fabric.switch_spec.preset = "test-switch";
    c.fabric.cable_length = Length::m(3);
    c.fabric.uplink_cable_length = Length::m(30);
    return c;
}

const report::SwitchGroup& group(const report::BillOfMaterials& b, const std::string& tier) {
    for (const auto& g : b.switches)
        if (g.tier == tier) return g;
    throw std::runtime_error("no " + tier + " group");
}

const report::CableGroup& cables(const report::BillOfMaterials& b, const std::string& tier) {
    for (const auto& c : b.cables)
        if (c.tier == tier) return c;
    throw std::runtime_error("no " + tier + " cables");
}

constexpr const char* kPrices = R"(currency: USD
servers:
  test-server: { price: 100000, power_w: 5000, date: 2026-01, source: test }
switches:
  test-switch: { price: 10000, power_w: 500 }
transceivers:
  400G-SR: { price: 500, power_w: 10 }
cables:
  dac-400G: { price: 100, power_w: 0 }
  fiber-400G: { price: 50 }
)";

}  // namespace

TEST_CASE("BOM of a 1:1 leaf-spine: leaves = ceil(N.K / down), spines = up / parallel, cables and optics per tier",
          "[plan][bom]") {
    const scenario::ClusterSpec c = sixteen_h100(TopologyKind::leaf_spine, {1, 1});
    const fabric::Topology t = fabric::build_topology(c);
    const report::BillOfMaterials b = report::bill_of_materials(t, c);
    CHECK(b.servers == 16);
    CHECK(b.gpus == 128);
    CHECK(b.nics == 128);  // N.K = 16 x 8
    // A 64-port leaf at 1:1 splits 32 down / 32 up; leaves = ceil(128 / 32) = 4.
    const auto& leaf = group(b, "leaf");
    CHECK(leaf.switches == 4);
    CHECK(leaf.ports == 4 * 64);
    CHECK(leaf.ports_used == 4 * 64);  // 128 NIC ports + 4 x 32 uplinks
    CHECK(leaf.ports_spare() == 0);
    // 4 leaves x 32 uplinks: the largest divisor p of 32 with 4p <= 64 is 16 parallel links,
    // so 32 / 16 = 2 spines, each using 4 x 16 = 64 ports.
    const auto& spine = group(b, "spine");
    CHECK(spine.switches == 2);
    CHECK(spine.ports_used == 128);
    CHECK(spine.ports_spare() == 0);
    CHECK(b.switch_count() == 6);
    // One cable per NIC (3 m: copper) and per uplink (30 m: optical, SR), two optics per optical cable.
    CHECK(cables(b, "nic-leaf").count == 128);
    CHECK(cables(b, "nic-leaf").medium == "copper");
    CHECK(cables(b, "nic-leaf").length_class == "3m");
    CHECK(cables(b, "leaf-spine").count == 128);
    CHECK(cables(b, "leaf-spine").medium == "optical");
    CHECK(cables(b, "leaf-spine").length_class == "SR");
    REQUIRE(b.transceivers.size() == 1);
    CHECK(b.transceivers[0].tier == "leaf-spine");
    CHECK(b.transceivers[0].reach == "SR");
    CHECK(b.transceivers[0].count == 256);
    // The same counts topo prints (one source of truth for both commands).
    const fabric::TopologySummary s = fabric::summarize(t, c);
    CHECK(s.switches.total() == b.switch_count());
    CHECK(s.cables.total() == b.cable_count());
    CHECK(s.cables.transceivers == b.transceiver_count());
    CHECK(s.spare_ports == leaf.ports_spare() + spine.ports_spare());
}

TEST_CASE("BOM of a 2:1 leaf-spine: a 42/21/1 leaf split leaves spare ports on leaves and spines", "[plan][bom]") {
    const scenario::ClusterSpec c = sixteen_h100(TopologyKind::leaf_spine, {2, 1});
    const report::BillOfMaterials b = report::bill_of_materials(fabric::build_topology(c), c);
    // 64 ports at 2:1: n = floor(64 / 3) = 21 -> 42 down, 21 up, 1 spare. leaves = ceil(128 / 42) = 4
    // (the last holds 2 NICs), each cabling all 21 uplinks.
    const auto& leaf = group(b, "leaf");
    CHECK(leaf.switches == 4);
    CHECK(leaf.ports_used == 128 + 4 * 21);
    CHECK(leaf.ports_spare() == 4 * 64 - (128 + 84));
    // 21 uplinks per leaf: divisors 1, 3, 7, 21; the largest with 4p <= 64 is 7 -> 21 / 7 = 3 spines,
    // each using 4 x 7 = 28 of its 64 ports.
    const auto& spine = group(b, "spine");
    CHECK(spine.switches == 3);
    CHECK(spine.ports_used == 84);
    CHECK(spine.ports_spare() == 3 * 64 - 84);
    CHECK(cables(b, "leaf-spine").count == 84);
    CHECK(b.transceiver_count() == 168);
}

TEST_CASE("plan cost: counts x unit figures, network apart, items without a figure named and left out",
          "[plan][cost]") {
    const scenario::ClusterSpec c = sixteen_h100(TopologyKind::leaf_spine, {1, 1});
    const report::BillOfMaterials b = report::bill_of_materials(fabric::build_topology(c), c);
    const report::PlanCost cost = report::plan_cost(b, report::parse_price_table(kPrices, "prices.yaml"));
    // servers 16 x 100000; switches 6 x 10000; optics 256 x 500; DAC 128 x 100; fiber 128 x 50.
    CHECK(cost.total_price == Approx(1'600'000 + 60'000 + 128'000 + 12'800 + 6'400));
    CHECK(cost.network_price == Approx(60'000 + 128'000 + 12'800 + 6'400));
    // servers 16 x 5000 W; switches 6 x 500 W; optics 256 x 10 W; copper 0 W; fiber has none.
    CHECK(cost.total_power_w == Approx(80'000 + 3'000 + 2'560));
    CHECK(cost.network_power_w == Approx(3'000 + 2'560));
    REQUIRE(cost.unpriced.size() == 1);
    CHECK(cost.unpriced[0] == "cables/fiber-400G (power)");
    CHECK(cost.any_estimate);
}

TEST_CASE("price table: bad input names the file, line, key and what was expected", "[plan][cost]") {
    try {
        (void)report::parse_price_table("switches:\n  x: { price: cheap }\n", "p.yaml");
        FAIL("no error");
    } catch (const ConfigError& e) {
        REQUIRE(e.issues().size() == 1);
        CHECK(e.issues()[0].str() == "p.yaml:2:15: switches.x.price: expected a number >= 0, found \"cheap\"");
    }
    try {
        (void)report::parse_price_table("switch: {}\n", "p.yaml");
        FAIL("no error");
    } catch (const ConfigError& e) {
        CHECK(e.issues()[0].message ==
              "unknown key; expected currency, servers, nics, switches, transceivers or cables");
    }
    CHECK_THROWS_AS(report::load_price_table("/nonexistent/prices.yaml"), ConfigError);
}

TEST_CASE("the shipped price table reads, and every figure in it says where it comes from", "[plan][cost]") {
    const report::PriceTable p = report::load_price_table(FABRICSIM_SOURCE_DIR "/configs/prices/default.yaml");
    CHECK(p.currency == "USD");
    int entries = 0;
    for (const auto& [category, items] : p.categories)
        for (const auto& [name, e] : items) {
            ++entries;
            CHECK_FALSE(e.source.empty());
            CHECK_FALSE(e.date.empty());
            CHECK(e.estimate);
        }
    CHECK(entries > 0);
    CHECK(p.find("switches", "spectrum-4") != nullptr);
    CHECK(p.find("servers", "hgx-h100") != nullptr);
}

TEST_CASE("buffer checks: headroom and reserved space per port, XOFF against ECN Kmax, headroom that does not fit",
          "[plan][buffers]") {
    scenario::ClusterSpec c = sixteen_h100(TopologyKind::leaf_spine, {1, 1});
    c.roce.pfc.headroom = Bytes{100 * 1024};  // per port and lossless priority
    c.roce.pfc.priorities = {3};
    c.roce.mmu.reserved_per_queue = Bytes{4 * 1024};  // priority 3 and the control priority 6
    c.roce.mmu.alpha = 0.125;
    const auto check = [&](Bytes buffer) {
        c.fabric.switch_spec.buffer = buffer;
        const fabric::Topology t = fabric::build_topology(c);
        return report::check_fabric(t, c, fabric::summarize(t, c));
    };
    // A leaf uses 64 ports: headroom 64 x 100 KiB = 6553600 B, reserved 64 x 2 x 4 KiB = 524288 B.
    // 64 MB: free = 64000000 - 7077888 = 56922112, XOFF = floor(free / 8) = 7115264 B, above the
    // automatic Kmax of 400G, 400e9 / 62500 = 6400000 B: no warning.
    const report::FabricChecks big = check(Bytes{64'000'000});
    REQUIRE(big.pfc);
    REQUIRE(big.tiers.size() == 2);
    CHECK(big.tiers[0].tier == "leaf");
    CHECK(big.tiers[0].headroom == Bytes{6'553'600});
    CHECK(big.tiers[0].reserved == Bytes{524'288});
    CHECK(big.tiers[0].free == Bytes{56'922'112});
    CHECK(big.tiers[0].xoff == Bytes{7'115'264});
    CHECK(big.tiers[0].kmax == Bytes{6'400'000});
    CHECK(big.warnings.empty());
    // 48 MB: XOFF = floor((48000000 - 7077888) / 8) = 5115264 B < Kmax: ECN acts after PFC.
    const report::FabricChecks mid = check(Bytes{48'000'000});
    CHECK(mid.tiers[0].xoff == Bytes{5'115'264});
    REQUIRE_FALSE(mid.warnings.empty());
    CHECK(mid.warnings[0].rfind("ECN Kmax 6.10 MiB is not below XOFF 4.88 MiB on leaf switches", 0) == 0);
    // 7 MB < 7077888 B: the headroom does not fit.
    const report::FabricChecks small = check(Bytes{7'000'000});
    CHECK_FALSE(small.tiers[0].fits);
    REQUIRE_FALSE(small.warnings.empty());
    CHECK(small.warnings[0].rfind("PFC headroom does not fit: leaf switch", 0) == 0);
}

TEST_CASE("InfiniBand has no PFC headroom to check, only the buffer per port", "[plan][buffers]") {
    scenario::ClusterSpec c = sixteen_h100(TopologyKind::leaf_spine, {1, 1});
    c.fabric.technology = scenario::Technology::infiniband;
    c.fabric.switch_spec.technology = scenario::Technology::infiniband;
    c.fabric.switch_spec.buffer = Bytes{64 * 1024 * 1024};
    const fabric::Topology t = fabric::build_topology(c);
    const report::FabricChecks k = report::check_fabric(t, c, fabric::summarize(t, c));
    CHECK_FALSE(k.pfc);
    REQUIRE_FALSE(k.tiers.empty());
    CHECK(k.tiers[0].per_port == Bytes{1024 * 1024});  // 64 MiB over 64 ports
    CHECK(k.warnings.empty());
}

TEST_CASE("a 2:1 rail-optimized design halves cross-rail bandwidth against a leaf-spine, at 1:1 it loses none",
          "[plan][rail]") {
    // 2:1, 16 servers per rail on one leaf each (16 < 42 down): ceil(16 x 21 / 42) = 8 uplinks per
    // rail leaf. Rails 0-3 reach rails 4-7 only through their leaves' uplinks: 4 x 8 x 400G = 12.8 Tb/s.
    // As a leaf-spine (4 leaves of 42, 42, 42, 2 NICs, servers' rails mixed), rails 0-3 and 4-7 of
    // the same servers meet inside a leaf: all 64 low-rail NICs send at once, 64 x 400G = 25.6 Tb/s
    // (the leaves' surplus of 2 low-rail NICs each crosses their 21 uplinks).
    const scenario::ClusterSpec c = sixteen_h100(TopologyKind::rail_optimized, {2, 1});
    const fabric::Topology t = fabric::build_topology(c);
    const report::FabricChecks k = report::check_fabric(t, c, fabric::summarize(t, c));
    REQUIRE(k.rail);
    CHECK(k.cross_rail == Bandwidth::Gbps(12'800));
    CHECK(k.reference_cross_rail == Bandwidth::Gbps(25'600));
    // (The 64 MB test switch also gets the Kmax-above-XOFF warning; only the rail one is asked here.)
    const auto rail_warnings = [](const report::FabricChecks& x) {
        std::vector<std::string> out;
        for (const auto& w : x.warnings)
            if (w.rfind("the rail-optimized design", 0) == 0) out.push_back(w);
        return out;
    };
    REQUIRE(rail_warnings(k).size() == 1);
    CHECK(rail_warnings(k)[0].find("12.8 Tb/s between the two halves of its rails, 50 % less than the 25.6 Tb/s") !=
          std::string::npos);

    // 1:1: each rail leaf has 16 uplinks for 16 NICs, so rails 0-3 send 64 x 400G either way.
    const scenario::ClusterSpec full = sixteen_h100(TopologyKind::rail_optimized, {1, 1});
    const fabric::Topology tf = fabric::build_topology(full);
    const report::FabricChecks kf = report::check_fabric(tf, full, fabric::summarize(tf, full));
    CHECK(kf.cross_rail == Bandwidth::Gbps(25'600));
    CHECK(kf.reference_cross_rail == Bandwidth::Gbps(25'600));
    CHECK(rail_warnings(kf).empty());
}

TEST_CASE("console units: binary sizes with three digits, times in µs/ms, money with separators", "[plan][units]") {
    CHECK(report::human(Bytes{64'000'000}) == "61.0 MiB");  // the 62500KiB of issue #15
    CHECK(report::human(Bytes{512}) == "512 B");
    CHECK(report::human(Bytes{4096}) == "4.00 KiB");
    CHECK(report::human(Time::ns(2730)) == "2.73 µs");
    CHECK(report::human(Time::ps(21'474'836'480)) == "21.5 ms");
    CHECK(report::human(Bandwidth::Gbps(51'200)) == "51.2 Tb/s");
    CHECK(report::money(1'807'200, "USD") == "$1,807,200");
    CHECK(report::money(999, "EUR") == "999 EUR");
    CHECK(report::power(85'560) == "85.6 kW");
}
