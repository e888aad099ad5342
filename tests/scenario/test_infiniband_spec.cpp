// cluster.infiniband: defaults from infiniband_spec.hpp (docs/SCENARIO.md and the sources in
// docs/models/infiniband.md), every key read, `auto` kept unset, the maps that follow
// virtual_lanes, the printed section, and the errors with their place, key, found and expected.
#include "cluster_text.hpp"
#include "core/units_format.hpp"
#include "scenario/loader.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::scenario;
using namespace fabricsim::literals;

using cluster_text::shipped_presets;

namespace {

const cluster_text::ClusterText kText{"ib"};

std::string scenario_with(const std::string& cluster) { return kText.scenario(cluster); }
InfinibandSpec infiniband_of(const std::string& cluster) { return kText.cluster(cluster).infiniband; }
std::vector<std::string> issues_of(const std::string& cluster) { return kText.issues(cluster); }

std::vector<VlWeight> weights(std::initializer_list<std::pair<int, int>> entries) {
    std::vector<VlWeight> out;
    for (const auto& [vl, weight] : entries) out.push_back(VlWeight{vl, weight});
    return out;
}

}  // namespace

TEST_CASE("a cluster without infiniband runs 2 data VLs with auto credits and IB CC on", "[loader][infiniband]") {
    const InfinibandSpec ib = infiniband_of("");
    CHECK(ib == InfinibandSpec{});
    CHECK(ib.virtual_lanes == 2);                    // docs/SCENARIO.md
    CHECK_FALSE(ib.vl_buffer.has_value());           // auto: the cable's round trip plus a margin
    CHECK(ib.credit_update_period == Time::zero());  // a flow-control packet per freed packet
    CHECK(ib.sl_to_vl == std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1});  // SL mod 2
    CHECK(ib.vl_arbitration.high.empty());
    CHECK(ib.vl_arbitration.low == weights({{0, 4}, {1, 4}}));  // OpenSM's low-table weight
    CHECK(ib.vl_arbitration.high_limit == 0);                   // OpenSM's default
    const IbCongestionControlSpec& cc = ib.congestion_control;
    CHECK(cc.enabled);
    CHECK(cc.threshold == 8_KiB);
    CHECK(cc.marking_rate == 10);    // Mellanox CC manager 0xa
    CHECK_FALSE(cc.victim_mask);     // OpenSM: an all-zero Victim_Mask
    CHECK(cc.packet_size == 512_B);  // Mellanox CC manager 0x200
    CHECK(cc.ccti_increase == 1);    // Mellanox CC manager
    CHECK_FALSE(cc.ccti_limit.has_value());
    CHECK(cc.ccti_min == 0);
    CHECK(cc.ccti_timer == 10'240_ns);  // OPA FM: 10 x 1.024 us
    CHECK_FALSE(cc.table.has_value());
}

TEST_CASE("the SL map and the low arbitration table follow virtual_lanes unless given", "[loader][infiniband]") {
    const InfinibandSpec four = infiniband_of("  infiniband: { virtual_lanes: 4 }\n");
    CHECK(four.virtual_lanes == 4);
    CHECK(four.sl_to_vl == std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3});
    CHECK(four.vl_arbitration.low == weights({{0, 4}, {1, 4}, {2, 4}, {3, 4}}));

    const InfinibandSpec one = infiniband_of("  infiniband: { virtual_lanes: 1 }\n");
    CHECK(one.sl_to_vl == std::vector<int>(16, 0));
    CHECK(one.vl_arbitration.low == weights({{0, 4}}));

    // A given map is kept as written; the low table still follows the lanes.
    const InfinibandSpec mapped = infiniband_of(
        "  infiniband: { virtual_lanes: 3, sl_to_vl: [2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0] }\n");
    CHECK(mapped.sl_to_vl == std::vector<int>{2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0});
    CHECK(mapped.vl_arbitration.low == weights({{0, 4}, {1, 4}, {2, 4}}));
}

TEST_CASE("every key of cluster.infiniband is read into the spec", "[loader][infiniband]") {
    const auto loaded = load_scenario(
        std::filesystem::path(FABRICSIM_SOURCE_DIR) / "tests/scenario/good/infiniband.yaml", shipped_presets());
    REQUIRE(loaded.variants.size() == 4);
    const ClusterSpec& cluster = loaded.variants[0].spec.cluster;
    CHECK(cluster.fabric.technology == Technology::infiniband);
    const InfinibandSpec& ib = cluster.infiniband;
    CHECK(ib.virtual_lanes == 4);
    CHECK(ib.vl_buffer == std::optional<Bytes>(64_KiB));
    CHECK(ib.credit_update_period == 100_ns);
    CHECK(ib.sl_to_vl == std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3});
    CHECK(ib.vl_arbitration.high == weights({{3, 8}}));
    CHECK(ib.vl_arbitration.low == weights({{0, 16}, {1, 16}, {2, 32}, {0, 0}}));
    CHECK(ib.vl_arbitration.high_limit == 255);
    const IbCongestionControlSpec& cc = ib.congestion_control;
    CHECK(cc.enabled);
    CHECK(cc.threshold == 32_KiB);
    CHECK(cc.marking_rate == 0);
    CHECK(cc.victim_mask);
    CHECK(cc.packet_size == 0_B);
    CHECK(cc.ccti_increase == 5);
    CHECK(cc.ccti_limit == std::optional<int>(3));
    CHECK(cc.ccti_min == 1);
    CHECK(cc.ccti_timer == 5_us);
    // "shift:multiplier" quoted or not, and a bare multiplier (shift 0).
    REQUIRE(cc.table.has_value());
    CHECK(*cc.table == std::vector<CctEntrySpec>{{0, 0}, {3, 6}, {3, 12}, {1, 9}, {0, 40}});

    const IbCongestionControlSpec& automatic = loaded.variants[1].spec.cluster.infiniband.congestion_control;
    CHECK_FALSE(automatic.table.has_value());
    CHECK_FALSE(automatic.ccti_limit.has_value());
    CHECK(automatic.ccti_timer == 5_us);  // what the variant did not name stays

    const InfinibandSpec& two = loaded.variants[2].spec.cluster.infiniband;
    CHECK(two.virtual_lanes == 2);
    CHECK(two.vl_arbitration.high.empty());
    CHECK(two.vl_arbitration.low == weights({{0, 4}, {1, 4}}));

    // RoCE accepts the section (docs/SCENARIO.md: one file holds both designs).
    const ClusterSpec& roce = loaded.variants[3].spec.cluster;
    CHECK(roce.fabric.technology == Technology::roce);
    CHECK(roce.infiniband == ib);
}

TEST_CASE("the resolved infiniband section reads back the same and prints a table as shift:multiplier",
          "[loader][infiniband][resolved]") {
    const auto loaded = load_scenario_text(scenario_with(""), "ib.yaml", {});
    const std::string yaml = to_yaml(loaded.variants.front().resolved);
    // Every value is printed (the whole resolved document: test_loader.cpp's resolved-tree test).
    CHECK(yaml.find("  infiniband:\n    virtual_lanes: 2\n    vl_buffer: auto\n") != std::string::npos);
    const auto again = load_scenario_text(yaml, "again.yaml", {});
    CHECK(again.variants.front().spec == loaded.variants.front().spec);

    // A given table prints in OpenSM's shift:multiplier notation and reads back.
    const auto given = load_scenario_text(
        scenario_with("  infiniband: { congestion_control: { table: [0:0, 3:6, 7], ccti_limit: 1 } }\n"), "ib.yaml",
        {});
    const std::string printed = to_yaml(given.variants.front().resolved);
    CHECK(printed.find("      ccti_limit: 1\n      ccti_min: 0\n      ccti_timer: 10.24us\n      table:\n"
                       "        - 0:0\n        - 3:6\n        - 0:7\n") != std::string::npos);
    CHECK(load_scenario_text(printed, "again.yaml", {}).variants.front().spec == given.variants.front().spec);
}

TEST_CASE("a misspelt infiniband key names the nearest valid one at every level", "[loader][infiniband][errors]") {
    CHECK(issues_of("  infiniband: { virtual_lane: 4 }\n") ==
          std::vector<std::string>{"ib.yaml:4:17: cluster.infiniband.virtual_lane: unknown key; did you mean "
                                   "\"virtual_lanes\"?"});
    CHECK(issues_of("  infiniband: { congestion_control: { marking_rat: 2 } }\n") ==
          std::vector<std::string>{"ib.yaml:4:39: cluster.infiniband.congestion_control.marking_rat: unknown key; "
                                   "did you mean \"marking_rate\"?"});
    CHECK(issues_of("  infiniband: { vl_arbitration: { low: [{ vl: 0, wieght: 4 }] } }\n") ==
          std::vector<std::string>{
              "ib.yaml:4:41: cluster.infiniband.vl_arbitration.low[0].weight: missing required key",
              "ib.yaml:4:50: cluster.infiniband.vl_arbitration.low[0].wieght: unknown key; did you mean \"weight\"?"});
    CHECK(issues_of("  infiniband:\n    vl_arbitraton: {}\n") ==
          std::vector<std::string>{"ib.yaml:5:5: cluster.infiniband.vl_arbitraton: unknown key; did you mean "
                                   "\"vl_arbitration\"?"});
}

TEST_CASE("a VL outside the fabric's data VLs is an error wherever it is named", "[loader][infiniband][errors]") {
    // SL 3 -> VL 2 with 2 data VLs.
    CHECK(issues_of("  infiniband: { sl_to_vl: [0, 1, 0, 2, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1] }\n") ==
          std::vector<std::string>{"ib.yaml:4:37: cluster.infiniband.sl_to_vl[3]: VL 2 is not a data VL of this "
                                   "fabric: virtual_lanes is 2, so expected 0 to 1"});
    CHECK(issues_of("  infiniband: { virtual_lanes: 4, vl_arbitration: { high: [{ vl: 4, weight: 1 }] } }\n") ==
          std::vector<std::string>{"ib.yaml:4:66: cluster.infiniband.vl_arbitration.high[0].vl: VL 4 is not a data "
                                   "VL of this fabric: virtual_lanes is 4, so expected 0 to 3"});
    // VL15 is the management lane; at most 15 data VLs.
    CHECK(issues_of("  infiniband: { virtual_lanes: 16 }\n") ==
          std::vector<std::string>{
              "ib.yaml:4:32: cluster.infiniband.virtual_lanes: expected an integer <= 15, found 16"});
    CHECK(issues_of("  infiniband: { sl_to_vl: [0, 1] }\n") ==
          std::vector<std::string>{"ib.yaml:4:27: cluster.infiniband.sl_to_vl: expected 16 VLs, one per SL 0 to 15, "
                                   "found 2"});
}

TEST_CASE("a VL arbitration weight outside 0 to 255 is an error", "[loader][infiniband][errors]") {
    CHECK(issues_of("  infiniband: { vl_arbitration: { low: [{ vl: 0, weight: 300 }, { vl: 1, weight: 4 }] } }\n") ==
          std::vector<std::string>{"ib.yaml:4:58: cluster.infiniband.vl_arbitration.low[0].weight: expected a weight "
                                   "from 0 to 255 (units of 64 bytes), found 300"});
    CHECK(issues_of("  infiniband: { vl_arbitration: { low: [{ vl: 0, weight: -1 }, { vl: 1, weight: 4 }] } }\n") ==
          std::vector<std::string>{"ib.yaml:4:58: cluster.infiniband.vl_arbitration.low[0].weight: expected a weight "
                                   "from 0 to 255 (units of 64 bytes), found -1"});
    CHECK(issues_of("  infiniband: { vl_arbitration: { high_limit: 256 } }\n") ==
          std::vector<std::string>{"ib.yaml:4:47: cluster.infiniband.vl_arbitration.high_limit: expected an integer "
                                   "<= 255, found 256"});
}

TEST_CASE("a VL that carries an SL needs a weight in the arbitration tables", "[loader][infiniband][errors]") {
    // VL 1 only has a weight-0 entry: SL 1 (and every odd SL) would never be sent.
    CHECK(issues_of("  infiniband: { vl_arbitration: { low: [{ vl: 0, weight: 4 }, { vl: 1, weight: 0 }] } }\n") ==
          std::vector<std::string>{"ib.yaml:4:33: cluster.infiniband.vl_arbitration: VL 1 carries SL 1 but has no "
                                   "entry with a weight above 0 in high or low; its packets would never be sent"});
    // A high-priority entry is enough, and a VL no SL maps to needs none.
    CHECK(issues_of("  infiniband: { vl_arbitration: { high: [{ vl: 1, weight: 1 }], low: [{ vl: 0, weight: 4 }] } }\n")
              .empty());
    CHECK(issues_of("  infiniband: { sl_to_vl: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "
                    "vl_arbitration: { low: [{ vl: 0, weight: 4 }] } }\n")
              .empty());
}

TEST_CASE("the CC table and its indices are checked against each other", "[loader][infiniband][errors]") {
    CHECK(issues_of("  infiniband: { congestion_control: { table: [0:0, 3:20000] } }\n") ==
          std::vector<std::string>{"ib.yaml:4:52: cluster.infiniband.congestion_control.table[1]: expected "
                                   "shift:multiplier with shift 0 to 3 and multiplier 0 to 16383 (e.g. 3:776), found "
                                   "\"3:20000\""});
    CHECK(issues_of("  infiniband: { congestion_control: { table: [0:0, 3:6], ccti_limit: 2 } }\n") ==
          std::vector<std::string>{"ib.yaml:4:70: cluster.infiniband.congestion_control.ccti_limit: ccti_limit 2 is "
                                   "past the last index of the table, 1; expected at most 1"});
    CHECK(issues_of("  infiniband: { congestion_control: { ccti_limit: 10, ccti_min: 11 } }\n") ==
          std::vector<std::string>{"ib.yaml:4:65: cluster.infiniband.congestion_control.ccti_min: ccti_min 11 is "
                                   "above ccti_limit 10; expected ccti_min <= ccti_limit"});
    CHECK(issues_of("  infiniband: { congestion_control: { table: [0:0, 3:6, 3:12], ccti_min: 3 } }\n") ==
          std::vector<std::string>{"ib.yaml:4:74: cluster.infiniband.congestion_control.ccti_min: ccti_min 3 is "
                                   "above ccti_limit auto (2: the table's last index); expected ccti_min <= "
                                   "ccti_limit"});
    CHECK(issues_of("  infiniband: { congestion_control: { ccti_timer: 100ms } }\n") ==
          std::vector<std::string>{"ib.yaml:4:51: cluster.infiniband.congestion_control.ccti_timer: 100ms is above "
                                   "the largest CCTI_Timer, 65535 x 1.024us = 67.10784ms"});
    CHECK(issues_of("  infiniband: { congestion_control: { ccti_min: 127, ccti_timer: 67.10784ms } }\n").empty());
}

TEST_CASE("a given vl_buffer must hold one MTU packet with its headers", "[loader][infiniband][errors]") {
    CHECK(issues_of("  infiniband: { vl_buffer: 4KiB }\n") ==
          std::vector<std::string>{"ib.yaml:4:28: cluster.infiniband.vl_buffer: 4KiB cannot hold one 4KiB packet with "
                                   "its 26B of headers (cluster.fabric.mtu), so credits would never cover it; expected "
                                   "at least 4122B or auto"});
    CHECK(issues_of("  infiniband: { vl_buffer: 4122B }\n").empty());
    CHECK(issues_of("  fabric: { mtu: 2KiB }\n  infiniband: { vl_buffer: 4KiB }\n").empty());
}

namespace {

// The default column of a docs/SCENARIO.md key table: from the line after `heading` to the
// first line that is not a table row, key -> default with its backticks taken off.
std::map<std::string, std::string> documented_defaults(const std::string& heading) {
    std::ifstream in(std::string(FABRICSIM_SOURCE_DIR) + "/docs/SCENARIO.md");
    std::string line;
    while (std::getline(in, line) && line != heading) {}
    std::map<std::string, std::string> out;
    const auto unquote = [](std::string cell) {
        while (!cell.empty() && (cell.front() == ' ' || cell.front() == '`')) cell.erase(cell.begin());
        while (!cell.empty() && (cell.back() == ' ' || cell.back() == '`')) cell.pop_back();
        return cell;
    };
    bool in_table = false;
    while (std::getline(in, line)) {
        if (line.rfind("|", 0) != 0) {
            if (in_table) break;
            continue;
        }
        in_table = true;
        std::vector<std::string> cells;
        std::stringstream row(line.substr(1));
        for (std::string cell; std::getline(row, cell, '|');) cells.push_back(unquote(cell));
        if (cells.size() < 3 || cells[0] == "key" || cells[0].rfind("---", 0) == 0) continue;
        out[cells[0]] = cells[2];
    }
    return out;
}

// `key: value` lines of the printed section that starts at "\n<indent><section>:\n".
std::map<std::string, std::string> printed_section(const std::string& yaml, const std::string& section,
                                                   const std::string& indent) {
    std::map<std::string, std::string> out;
    std::size_t at = yaml.find("\n" + indent + section + ":\n");
    if (at == std::string::npos) return out;
    std::stringstream lines(yaml.substr(at + indent.size() + section.size() + 3));
    const std::string inner = indent + "  ";
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(inner, 0) != 0) break;
        if (line.size() > inner.size() && line[inner.size()] == ' ') continue;  // a list's items
        const std::size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string value = line.substr(colon + 1);
        if (!value.empty() && value.front() == ' ') value.erase(value.begin());
        out[line.substr(inner.size(), colon - inner.size())] = value;
    }
    return out;
}

}  // namespace

TEST_CASE("docs/SCENARIO.md lists the IB CC defaults validate --print shows", "[loader][infiniband][docs]") {
    // One declaration (IbCongestionControlSpec's initialisers): the table in docs/SCENARIO.md and
    // the resolved scenario that `validate --print` writes must name the same default for each key.
    const auto loaded = load_scenario_text(scenario_with(""), "ib.yaml", {});
    const auto printed = printed_section(to_yaml(loaded.variants.front().resolved), "congestion_control", "    ");
    const auto documented = documented_defaults("#### `cluster.infiniband.congestion_control`");
    REQUIRE(printed.size() >= 10);
    CHECK(printed.at("marking_rate") == "10");  // the Mellanox CC manager's 0xa
    CHECK(printed.at("ccti_increase") == "1");
    for (const auto& [key, value] : printed) {
        INFO(key);
        REQUIRE(documented.count(key) == 1);
        CHECK(documented.at(key) == value);
    }
    CHECK(documented.size() == printed.size());
}

// 26 = LRH 8 + BTH 12 + ICRC 4 + VCRC 2; a given vl_buffer must hold MTU + header_bytes.
TEST_CASE("cluster.infiniband.header_bytes is 26 unless given, and a vl_buffer must hold MTU + header_bytes",
          "[loader][infiniband][headers]") {
    CHECK(kText.cluster("").infiniband.header_bytes == 8 + 12 + 4 + 2);
    CHECK(kText.cluster("  infiniband: { header_bytes: 66 }\n").infiniband.header_bytes == 66);  // with a GRH
    CHECK(issues_of("  infiniband: { header_bytes: 66, vl_buffer: 4122B }\n") ==
          std::vector<std::string>{"ib.yaml:4:46: cluster.infiniband.vl_buffer: 4122B cannot hold one 4KiB packet with "
                                   "its 66B of headers (cluster.fabric.mtu), so credits would never cover it; expected "
                                   "at least 4162B or auto"});
    CHECK(issues_of("  infiniband: { header_bytes: 66, vl_buffer: 4162B }\n").empty());
    CHECK(
        issues_of("  infiniband: { header_bytes: -5 }\n") ==
        std::vector<std::string>{"ib.yaml:4:31: cluster.infiniband.header_bytes: expected an integer >= 0, found -5"});
}
