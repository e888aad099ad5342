// cluster.roce: defaults from roce_spec.hpp (docs/SCENARIO.md), every key read, `auto` kept unset,
// the printed section, and the checks across keys. The broken files are in
// tests/scenario/bad/roce-*.yaml (run by test_loader.cpp).
#include "cluster_text.hpp"
#include "core/units_format.hpp"
#include "scenario/loader.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::scenario;
using namespace fabricsim::literals;

using cluster_text::shipped_presets;

namespace {

const cluster_text::ClusterText kText{"r"};

std::string scenario_with(const std::string& cluster) { return kText.scenario(cluster); }
RoceSpec roce_of(const std::string& cluster) { return kText.cluster(cluster).roce; }
std::vector<std::string> issues_of(const std::string& cluster) { return kText.issues(cluster); }

}  // namespace

TEST_CASE("a cluster without roce runs PFC on priority 3 with DCQCN nic and auto thresholds", "[loader][roce]") {
    const RoceSpec r = roce_of("");
    CHECK(r == RoceSpec{});
    CHECK(r.pfc.enabled);
    CHECK(r.pfc.priorities == std::vector<int>{3});
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
    CHECK(r.dcqcn == DcqcnSpec{});  // every override unset: the preset decides
    CHECK_FALSE(r.dcqcn.g.has_value());
    CHECK(r.mmu.alpha == 0.125);
    CHECK(r.mmu.lossy_alpha == 8.0);  // SONiC's egress_lossy_profile dynamic_th 3: 2^3
    CHECK(r.mmu.reserved_per_queue == 4_KiB);
    CHECK(r.lossless);
}

TEST_CASE("every key of cluster.roce is read into the spec", "[loader][roce]") {
    const auto loaded =
        load_scenario(std::filesystem::path(FABRICSIM_SOURCE_DIR) / "tests/scenario/good/roce.yaml", shipped_presets());
    REQUIRE(loaded.variants.size() == 4);
    const RoceSpec& r = loaded.variants[0].spec.cluster.roce;
    CHECK(r.pfc.enabled);
    CHECK(r.pfc.priorities == std::vector<int>{4});
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
    CHECK(r.mmu.lossy_alpha == 4.0);
    CHECK(r.mmu.reserved_per_queue == 4_KiB);
    CHECK(r.queues.strict == std::vector<int>{7});
    CHECK(r.queues.weights == std::array<int, 8>{1, 1, 1, 4, 2, 1, 1, 1});
    CHECK(r.control_priority == 5);
    CHECK(r.ack_every == 4);
    CHECK(r.retransmit_timeout == 10_ms);
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

    // InfiniBand accepts the section (docs/SCENARIO.md: one file holds both designs).
    const ClusterSpec& ib = loaded.variants[3].spec.cluster;
    CHECK(ib.fabric.technology == Technology::infiniband);
    CHECK(ib.roce == r);
}

TEST_CASE("auto ECN thresholds are 100KB and 400KB per 25Gbps of link", "[loader][roce]") {
    // `docs/REFERENCES.md`: 400 KB / 1600 KB at 100G (HPCC ns-3 run.py).
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
    CHECK(roce_of("  roce: { dcqcn: { g: 0.00390625 } }\n").dcqcn.g ==
          roce_of("  roce: { dcqcn: { g: 1/256 } }\n").dcqcn.g);
    CHECK(issues_of("  roce: { mmu: { alpha: 1/8/2 } }\n") ==
          std::vector<std::string>{"r.yaml:4:25: cluster.roce.mmu.alpha: expected a number (e.g. 0.125) or a fraction "
                                   "(e.g. 1/8), found \"1/8/2\""});
    // The lossy egress threshold reads alike, in the same range.
    CHECK(roce_of("  roce: { mmu: { lossy_alpha: 1/2 } }\n").mmu.lossy_alpha == 0.5);
    CHECK(issues_of("  roce: { mmu: { lossy_alpha: 0 } }\n") ==
          std::vector<std::string>{"r.yaml:4:31: cluster.roce.mmu.lossy_alpha: 0 is outside (0, 64]"});
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

TEST_CASE("the resolved roce section of the defaults reads back the same", "[loader][roce][resolved]") {
    const auto loaded = load_scenario_text(scenario_with(""), "r.yaml", {});
    const std::string yaml = to_yaml(loaded.variants.front().resolved);
    // Every value is printed (the whole resolved document: test_loader.cpp's resolved-tree test).
    CHECK(yaml.find("  roce:\n    pfc:\n      enabled: true\n      priority: 3\n") != std::string::npos);
    const auto again = load_scenario_text(yaml, "again.yaml", {});
    CHECK(again.variants.front().spec == loaded.variants.front().spec);
}

TEST_CASE("a cluster without roce queues puts 6 and 7 first and shares the rest equally", "[loader][roce]") {
    const RoceSpec r = roce_of("");
    CHECK(r.queues.strict == std::vector<int>{6, 7});  // CNPs and network control
    CHECK(r.queues.weights == std::array<int, 8>{1, 1, 1, 1, 1, 1, 1, 1});
    CHECK(r.control_priority == 6);                          // ConnectX CNP_802P_PRIO default
    CHECK(r.ack_every == 1);                                 // HPCC ns-3 L2_ACK_INTERVAL
    CHECK(r.retransmit_timeout == Time::ns(4096) * 262144);  // 4.096us x 2^18 (NCCL_IB_TIMEOUT 18)
    CHECK(r.retransmit_timeout == Time::ns(1'073'741'824));
}

TEST_CASE("pfc.priority takes a list and queues control_priority ack_every and retransmit_timeout read back",
          "[loader][roce]") {
    const RoceSpec r = roce_of(
        "  roce:\n    pfc: { priority: [3, 4] }\n    queues: { strict: [], weights: [1, 2, 3, 4, 5, 6, 7, 255] }\n"
        "    control_priority: 5\n    ack_every: 8\n    retransmit_timeout: 10ms\n");
    CHECK(r.pfc.priorities == std::vector<int>{3, 4});
    CHECK(r.queues.strict.empty());
    CHECK(r.queues.weights == std::array<int, 8>{1, 2, 3, 4, 5, 6, 7, 255});
    CHECK(r.control_priority == 5);
    CHECK(r.ack_every == 8);
    CHECK(r.retransmit_timeout == 10_ms);
    // The first listed priority is the data class: the order is kept.
    CHECK(roce_of("  roce: { pfc: { priority: [4, 3] } }\n").pfc.priorities == std::vector<int>{4, 3});
    CHECK(roce_of("  roce: { pfc: { priority: 0 } }\n").pfc.priorities == std::vector<int>{0});
}

TEST_CASE("the resolved roce section lists several lossless priorities and reads back the same",
          "[loader][roce][resolved]") {
    const auto loaded = load_scenario_text(
        scenario_with("  roce: { pfc: { priority: [3, 4] }, queues: { strict: [] }, control_priority: 5 }\n"), "r.yaml",
        {});
    const std::string yaml = to_yaml(loaded.variants.front().resolved);
    CHECK(yaml.find("      priority:\n        - 3\n        - 4\n") != std::string::npos);
    CHECK(yaml.find("    queues:\n      strict:\n        []\n") != std::string::npos);
    const auto again = load_scenario_text(yaml, "again.yaml", {});
    CHECK(again.variants.front().spec == loaded.variants.front().spec);
}

TEST_CASE("queue weights must be 8 integers from 1 to 255", "[loader][roce]") {
    CHECK(issues_of("  roce: { queues: { weights: [1, 1, 1, 1, 1, 1, 1] } }\n") ==
          std::vector<std::string>{"r.yaml:4:30: cluster.roce.queues.weights: expected a list of 8 weights, one per "
                                   "priority (e.g. [1, 1, 1, 4, 1, 1, 1, 1]), found a list of 7"});
    CHECK(issues_of("  roce: { queues: { weights: [1, 1, 1, 0, 1, 1, 1, 1] } }\n") ==
          std::vector<std::string>{"r.yaml:4:40: cluster.roce.queues.weights[3]: expected an integer >= 1, found 0"});
    CHECK(
        issues_of("  roce: { queues: { weights: [1, 1, 1, 256, 1, 1, 1, 1] } }\n") ==
        std::vector<std::string>{"r.yaml:4:40: cluster.roce.queues.weights[3]: expected an integer <= 255, found 256"});
}

TEST_CASE("a priority listed twice or out of 0..7 or an empty pfc list is an error", "[loader][roce]") {
    CHECK(issues_of("  roce: { queues: { strict: [6, 7, 6] } }\n") ==
          std::vector<std::string>{"r.yaml:4:36: cluster.roce.queues.strict[2]: priority 6 is listed twice; expected "
                                   "each priority at most once"});
    CHECK(issues_of("  roce: { pfc: { priority: [3, 8] } }\n") ==
          std::vector<std::string>{"r.yaml:4:32: cluster.roce.pfc.priority[1]: expected an integer <= 7, found 8"});
    CHECK(issues_of("  roce: { pfc: { priority: 8 } }\n") ==
          std::vector<std::string>{"r.yaml:4:28: cluster.roce.pfc.priority: expected an integer <= 7, found 8"});
    CHECK(issues_of("  roce: { pfc: { priority: [] } }\n") ==
          std::vector<std::string>{"r.yaml:4:28: cluster.roce.pfc.priority: expected a priority 0..7 or a list of "
                                   "them (e.g. [3, 4]), found an empty list"});
}

TEST_CASE("control_priority may not be a lossless priority and ack_every starts at 1", "[loader][roce]") {
    CHECK(issues_of("  roce: { pfc: { priority: [3, 4] }, control_priority: 4 }\n") ==
          std::vector<std::string>{"r.yaml:4:56: cluster.roce.control_priority: 4 is a lossless priority "
                                   "(pfc.priority: [3, 4]); CNPs, ACKs and NAKs need a queue that PFC does not "
                                   "pause, so expected a priority not in pfc.priority"});
    // Left at its default, control_priority 6 is named at the pfc.priority that takes it.
    CHECK(issues_of("  roce: { pfc: { priority: 6 } }\n") ==
          std::vector<std::string>{"r.yaml:4:28: cluster.roce.pfc.priority: 6 is also the default control_priority; "
                                   "CNPs, ACKs and NAKs need a queue that PFC does not pause, so expected lossless "
                                   "priorities other than 6 (or a control_priority set to another priority)"});
    CHECK(issues_of("  roce: { pfc: { priority: [3, 6] } }\n").size() == 1);
    CHECK(issues_of("  roce: { pfc: { priority: 6 }, control_priority: 5 }\n").empty());
    // An unreadable value is reported once, not again as a clash.
    CHECK(issues_of("  roce: { pfc: { priority: 6 }, control_priority: 9 }\n").size() == 1);
    CHECK(issues_of("  roce: { ack_every: 0 }\n") ==
          std::vector<std::string>{"r.yaml:4:22: cluster.roce.ack_every: expected an integer >= 1, found 0"});
    CHECK(issues_of("  roce: { ack_every: 1048576 }\n").empty());  // 2^20
    CHECK(issues_of("  roce: { ack_every: 1048577 }\n").size() == 1);
    CHECK(issues_of("  roce: { retransmit_timeout: 0s }\n") ==
          std::vector<std::string>{"r.yaml:4:31: cluster.roce.retransmit_timeout: expected a time (e.g. 500ns, "
                                   "2.5us) greater than 0, found \"0s\""});
}

// 82 = preamble+SFD 8 + gap 12 + Ethernet 14 + FCS 4 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4.
TEST_CASE("cluster.roce.header_bytes is 82 unless given, an integer 0 to 4096", "[loader][roce][headers]") {
    CHECK(roce_of("").header_bytes == 8 + 12 + 14 + 4 + 20 + 8 + 12 + 4);
    CHECK(roce_of("  roce: { header_bytes: 86 }\n").header_bytes == 86);  // with a VLAN tag
    CHECK(roce_of("  roce: { header_bytes: 0 }\n").header_bytes == 0);
    CHECK(issues_of("  roce: { header_bytes: -1 }\n") ==
          std::vector<std::string>{"r.yaml:4:25: cluster.roce.header_bytes: expected an integer >= 0, found -1"});
    CHECK(issues_of("  roce: { header_bytes: 4097 }\n") ==
          std::vector<std::string>{"r.yaml:4:25: cluster.roce.header_bytes: expected an integer <= 4096, found 4097"});
}
