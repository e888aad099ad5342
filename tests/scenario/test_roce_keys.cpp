// cluster.roce: defaults from roce_spec.hpp (DESIGN §5), every key read, `auto` kept unset,
// the printed section, and the checks across keys. The broken files are in
// tests/scenario/bad/roce-*.yaml (run by test_loader.cpp).
#include "core/units_format.hpp"
#include "scenario/loader.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::scenario;
using namespace fabricsim::literals;

namespace fs = std::filesystem;

namespace {

const fs::path kSource{FABRICSIM_SOURCE_DIR};

LoadOptions shipped_presets() {
    LoadOptions o;
    o.config_dirs = {kSource / "configs"};
    return o;
}

// Two single-NIC hosts with the given lines under `cluster:` (each indented by two spaces).
std::string scenario_with(const std::string& cluster) {
    return "name: r\ncluster:\n  servers: 2\n" + cluster + "workload: [{ transfer: { from: 0, to: 1, size: 1B } }]\n";
}

RoceSpec roce_of(const std::string& cluster) {
    const auto loaded = load_scenario_text(scenario_with(cluster), "r.yaml", {});
    REQUIRE(loaded.variants.size() == 1);
    return loaded.variants.front().spec.cluster.roce;
}

std::vector<std::string> issues_of(const std::string& cluster) {
    try {
        load_scenario_text(scenario_with(cluster), "r.yaml", {});
    } catch (const ConfigError& e) {
        std::vector<std::string> out;
        for (const auto& i : e.issues()) out.push_back(i.str());
        return out;
    }
    return {};
}

}  // namespace

TEST_CASE("a cluster without roce runs PFC on priority 3 with DCQCN nic and auto thresholds", "[loader][roce]") {
    const RoceSpec r = roce_of("");
    CHECK(r == RoceSpec{});
    CHECK(r.pfc.enabled);
    CHECK(r.pfc.priority == 3);
    CHECK_FALSE(r.pfc.headroom.has_value());  // auto
    CHECK_FALSE(r.pfc.xoff.has_value());      // auto: the dynamic threshold
    CHECK(r.pfc.xon_delta == 3_KiB);          // HPCC ns-3 resume_offset
    CHECK_FALSE(r.pfc.watchdog.has_value());  // off
    CHECK(r.ecn.enabled);
    CHECK_FALSE(r.ecn.kmin.has_value());
    CHECK_FALSE(r.ecn.kmax.has_value());
    CHECK(r.ecn.pmax == 0.2);
    CHECK(r.dcqcn.enabled);
    CHECK(r.dcqcn.preset == DcqcnPreset::nic);
    CHECK(r.dcqcn == DcqcnSpec{});            // every override unset: the preset decides
    CHECK_FALSE(r.dcqcn.g.has_value());
    CHECK(r.mmu.alpha == 0.125);
    CHECK(r.mmu.reserved_per_queue == 4_KiB);
    CHECK(r.lossless);
}

TEST_CASE("every key of cluster.roce is read into the spec", "[loader][roce]") {
    const auto loaded = load_scenario(kSource / "tests/scenario/good/roce.yaml", shipped_presets());
    REQUIRE(loaded.variants.size() == 4);
    const RoceSpec& r = loaded.variants[0].spec.cluster.roce;
    CHECK(r.pfc.enabled);
    CHECK(r.pfc.priority == 4);
    CHECK(r.pfc.headroom == std::optional<Bytes>(200_KB));
    CHECK(r.pfc.xoff == std::optional<Bytes>(4_MB));
    CHECK(r.pfc.xon_delta == 6_KiB);
    CHECK(r.pfc.watchdog == std::optional<Time>(100_ms));
    CHECK(r.ecn.kmin == std::optional<Bytes>(800_KB));
    CHECK(r.ecn.kmax == std::optional<Bytes>(3200_KB));
    CHECK(r.ecn.pmax == 0.1);
    const DcqcnSpec& d = r.dcqcn;
    CHECK(d.preset == DcqcnPreset::nic);
    CHECK(d.g == std::optional<double>(1.0 / 256));
    CHECK(d.rate_ai == std::optional<Bandwidth>(20_Mbps));
    CHECK(d.rate_hai == std::optional<Bandwidth>(200_Mbps));
    CHECK(d.alpha_update_interval == std::optional<Time>(1_us));
    CHECK(d.rate_decrease_interval == std::optional<Time>(4_us));
    CHECK(d.rate_increase_timer == std::optional<Time>(300_us));
    CHECK(d.byte_counter == std::optional<Bytes>(Bytes::zero()));
    CHECK(d.fast_recovery_steps == std::optional<int>(1));
    CHECK(d.clamp_target_rate == std::optional<bool>(false));
    CHECK(d.min_rate == std::optional<Bandwidth>(1_Gbps));
    CHECK(d.cnp_interval == std::optional<Time>(Time::zero()));
    CHECK(r.mmu.alpha == 0.125);  // written "1/8"
    CHECK(r.mmu.reserved_per_queue == 4_KiB);
    CHECK(r.lossless);

    // `auto` puts every override back to the preset's.
    const RoceSpec& paper = loaded.variants[1].spec.cluster.roce;
    DcqcnSpec plain_paper;
    plain_paper.preset = DcqcnPreset::paper;
    CHECK(paper.dcqcn == plain_paper);
    CHECK(paper.mmu.alpha == 0.5);

    const RoceSpec& lossy = loaded.variants[2].spec.cluster.roce;
    CHECK_FALSE(lossy.lossless);
    CHECK_FALSE(lossy.pfc.enabled);
    CHECK_FALSE(lossy.pfc.headroom.has_value());
    CHECK_FALSE(lossy.pfc.watchdog.has_value());
    CHECK_FALSE(lossy.ecn.kmax.has_value());

    // InfiniBand accepts the section (DESIGN §5: one file holds both designs).
    const ClusterSpec& ib = loaded.variants[3].spec.cluster;
    CHECK(ib.fabric.technology == Technology::infiniband);
    CHECK(ib.roce == r);
}

TEST_CASE("auto ECN thresholds are 100KB and 400KB per 25Gbps of link", "[loader][roce]") {
    // shared/reference/models.md: 400 KB / 1600 KB at 100G (HPCC ns-3 run.py).
    CHECK(ecn_kmin_auto(25_Gbps) == 100_KB);
    CHECK(ecn_kmax_auto(25_Gbps) == 400_KB);
    CHECK(ecn_kmin_auto(100_Gbps) == 400_KB);
    CHECK(ecn_kmax_auto(100_Gbps) == 1600_KB);
    CHECK(ecn_kmin_auto(400_Gbps) == 1600_KB);
    CHECK(ecn_kmax_auto(400_Gbps) == 6400_KB);
}

TEST_CASE("mmu.alpha and dcqcn.g read a decimal or a fraction alike", "[loader][roce]") {
    CHECK(roce_of("  roce: { mmu: { alpha: 0.125 } }\n").mmu.alpha == 0.125);
    CHECK(roce_of("  roce: { mmu: { alpha: 1/8 } }\n").mmu.alpha == 0.125);
    CHECK(roce_of("  roce: { mmu: { alpha: 2 } }\n").mmu.alpha == 2.0);
    CHECK(roce_of("  roce: { dcqcn: { g: 0.00390625 } }\n").dcqcn.g == roce_of("  roce: { dcqcn: { g: 1/256 } }\n").dcqcn.g);
    CHECK(issues_of("  roce: { mmu: { alpha: 1/8/2 } }\n") ==
          std::vector<std::string>{"r.yaml:4:25: cluster.roce.mmu.alpha: expected a number (e.g. 0.125) or a fraction "
                                   "(e.g. 1/8), found \"1/8/2\""});
}

TEST_CASE("ECN kmax must be below a given PFC xoff but may come right up to it", "[loader][roce]") {
    CHECK(issues_of("  roce: { pfc: { xoff: 2MB }, ecn: { kmin: 0B, kmax: 1999999B } }\n").empty());
    CHECK(issues_of("  roce: { pfc: { xoff: 2MB }, ecn: { kmin: 0B, kmax: 2MB } }\n").size() == 1);
    // Only when both mechanisms run: no pause without PFC, no mark without ECN.
    CHECK(issues_of("  roce: { pfc: { xoff: 2MB }, ecn: { enabled: false, kmin: 0B, kmax: 3MB } }\n").empty());
    CHECK(issues_of("  roce: { lossless: false, pfc: { enabled: false, xoff: 2MB }, ecn: { kmin: 0B, kmax: 3MB } }\n")
              .empty());
}

TEST_CASE("an auto kmax is worked out at the fabric's link speed or else the NIC's", "[loader][roce]") {
    // The default NIC runs 400Gbps: auto kmax 6400KB.
    CHECK(issues_of("  roce: { ecn: { kmin: 6400KB } }\n").empty());
    CHECK(issues_of("  roce: { ecn: { kmin: 6401KB } }\n").size() == 1);
    // At 100Gbps links auto kmax is 1600KB.
    CHECK(issues_of("  fabric: { link_speed: 100Gbps }\n  roce: { ecn: { kmin: 1600KB } }\n").empty());
    CHECK(issues_of("  fabric: { link_speed: 100Gbps }\n  roce: { ecn: { kmin: 1601KB } }\n").size() == 1);
}

TEST_CASE("the resolved roce section shows every default and reads back the same", "[loader][roce][resolved]") {
    const auto loaded = load_scenario_text(scenario_with(""), "r.yaml", {});
    const std::string yaml = to_yaml(loaded.variants.front().resolved);
    const std::string expected = R"(  roce:
    pfc:
      enabled: true
      priority: 3
      headroom: auto
      xoff: auto
      xon_delta: 3KiB
      watchdog: off
    ecn:
      enabled: true
      kmin: auto
      kmax: auto
      pmax: 0.2
    dcqcn:
      enabled: true
      preset: nic
      g: auto
      rate_ai: auto
      rate_hai: auto
      alpha_update_interval: auto
      rate_decrease_interval: auto
      rate_increase_timer: auto
      byte_counter: auto
      fast_recovery_steps: auto
      clamp_target_rate: auto
      min_rate: auto
      cnp_interval: auto
    mmu:
      alpha: 0.125
      reserved_per_queue: 4KiB
    lossless: true
)";
    CHECK(yaml.find(expected) != std::string::npos);
    const auto again = load_scenario_text(yaml, "again.yaml", {});
    CHECK(again.variants.front().spec == loaded.variants.front().spec);
}
