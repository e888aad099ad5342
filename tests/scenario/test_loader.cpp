// The scenario loader end to end: defaults, presets, includes, variants, --set and --seed,
// the resolved tree and its YAML round trip; and, driven by tests/scenario/bad/*.yaml, the
// exact list of issues each broken file produces.
#include "core/units_format.hpp"
#include "scenario/loader.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
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

const Variant& only_variant(const LoadedScenario& s) {
    REQUIRE(s.variants.size() == 1);
    return s.variants.front();
}

const TransferSpec& transfer(const ScenarioSpec& spec, std::size_t i) {
    REQUIRE(i < spec.workload.size());
    return std::get<TransferSpec>(spec.workload[i].kind);
}

std::vector<std::string> issues_of(const std::string& text, const LoadOptions& options = {}) {
    try {
        load_scenario_text(text, "t.yaml", options);
    } catch (const ConfigError& e) {
        std::vector<std::string> out;
        for (const auto& i : e.issues()) out.push_back(i.str());
        return out;
    }
    return {};
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

constexpr const char* kMinimal = R"(
name: minimal
cluster: { servers: 2 }
workload:
  - transfer: { from: 0, to: 1, size: 1GiB }
)";

}  // namespace

TEST_CASE("a minimal scenario gets every default from spec.hpp", "[loader]") {
    const auto loaded = load_scenario_text(kMinimal, "minimal.yaml", {});
    CHECK(loaded.file == "minimal.yaml");
    const Variant& v = only_variant(loaded);
    CHECK(v.name == "default");
    const ScenarioSpec& s = v.spec;
    CHECK(s.name == "minimal");
    CHECK(s.description.empty());
    CHECK(s.seed == 1);
    CHECK(s.simulation.model == NetworkModel::ideal);
    CHECK(s.simulation.stop_time == Time::max());
    CHECK(s.simulation.ideal.latency == 2_us);
    CHECK(s.cluster.servers == 2);
    CHECK(s.cluster.server.preset.empty());
    CHECK(s.cluster.server.gpus == 0);
    CHECK(s.cluster.server.nics == 1);
    CHECK(s.cluster.server.nic.line_rate == 400_Gbps);
    CHECK(s.cluster.ranks() == 2);
    REQUIRE(s.workload.size() == 1);
    CHECK(s.workload[0].name == "transfer0");
    CHECK(s.workload[0].after.empty());
    CHECK(s.workload[0].location.line == 5);
    CHECK(s.workload[0].location.column == 5);
    CHECK(transfer(s, 0).from == RankId{0});
    CHECK(transfer(s, 0).to == RankId{1});
    CHECK(transfer(s, 0).size == 1_GiB);
    CHECK(transfer(s, 0).start == Time::zero());
    CHECK(s.outputs.dir.empty());
    CHECK(s.outputs.formats == std::vector<OutputFormat>{OutputFormat::json, OutputFormat::csv});
}

TEST_CASE("every key of the schema is read into the spec", "[loader]") {
    const auto loaded = load_scenario(kSource / "tests/scenario/good/quickstart.yaml", shipped_presets());
    const ScenarioSpec& s = only_variant(loaded).spec;
    CHECK(s.name == "quickstart");
    CHECK(s.description == "one 1 GiB transfer across the fabric");
    CHECK(s.seed == 7);
    CHECK(s.simulation.stop_time == 10_ms);
    CHECK(s.simulation.ideal.latency == Time::ns(1'500));
    CHECK(s.cluster.ranks() == 16);
    CHECK(s.workload[0].name == "first");
    CHECK(s.workload[1].name == "transfer1");
    CHECK(s.workload[1].after == "first");
    CHECK(transfer(s, 1).size == Bytes{2'621'440});
    CHECK(transfer(s, 1).start == 500_ns);
    CHECK(s.outputs.dir == "results/quickstart");
    CHECK(s.outputs.formats == std::vector<OutputFormat>{OutputFormat::json});
}

TEST_CASE("a workload entry's priority reads back and prints beside its name", "[loader][workload]") {
    const std::string text = "name: p\ncluster: { servers: 2 }\nworkload:\n"
                             "  - transfer: { from: 0, to: 1, size: 1MiB }\n"
                             "  - transfer: { from: 1, to: 0, size: 1MiB }\n    priority: 5\n";
    const auto loaded = load_scenario_text(text, "p.yaml", {});
    const ScenarioSpec& s = only_variant(loaded).spec;
    CHECK_FALSE(s.workload[0].priority.has_value());  // the fabric's data class
    CHECK(s.workload[1].priority == std::optional<int>(5));
    const std::string yaml = to_yaml(only_variant(loaded).resolved);
    CHECK(yaml.find("  - name: transfer0\n    transfer:\n") != std::string::npos);
    CHECK(yaml.find("  - name: transfer1\n    priority: 5\n    transfer:\n") != std::string::npos);
    const auto again = load_scenario_text(yaml, "again.yaml", {});
    CHECK(only_variant(again).spec == s);
    // The priority is part of the entry: a different one is a different scenario.
    const auto other = load_scenario_text(replace_all(text, "priority: 5", "priority: 4"), "p.yaml", {});
    CHECK_FALSE(only_variant(other).spec == s);
}

TEST_CASE("a workload priority is 0..7 on RoCE and a service level 0..15 on InfiniBand", "[loader][workload]") {
    const auto entry = [](const std::string& fabric, const std::string& priority) {
        return "name: p\ncluster:\n  servers: 2\n  fabric: " + fabric +
               "\nworkload:\n  - transfer: { from: 0, to: 1, size: 1MiB }\n    priority: " + priority + "\n";
    };
    const std::string roce = "{ technology: roce }";
    const std::string ib = "{ technology: infiniband, switch: quantum-2 }";
    CHECK(issues_of(entry(roce, "7")).empty());
    CHECK(issues_of(entry(roce, "6")) ==
          std::vector<std::string>{"t.yaml:7:15: workload[0].priority: 6 is the control priority "
                                   "(cluster.roce.control_priority) that CNPs and ACKs ride; expected a data priority "
                                   "other than 6"});
    CHECK(issues_of(entry(roce, "8")) ==
          std::vector<std::string>{"t.yaml:7:15: workload[0].priority: expected an integer <= 7, found 8"});
    CHECK(issues_of(entry(roce, "-1")) ==
          std::vector<std::string>{"t.yaml:7:15: workload[0].priority: expected an integer >= 0, found -1"});
    CHECK(issues_of(entry(ib, "16"), shipped_presets()) ==
          std::vector<std::string>{"t.yaml:7:15: workload[0].priority: expected an integer <= 15, found 16"});

    const auto loaded = load_scenario_text(entry(ib, "12"), "p.yaml", shipped_presets());
    const Variant& v = only_variant(loaded);
    CHECK(v.spec.cluster.fabric.technology == Technology::infiniband);
    CHECK(v.spec.workload[0].priority == std::optional<int>(12));
    const std::string yaml = to_yaml(v.resolved);
    CHECK(yaml.find("  - name: transfer0\n    priority: 12\n    transfer:\n") != std::string::npos);
    CHECK(only_variant(load_scenario_text(yaml, "again.yaml", shipped_presets())).spec == v.spec);
}

TEST_CASE("simulation.packet.cut_through is off unless set to true", "[loader]") {
    const auto packet_of = [](const std::string& packet) {
        const std::string text = "name: c\nsimulation:\n  packet: " + packet +
                                 "\ncluster: { servers: 2 }\nworkload: [{ transfer: { from: 0, to: 1, size: 1B } }]\n";
        return only_variant(load_scenario_text(text, "c.yaml", {})).spec.simulation.packet;
    };
    CHECK_FALSE(only_variant(load_scenario_text(kMinimal, "m.yaml", {})).spec.simulation.packet.cut_through);
    CHECK_FALSE(packet_of("{ cut_through: false }").cut_through);
    CHECK(packet_of("{ cut_through: true }").cut_through);
    CHECK(packet_of("{ cut_through: true }").deadlock_timeout == 10_ms);  // the other keys keep their defaults
    const std::string bad = "name: c\nsimulation:\n  packet: { cut_through: 3 }\n"
                            "cluster: { servers: 2 }\nworkload: [{ transfer: { from: 0, to: 1, size: 1B } }]\n";
    CHECK(issues_of(bad) ==
          std::vector<std::string>{"t.yaml:3:26: simulation.packet.cut_through: expected true or false, found 3"});
}

TEST_CASE("a server preset supplies the server and inline keys override it", "[loader][presets]") {
    const auto with_server = [](const std::string& server) {
        return "name: p\ncluster:\n  servers: 2\n  server: " + server +
               "\nworkload:\n  - transfer: { from: 0, to: 1, size: 1MB }\n";
    };
    // configs/servers/hgx-h100.yaml: the DGX H100 datasheet's 8 GPUs and 8 x 400G NICs.
    const ServerSpec h100 =
        only_variant(load_scenario_text(with_server("hgx-h100"), "p.yaml", shipped_presets())).spec.cluster.server;
    CHECK(h100.preset == "hgx-h100");
    CHECK(h100.gpus == 8);
    CHECK(h100.nics == 8);
    CHECK(h100.nic.line_rate == 400_Gbps);

    const ServerSpec host =
        only_variant(load_scenario_text(with_server("host-1nic"), "p.yaml", shipped_presets())).spec.cluster.server;
    CHECK(host.preset == "host-1nic");
    CHECK(host.gpus == 0);
    CHECK(host.ranks() == 1);
    CHECK(host.nics == 1);

    const ServerSpec tuned = only_variant(load_scenario_text(with_server("{ preset: hgx-h100, nics: 4, "
                                                                         "nic: { line_rate: 200Gbps } }"),
                                                             "p.yaml", shipped_presets()))
                                 .spec.cluster.server;
    CHECK(tuned.preset == "hgx-h100");
    CHECK(tuned.gpus == 8);
    CHECK(tuned.nics == 4);
    CHECK(tuned.nic.line_rate == 200_Gbps);
    CHECK(tuned.nic.preset == "connectx-7");  // the preset's NIC, with one key overridden
    CHECK(tuned.nic.pcie_generation == 5);

    const ServerSpec inline_server =
        only_variant(load_scenario_text(with_server("{ gpus: 4, nics: 2, nic: { line_rate: 100Gbps } }"), "p.yaml", {}))
            .spec.cluster.server;
    CHECK(inline_server.preset.empty());
    CHECK(inline_server.gpus == 4);
    CHECK(inline_server.nics == 2);
    CHECK(inline_server.nic.line_rate == 100_Gbps);
}

TEST_CASE("config folders are searched in order and the first holding the preset wins", "[loader][presets]") {
    LoadOptions o;
    o.config_dirs = {kSource / "tests/scenario/bad/parts/configs", kSource / "configs"};
    const std::string text =
        "name: p\ncluster: { server: host }\nworkload: [{ transfer: { from: 0, to: 0, size: 1B } }]\n";
    // The test folder's host has a 100G NIC; and rank 0 to rank 0 is still an error.
    CHECK(
        issues_of(text, o) ==
        std::vector<std::string>{
            "t.yaml:3:39: workload[0].transfer.to: from and to are both rank 0; a transfer needs two different ranks"});
    const auto loaded = load_scenario_text("name: p\ncluster: { servers: 2, server: host }\n"
                                           "workload: [{ transfer: { from: 0, to: 1, size: 1B } }]\n",
                                           "t.yaml", o);
    CHECK(only_variant(loaded).spec.cluster.server.nic.line_rate == 100_Gbps);
    CHECK(only_variant(load_scenario_text(kMinimal, "t.yaml", o)).spec.cluster.server.preset.empty());
}

TEST_CASE("every shipped server preset loads", "[loader][presets]") {
    int presets = 0;
    for (const auto& entry : fs::directory_iterator(kSource / "configs/servers")) {
        if (entry.path().extension() != ".yaml") continue;
        ++presets;
        const std::string name = entry.path().stem().string();
        INFO(name);
        const std::string text = "name: p\ncluster: { servers: 2, server: " + name +
                                 " }\nworkload: [{ transfer: { from: 0, to: 1, size: 1B } }]\n";
        CHECK(only_variant(load_scenario_text(text, "p.yaml", shipped_presets())).spec.cluster.server.preset == name);
    }
    CHECK(presets >= 2);
}

TEST_CASE("included files merge underneath and the including file's keys win", "[loader][include]") {
    const auto loaded = load_scenario(kSource / "tests/scenario/good/with-include.yaml", shipped_presets());
    const ScenarioSpec& s = only_variant(loaded).spec;
    CHECK(s.name == "with-include");               // this file over base.yaml
    CHECK(s.description == "from defaults.yaml");  // nested include
    CHECK(s.seed == 99);
    CHECK(s.simulation.stop_time == 1_s);
    CHECK(s.simulation.ideal.latency == 5_us);      // base.yaml over defaults.yaml
    CHECK(s.cluster.servers == 4);                  // this file, merged into base's cluster
    CHECK(s.cluster.server.preset == "host-1nic");  // base's server, with its override
    CHECK(s.cluster.server.nic.line_rate == 100_Gbps);
    CHECK(transfer(s, 0).size == 64_KiB);
}

TEST_CASE("variants apply their overrides to the base and each is validated on its own", "[loader][variants]") {
    const auto loaded = load_scenario(kSource / "tests/scenario/good/variants.yaml", shipped_presets());
    REQUIRE(loaded.variants.size() == 4);
    const auto& base = loaded.variants[0];
    const auto& big = loaded.variants[1];
    const auto& small = loaded.variants[2];
    const auto& hosts = loaded.variants[3];
    CHECK(base.name == "base");
    CHECK(big.name == "big");
    CHECK(small.name == "small");
    CHECK(hosts.name == "hosts");

    CHECK(base.spec.cluster.ranks() == 16);
    CHECK(transfer(base.spec, 0).size == 1_GiB);

    CHECK(big.spec.cluster.servers == 32);
    CHECK(transfer(big.spec, 0).size == 2_GiB);

    // A mapping over a preset name keeps the preset and overrides one key; over a workload
    // entry it merges and keeps the other keys.
    CHECK(small.spec.cluster.server.preset == "hgx-h100");
    CHECK(small.spec.cluster.server.gpus == 4);
    CHECK(small.spec.cluster.server.nics == 8);
    CHECK(transfer(small.spec, 0).to == RankId{7});
    CHECK(transfer(small.spec, 0).size == 1_GiB);

    CHECK(hosts.spec.cluster.server.preset == "host-1nic");
    CHECK(hosts.spec.cluster.ranks() == 16);

    // The variants section is not part of any resolved tree.
    for (const auto& v : loaded.variants) CHECK(to_yaml(v.resolved).find("\nvariants:") == std::string::npos);
}

TEST_CASE("the --set overrides apply after the variant's own and --seed after both", "[loader][variants]") {
    LoadOptions o = shipped_presets();
    o.sets = {"cluster.servers=16", "workload.0.transfer={size: 3MB, start: 1us}", "seed=5"};
    o.seed = 11;
    const auto loaded = load_scenario(kSource / "tests/scenario/good/variants.yaml", o);
    REQUIRE(loaded.variants.size() == 4);
    for (const auto& v : loaded.variants) {
        INFO(v.name);
        CHECK(v.spec.cluster.servers == 16);  // wins over big's 32
        CHECK(transfer(v.spec, 0).size == 3_MB);
        CHECK(transfer(v.spec, 0).start == 1_us);
        CHECK(v.spec.seed == 11);
    }
    CHECK(transfer(loaded.variants[2].spec, 0).to == RankId{7});  // small's own override stays

    LoadOptions set_only;
    set_only.sets = {"seed=18446744073709551615", "description=a b c", "outputs.formats=[csv]"};
    const ScenarioSpec s = only_variant(load_scenario_text(kMinimal, "m.yaml", set_only)).spec;
    CHECK(s.seed == 18'446'744'073'709'551'615u);
    CHECK(s.description == "a b c");
    CHECK(s.outputs.formats == std::vector<OutputFormat>{OutputFormat::csv});
}

TEST_CASE("a --seed is accepted even where the file's seed is not", "[loader][variants]") {
    const std::string text = std::string(kMinimal) + "seed: lucky\n";
    CHECK(issues_of(text) ==
          std::vector<std::string>{"t.yaml:6:7: seed: expected an unsigned 64-bit integer, found \"lucky\""});
    LoadOptions o;
    o.seed = 3;
    CHECK(only_variant(load_scenario_text(text, "t.yaml", o)).spec.seed == 3);
}

TEST_CASE("the resolved tree shows every value with units in their exact human form", "[loader][resolved]") {
    const auto loaded = load_scenario(kSource / "tests/scenario/good/quickstart.yaml", shipped_presets());
    const std::string expected = R"(name: quickstart
description: one 1 GiB transfer across the fabric
seed: 7
simulation:
  model: ideal
  stop_time: 10ms
  ideal:
    latency: 1.5us
  packet:
    segment: 64KiB
    deadlock_timeout: 10ms
    cut_through: false
cluster:
  servers: 2
  server:
    preset: hgx-h100
    gpu_model: H100 SXM5
    gpus: 8
    nvlink:
      generation: nvlink4
      links_per_gpu: 18
      link_bandwidth: 200Gbps
      switches: 4
      split:
        - 5
        - 4
        - 4
        - 5
    pcie:
      generation: 5
      lanes: 16
      switches: 4
    nics: 8
    nic:
      preset: connectx-7
      line_rate: 400Gbps
      pcie_generation: 5
      pcie_lanes: 16
      qps_per_connection: 1
      receive_buffer: 1MiB
    storage_nics: 2
    storage_nic:
      preset: connectx-7
      line_rate: 400Gbps
      pcie_generation: 5
      pcie_lanes: 16
      qps_per_connection: 1
      receive_buffer: 1MiB
    gpudirect:
      rdma: true
      p2p: true
      storage: true
      pxn: true
    host:
      sockets: 1
      socket_link: 1.024Tbps
      memory_copy: 920Gbps
      staging_latency: 2us
      staging_chunk: 512KiB
  fabric:
    technology: roce
    topology: leaf-spine
    link_speed: auto
    switch:
      technology: roce
      radix: 64
      port_speed: 400Gbps
      latency: 600ns
      buffer: 62500KiB
      sharp: false
    oversubscription: 1:1
    cable_length: 5m
    uplink_cable_length: 30m
    mtu: 4KiB
    routing: auto
    planes: 1
  roce:
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
      lossy_alpha: 8
      reserved_per_queue: 4KiB
    queues:
      strict:
        - 6
        - 7
      weights:
        - 1
        - 1
        - 1
        - 1
        - 1
        - 1
        - 1
        - 1
    control_priority: 6
    ack_every: 1
    retransmit_timeout: 1.073741824s
    lossless: true
    header_bytes: 82
  infiniband:
    virtual_lanes: 2
    vl_buffer: auto
    credit_update_period: 0ps
    sl_to_vl:
      - 0
      - 1
      - 0
      - 1
      - 0
      - 1
      - 0
      - 1
      - 0
      - 1
      - 0
      - 1
      - 0
      - 1
      - 0
      - 1
    vl_arbitration:
      high:
        []
      low:
        - vl: 0
          weight: 4
        - vl: 1
          weight: 4
      high_limit: 0
    congestion_control:
      enabled: true
      threshold: 8KiB
      marking_rate: 10
      victim_mask: false
      packet_size: 512B
      ccti_increase: 1
      ccti_limit: auto
      ccti_min: 0
      ccti_timer: 10.24us
      table: auto
    header_bytes: 26
workload:
  - name: first
    transfer:
      from: 0
      to: 8
      size: 1GiB
      start: 0ps
  - name: transfer1
    after: first
    transfer:
      from: 8
      to: 0
      size: 2560KiB
      start: 500ns
outputs:
  dir: results/quickstart
  formats:
    - json
  qp_rates: off
)";
    CHECK(to_yaml(only_variant(loaded).resolved) == expected);

    const std::string defaults = to_yaml(only_variant(load_scenario_text(kMinimal, "m.yaml", {})).resolved);
    CHECK(defaults.find("stop_time: none\n") != std::string::npos);
    CHECK(defaults.find("latency: 2us\n") != std::string::npos);
    CHECK(defaults.find("description: \"\"\n") != std::string::npos);
    CHECK(defaults.find("dir: \"\"\n") != std::string::npos);
    // An inline server has no preset: the only one printed is DCQCN's parameter set.
    CHECK(defaults.find("preset") == defaults.find("preset: nic\n"));
    CHECK(defaults.find("preset", defaults.find("preset") + 1) == std::string::npos);
}

TEST_CASE("the resolved YAML reads back to the same spec", "[loader][resolved]") {
    LoadOptions o = shipped_presets();
    int checked = 0;
    for (const auto& entry : fs::directory_iterator(kSource / "tests/scenario/good")) {
        if (entry.path().extension() != ".yaml") continue;
        for (const auto& v : load_scenario(entry.path(), o).variants) {
            INFO(entry.path().filename().string() << " variant " << v.name);
            const std::string yaml = to_yaml(v.resolved);
            const auto reloaded = load_scenario_text(yaml, "resolved.yaml", o);
            const Variant& again = only_variant(reloaded);
            CHECK(again.spec == v.spec);
            CHECK(again.resolved == v.resolved);
            ++checked;
        }
    }
    CHECK(checked >= 7);

    // Values that need quoting in YAML and a seed above INT64_MAX survive too.
    LoadOptions odd;
    odd.seed = 18'446'744'073'709'551'615u;
    odd.sets = {"description='null: ~ #x'"};
    const auto loaded = load_scenario_text(kMinimal, "m.yaml", odd);
    const Variant& v = only_variant(loaded);
    const auto reloaded = load_scenario_text(to_yaml(v.resolved), "r.yaml", {});
    const Variant& again = only_variant(reloaded);
    CHECK(again.spec.description == "null: ~ #x");
    CHECK(again.spec == v.spec);
}

TEST_CASE("anchors and aliases expand but a document that expands without bound is refused", "[loader]") {
    const auto loaded = load_scenario(kSource / "tests/scenario/good/anchors.yaml", {});
    const ScenarioSpec& s = only_variant(loaded).spec;
    REQUIRE(s.workload.size() == 2);
    CHECK(std::get<TransferSpec>(s.workload[0].kind) == std::get<TransferSpec>(s.workload[1].kind));

    // "Billion laughs": 10 levels of 10 aliases each would be 10^10 values.
    std::ostringstream bomb;
    bomb << "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i < 10; ++i) {
        bomb << 'a' << i << ": &a" << i << " [";
        for (int k = 0; k < 10; ++k) bomb << (k ? ", *a" : "*a") << i - 1;
        bomb << "]\n";
    }
    CHECK(issues_of(bomb.str()) ==
          std::vector<std::string>{
              "t.yaml: the document expands to more than 1000000 values (aliases count each time they are used)"});
}

TEST_CASE("a scenario file that cannot be read says why", "[loader]") {
    const fs::path missing = kSource / "tests/scenario/good/no-such-file.yaml";
    try {
        load_scenario(missing, {});
        FAIL("no error");
    } catch (const ConfigError& e) {
        REQUIRE(e.issues().size() == 1);
        CHECK(e.issues()[0].str() == "cannot read \"" + missing.generic_string() + "\": file not found");
    }
    try {
        load_scenario(kSource / "tests/scenario/good", {});
        FAIL("no error");
    } catch (const ConfigError& e) {
        REQUIRE(e.issues().size() == 1);
        CHECK(e.issues()[0].message.ends_with(": not a regular file"));
    }
}

TEST_CASE("without config folders a preset name is still a clear error", "[loader][presets]") {
    const std::string text =
        "name: p\ncluster: { server: hgx-h100 }\nworkload: [{ transfer: { from: 0, to: 1, size: 1B } }]\n";
    CHECK(issues_of(text) ==
          std::vector<std::string>{
              "t.yaml:2:20: cluster.server: unknown server preset \"hgx-h100\"; no config folder was given"});
    LoadOptions traversal = shipped_presets();
    CHECK(issues_of("name: p\ncluster: { server: ../servers/hgx-h100 }\nworkload: [{ transfer: { from: 0, to: 1, size: "
                    "1B } }]\n",
                    traversal)
              .at(0)
              .starts_with("t.yaml:2:20: cluster.server: unknown server preset \"../servers/hgx-h100\"; "));
}

TEST_CASE("more than 200 issues are cut short with a count", "[loader]") {
    std::string text = "name: many\ncluster: { servers: 2 }\nworkload:\n";
    for (int i = 0; i < 250; ++i) text += "  - transfer: { from: 0, to: 1, size: 1 }\n";
    const auto issues = issues_of(text);
    REQUIRE(issues.size() == 201);
    CHECK(issues[0] == "t.yaml:4:39: workload[0].transfer.size: \"1\" has no unit; did you mean \"1B\"?");
    CHECK(issues[200] == "... and 50 more issues");
}

// Each tests/scenario/bad/*.yaml starts with comment lines:
//   # set: key.path=value        (optional, passed as --set, in order)
//   # expect: <one full issue line, {file} and {dir} standing for the file and its folder>
// The file must produce exactly the expected issues, in that order. Presets come from
// tests/scenario/bad/parts/configs so that the listed names do not change as presets ship.
TEST_CASE("each broken scenario reports exactly its expected issues", "[loader][bad]") {
    const fs::path dir = kSource / "tests/scenario/bad";
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().extension() == ".yaml") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    CHECK(files.size() >= 24);

    for (const auto& file : files) {
        DYNAMIC_SECTION(file.filename().string()) {
            LoadOptions options;
            options.config_dirs = {dir / "parts/configs"};
            std::vector<std::string> expected;
            std::ifstream in(file);
            for (std::string line; std::getline(in, line) && line.starts_with("# ");) {
                if (line.starts_with("# set: ")) options.sets.push_back(line.substr(7));
                if (line.starts_with("# expect: ")) {
                    std::string e = line.substr(10);
                    e = replace_all(e, "{file}", file.generic_string());
                    e = replace_all(e, "{dir}", dir.generic_string());
                    expected.push_back(e);
                }
            }
            REQUIRE_FALSE(expected.empty());
            std::vector<std::string> actual;
            try {
                load_scenario(file, options);
            } catch (const ConfigError& e) {
                for (const auto& issue : e.issues()) actual.push_back(issue.str());
                CHECK(std::string(e.what()).find(actual.front()) == 0);
            }
            CHECK(actual == expected);
        }
    }
}

namespace {

// Two servers and `cluster`'s keys (each line indented by two spaces).
ScenarioSpec with_cluster(const std::string& cluster, const LoadOptions& options = shipped_presets()) {
    const std::string text =
        "name: c\ncluster:\n  servers: 2\n" + cluster + "workload: [{ transfer: { from: 0, to: 1, size: 1B } }]\n";
    return only_variant(load_scenario_text(text, "c.yaml", options)).spec;
}

ServerSpec shipped_server(const std::string& name) { return with_cluster("  server: " + name + "\n").cluster.server; }

// Per GPU, per direction: links x per-link bandwidth.
Bandwidth nvlink_per_gpu(const ServerSpec& s) { return s.nvlink.link_bandwidth * s.nvlink.links_per_gpu; }

}  // namespace

TEST_CASE("hgx-h100 has 8 GPUs with 18 NVLink4 links split 5 4 4 5 over 4 NVSwitches and 8 x 400G NICs",
          "[loader][presets]") {
    const ServerSpec s = shipped_server("hgx-h100");
    CHECK(s.gpu_model == "H100 SXM5");
    CHECK(s.gpus == 8);
    CHECK(s.nvlink.generation == "nvlink4");
    CHECK(s.nvlink.links_per_gpu == 18);
    CHECK(s.nvlink.link_bandwidth == Bandwidth::GBps(25));
    CHECK(nvlink_per_gpu(s) == Bandwidth::GBps(450));  // 900 GB/s bidirectional
    CHECK(s.nvlink.switches == 4);
    CHECK(s.nvlink.split == std::vector<int>{5, 4, 4, 5});
    CHECK(s.pcie == PcieSpec{5, 16, 4});
    CHECK(s.nics == 8);
    CHECK(s.nic == NicSpec{"connectx-7", 400_Gbps, 5, 16, 1, 1_MiB, std::nullopt, 0_ns});
    CHECK(s.storage_nics == 2);
    CHECK(s.storage_nic == NicSpec{"connectx-7", 400_Gbps, 5, 16, 1, 1_MiB, std::nullopt, 0_ns});
}

TEST_CASE("hgx-a100 has 12 NVLink3 links over 6 NVSwitches and 8 x 200G HDR NICs on PCIe Gen4", "[loader][presets]") {
    const ServerSpec s = shipped_server("hgx-a100");
    CHECK(s.gpus == 8);
    CHECK(s.nvlink.generation == "nvlink3");
    CHECK(s.nvlink.links_per_gpu == 12);
    CHECK(nvlink_per_gpu(s) == Bandwidth::GBps(300));  // 600 GB/s bidirectional
    CHECK(s.nvlink.switches == 6);
    CHECK(s.nvlink.split == std::vector<int>{2, 2, 2, 2, 2, 2});
    CHECK(s.pcie == PcieSpec{4, 16, 4});
    CHECK(s.nics == 8);
    CHECK(s.nic == NicSpec{"connectx-6", 200_Gbps, 4, 16, 1, 512_KiB, std::nullopt, 0_ns});
    CHECK(s.storage_nics == 2);
}

TEST_CASE("hgx-b200 has 18 NVLink5 links at 50 GB/s over 2 NVLink switch chips and 8 x 400G NICs",
          "[loader][presets]") {
    const ServerSpec s = shipped_server("hgx-b200");
    CHECK(s.gpus == 8);
    CHECK(s.nvlink.generation == "nvlink5");
    CHECK(s.nvlink.links_per_gpu == 18);
    CHECK(s.nvlink.link_bandwidth == Bandwidth::GBps(50));
    CHECK(nvlink_per_gpu(s) == Bandwidth::GBps(900));  // 1.8 TB/s bidirectional
    CHECK(s.nvlink.switches == 2);
    CHECK(s.nvlink.split == std::vector<int>{9, 9});
    CHECK(s.pcie == PcieSpec{5, 16, 4});
    CHECK(s.nics == 8);
    CHECK(s.nic.preset == "connectx-7");
    CHECK(s.nic.line_rate == 400_Gbps);
    CHECK(s.storage_nics == 2);
    CHECK(s.storage_nic.preset == "bluefield-3");
}

TEST_CASE("pcie-l40s has no NVLink and 8 GPUs with 2 NICs on PCIe Gen4 switches", "[loader][presets]") {
    const ServerSpec s = shipped_server("pcie-l40s");
    CHECK(s.gpus == 8);
    CHECK(s.nvlink.links_per_gpu == 0);
    CHECK(s.pcie.generation == 4);
    CHECK(s.pcie.switches == 2);
    CHECK(s.nics == 2);
    CHECK(s.nic.pcie_generation <= s.pcie.generation);  // a Gen4 NIC: no faster than its switch
}

TEST_CASE("h100-pcie-bridge joins 2 GPUs with 12 NVLink4 links and no NVSwitch", "[loader][presets]") {
    const ServerSpec s = shipped_server("h100-pcie-bridge");
    CHECK(s.gpus == 2);
    CHECK(s.nvlink.links_per_gpu == 12);
    CHECK(nvlink_per_gpu(s) == Bandwidth::GBps(300));  // 600 GB/s bidirectional over the bridges
    CHECK(s.nvlink.switches == 0);
    CHECK(s.pcie.generation == 5);
    CHECK(s.nics == 1);
}

TEST_CASE("host-1nic is one rank with one 400G NIC and no server internals", "[loader][presets]") {
    const ServerSpec s = shipped_server("host-1nic");
    CHECK(s.gpus == 0);
    CHECK(s.ranks() == 1);
    CHECK(s.nvlink.links_per_gpu == 0);
    CHECK(s.pcie.switches == 0);
    CHECK(s.nics == 1);
    CHECK(s.nic.preset == "connectx-7");
    CHECK(s.nic.line_rate == 400_Gbps);
    CHECK(s.storage_nics == 0);
}

TEST_CASE("every shipped server's NVLink split adds up to its links per GPU", "[loader][presets]") {
    int checked = 0;
    for (const auto& entry : fs::directory_iterator(kSource / "configs/servers")) {
        if (entry.path().extension() != ".yaml") continue;
        const std::string name = entry.path().stem().string();
        INFO(name);
        const ServerSpec s = shipped_server(name);
        if (s.nvlink.links_per_gpu == 0) continue;
        ++checked;
        if (s.nvlink.switches == 0) {
            CHECK(s.gpus == 2);  // a bridge
            continue;
        }
        int sum = 0;
        for (int links : s.nvlink.split) sum += links;
        CHECK(static_cast<int>(s.nvlink.split.size()) == s.nvlink.switches);
        CHECK(sum == s.nvlink.links_per_gpu);
    }
    CHECK(checked == 4);  // hgx-h100, hgx-a100, hgx-b200, h100-pcie-bridge
}

TEST_CASE("every shipped NIC preset has its datasheet line rate and PCIe link", "[loader][presets]") {
    const auto nic = [](const std::string& name) {
        return with_cluster("  server: { nic: " + name + " }\n  fabric: { switch: { port_speed: 800Gbps } }\n")
            .cluster.server.nic;
    };
    CHECK(nic("connectx-6") == NicSpec{"connectx-6", 200_Gbps, 4, 16, 1, 512_KiB, std::nullopt, 0_ns});
    CHECK(nic("connectx-7") == NicSpec{"connectx-7", 400_Gbps, 5, 16, 1, 1_MiB, std::nullopt, 0_ns});
    CHECK(nic("bluefield-3") == NicSpec{"bluefield-3", 400_Gbps, 5, 16, 1, 1_MiB, std::nullopt, 0_ns});
    CHECK(nic("connectx-8") == NicSpec{"connectx-8", 800_Gbps, 6, 16, 1, 2_MiB, std::nullopt, 0_ns});
    // The receive buffers are not published: each keeps the 21 us of line rate of the one
    // published ConnectX port buffer, 262016 B at 100GbE (docs/models/pfc.md), within 0.1 %.
    for (const char* name : {"connectx-6", "connectx-7", "bluefield-3", "connectx-8"}) {
        const NicSpec n = nic(name);
        const double scaled = 262016.0 * static_cast<double>(n.line_rate.bits_per_second()) / 100e9;
        CHECK(static_cast<double>(n.receive_buffer.count()) == Approx(scaled).epsilon(0.001));
    }
    // iWARP RNICs (docs/models/iwarp.md): the default receive buffer; the engine's timeout
    // floor and latency where a source gives them.
    CHECK(nic("chelsio-t6") == NicSpec{"chelsio-t6", 100_Gbps, 3, 16, 1, 1_MiB, 250_ms, 500_ns});
    CHECK(nic("chelsio-t7") == NicSpec{"chelsio-t7", 400_Gbps, 5, 16, 1, 1_MiB, 250_ms, 500_ns});
    CHECK(nic("intel-e810") == NicSpec{"intel-e810", 100_Gbps, 4, 16, 1, 1_MiB, std::nullopt, 0_ns});
    int presets = 0;
    for (const auto& entry : fs::directory_iterator(kSource / "configs/nics"))
        if (entry.path().extension() == ".yaml") ++presets;
    CHECK(presets == 7);
}

TEST_CASE("every shipped switch preset has its technology and radix at its port speed", "[loader][presets]") {
    const auto sw = [](const std::string& name, const std::string& technology, const std::string& speed) {
        return with_cluster("  fabric: { technology: " + technology + ", link_speed: " + speed + ", switch: " + name +
                            " }\n")
            .cluster.fabric.switch_spec;
    };
    const SwitchSpec q2 = sw("quantum-2", "infiniband", "400Gbps");
    CHECK(q2.technology == Technology::infiniband);
    CHECK(q2.radix == 64);
    CHECK(q2.port_speed == 400_Gbps);
    const SwitchSpec q = sw("quantum", "infiniband", "200Gbps");
    CHECK(q.technology == Technology::infiniband);
    CHECK(q.radix == 40);
    CHECK(q.port_speed == 200_Gbps);
    const SwitchSpec s4 = sw("spectrum-4", "roce", "400Gbps");
    CHECK(s4.technology == Technology::roce);
    CHECK(s4.radix == 128);  // 51.2 Tb/s as 400G ports
    CHECK(s4.port_speed == 400_Gbps);
    const SwitchSpec s2 = sw("spectrum-2", "roce", "200Gbps");
    CHECK(s2.technology == Technology::roce);
    CHECK(s2.radix == 32);
    CHECK(s2.port_speed == 200_Gbps);
    CHECK(s2.latency == 300_ns);
    const SwitchSpec t5 = sw("tomahawk-5", "roce", "400Gbps");
    CHECK(t5.technology == Technology::roce);
    CHECK(t5.radix == 128);
    CHECK(t5.port_speed == 400_Gbps);
    // The 51.2 Tb/s chips: radix x port speed is their switching capacity.
    CHECK(s4.port_speed * s4.radix == 51'200_Gbps);
    CHECK(t5.port_speed * t5.radix == 51'200_Gbps);
    CHECK(q2.port_speed * q2.radix == 25'600_Gbps);  // 51.2 Tb/s counted both ways
}

TEST_CASE("a switch preset takes inline overrides", "[loader][presets][fabric]") {
    const SwitchSpec s =
        with_cluster("  fabric: { switch: { preset: tomahawk-5, radix: 16 } }\n").cluster.fabric.switch_spec;
    CHECK(s.preset == "tomahawk-5");
    CHECK(s.radix == 16);
    CHECK(s.port_speed == 400_Gbps);
    CHECK(s.technology == Technology::roce);
}

TEST_CASE("an inline switch without a technology has the fabric's", "[loader][fabric]") {
    const FabricSpec f = with_cluster("  fabric: { technology: infiniband, switch: { radix: 40 } }\n").cluster.fabric;
    CHECK(f.technology == Technology::infiniband);
    CHECK(f.switch_spec.technology == Technology::infiniband);
    CHECK(f.switch_spec.radix == 40);
}

TEST_CASE("oversubscription reads as a reduced ratio from D:U or an integer or a decimal", "[loader][fabric]") {
    const auto ratio = [](const std::string& text) {
        return with_cluster("  fabric: { oversubscription: " + text + " }\n").cluster.fabric.oversubscription;
    };
    CHECK(ratio("\"2:1\"") == Ratio{2, 1});
    CHECK(ratio("2") == Ratio{2, 1});
    CHECK(ratio("1.5") == Ratio{3, 2});
    CHECK(ratio("1") == Ratio{1, 1});
    CHECK(ratio("\"4:2\"") == Ratio{2, 1});
    CHECK(ratio("\"4:3\"") == Ratio{4, 3});
    CHECK(ratio("1.25") == Ratio{5, 4});
    CHECK(ratio("3:1") == Ratio{3, 1});  // unquoted too: a plain YAML scalar
}

TEST_CASE("a cluster without fabric sections gets the fabric defaults and no storage fabric", "[loader][fabric]") {
    const auto loaded = load_scenario_text(kMinimal, "m.yaml", {});
    const ClusterSpec& c = only_variant(loaded).spec.cluster;
    CHECK(c.fabric == FabricSpec{});
    CHECK(c.fabric.technology == Technology::roce);
    CHECK(c.fabric.topology == TopologyKind::leaf_spine);
    CHECK(c.fabric.link_speed == Bandwidth::zero());  // the NIC's line rate
    CHECK(c.fabric.oversubscription == Ratio{1, 1});
    CHECK(c.fabric.cable_length == Length::m(5));
    CHECK(c.fabric.uplink_cable_length == Length::m(30));
    CHECK(c.fabric.mtu == 4_KiB);
    CHECK(c.fabric.routing == RoutingKind::automatic);
    CHECK(c.fabric.planes == 1);
    CHECK_FALSE(c.storage_fabric.enabled);
    CHECK(c.server.nvlink == NvlinkSpec{});
    CHECK(c.server.pcie == PcieSpec{});
    const std::string yaml = to_yaml(only_variant(loaded).resolved);
    CHECK(yaml.find("storage_fabric") == std::string::npos);
    CHECK(yaml.find("link_speed: auto\n") != std::string::npos);
    CHECK(yaml.find("oversubscription: 1:1\n") != std::string::npos);

    // An empty storage_fabric section is a storage fabric with every default.
    const ClusterSpec s = with_cluster("  server: { storage_nics: 1 }\n  storage_fabric: {}\n", {}).cluster;
    CHECK(s.storage_fabric.enabled);
    CHECK(s.storage_fabric.fabric == FabricSpec{});
    CHECK(s.storage_fabric.storage_nodes == 0);
    CHECK(s.storage_fabric.nics_per_storage_node == 1);
    CHECK(s.storage_fabric.storage_node_nic == NicSpec{});
    CHECK_FALSE(with_cluster("  storage_fabric: none\n", {}).cluster.storage_fabric.enabled);
}

TEST_CASE("every key of a fabric and a storage fabric is read into the spec", "[loader][fabric]") {
    const auto loaded = load_scenario(kSource / "tests/scenario/good/fabrics.yaml", shipped_presets());
    REQUIRE(loaded.variants.size() == 3);
    const ClusterSpec& roce = loaded.variants[0].spec.cluster;
    CHECK(roce.server.preset == "hgx-h100");
    CHECK(roce.server.nic.preset == "connectx-7");
    CHECK(roce.server.nic.qps_per_connection == 4);
    const FabricSpec& f = roce.fabric;
    CHECK(f.technology == Technology::roce);
    CHECK(f.topology == TopologyKind::leaf_spine);
    CHECK(f.link_speed == 400_Gbps);
    CHECK(f.switch_spec.preset == "tomahawk-5");
    CHECK(f.switch_spec.radix == 16);
    CHECK(f.oversubscription == Ratio{3, 1});
    CHECK(f.cable_length == Length::m(3));
    CHECK(f.uplink_cable_length == Length::m(50));
    CHECK(f.mtu == 9_KiB);
    CHECK(f.routing == RoutingKind::ecmp);
    CHECK(f.planes == 2);
    const StorageFabricSpec& st = roce.storage_fabric;
    CHECK(st.enabled);
    CHECK(st.fabric.topology == TopologyKind::single_switch);
    CHECK(st.fabric.link_speed == 200_Gbps);
    CHECK(st.fabric.switch_spec.preset == "spectrum-2");
    CHECK(st.fabric.oversubscription == Ratio{3, 2});
    CHECK(st.fabric.cable_length == Length::m(2));
    CHECK(st.fabric.uplink_cable_length == Length::m(20));
    CHECK(st.fabric.mtu == 4_KiB);
    CHECK(st.fabric.planes == 1);
    CHECK(st.storage_nodes == 4);
    CHECK(st.nics_per_storage_node == 2);
    CHECK(st.storage_node_nic.preset == "connectx-6");
    CHECK(st.storage_node_nic.line_rate == 200_Gbps);

    const FabricSpec& ib = loaded.variants[1].spec.cluster.fabric;
    CHECK(ib.technology == Technology::infiniband);
    CHECK(ib.switch_spec.preset == "quantum-2");
    CHECK(ib.switch_spec.radix == 64);  // the preset replaced, not merged with tomahawk-5's override
    CHECK(ib.routing == RoutingKind::automatic);

    // A rail-optimized fabric of single-NIC servers is a fabric of one rail.
    const ClusterSpec& rail = loaded.variants[2].spec.cluster;
    CHECK(rail.server.preset == "host-1nic");
    CHECK(rail.server.nics == 1);
    CHECK(rail.fabric.topology == TopologyKind::rail_optimized);
    CHECK_FALSE(rail.storage_fabric.enabled);
}

TEST_CASE("a variant's key inside a server preset's NIC keeps the NIC preset", "[loader][presets][variants]") {
    const auto loaded = load_scenario(kSource / "scenarios/ideal-transfers.yaml", shipped_presets());
    REQUIRE(loaded.variants.size() == 2);
    const NicSpec& fast = loaded.variants[0].spec.cluster.server.nic;
    const NicSpec& slow = loaded.variants[1].spec.cluster.server.nic;
    CHECK(fast.line_rate == 400_Gbps);
    CHECK(slow.line_rate == 200_Gbps);
    CHECK(slow.preset == "connectx-7");
    CHECK(slow.pcie_generation == fast.pcie_generation);
    CHECK(loaded.variants[1].spec.cluster.server.storage_nic.line_rate == 400_Gbps);  // another slot
}

TEST_CASE("cluster.storage puts storage nodes on the compute fabric and none removes it", "[loader][fabric]") {
    const auto loaded = load_scenario(kSource / "tests/scenario/good/storage-on-compute.yaml", shipped_presets());
    REQUIRE(loaded.variants.size() == 2);
    const ClusterSpec& c = loaded.variants[0].spec.cluster;  // "planes": a NIC on each of 2 planes
    CHECK_FALSE(c.storage_fabric.enabled);
    CHECK(c.fabric.planes == 2);
    CHECK(c.storage.nodes == 4);
    CHECK(c.storage.nics_per_node == 2);
    CHECK(c.storage.nic.preset == "connectx-6");
    CHECK(c.storage.nic.line_rate == 200_Gbps);
    CHECK(c.storage.nic.qps_per_connection == 2);
    const std::string yaml = to_yaml(loaded.variants[0].resolved);
    CHECK(yaml.find("  storage:\n    nodes: 4\n    nics_per_node: 2\n    nic:\n      preset: connectx-6\n") !=
          std::string::npos);
    CHECK(loaded.variants[1].spec.cluster.storage == StorageSpec{});
    CHECK(to_yaml(loaded.variants[1].resolved).find("\n  storage:") == std::string::npos);
}
