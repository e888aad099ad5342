// The key tables (src/scenario/key_table.hpp): every declared key is read by some model, a key
// the chosen model ignores is a located warning (not an error), and the JSON Schema generated
// from the tables names every key the shipped scenarios write.
#include "scenario/key_docs.hpp"
#include "scenario/key_table.hpp"
#include "scenario/loader.hpp"
#include "scenario/workload_keys.hpp"
#include "scenario/yaml_tree.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::scenario;

namespace {

void each_key(const TableInfo& t, std::vector<std::pair<std::string, const KeyInfo*>>& out) {
    for (const KeyInfo& k : t.keys) {
        out.emplace_back(t.path + "." + k.name, &k);
        if (k.section != nullptr) each_key(*k.section, out);
    }
}

std::vector<std::string> warnings_of(const std::string& text) {
    const auto loaded = load_scenario_text(text, "w.yaml", {});
    std::vector<std::string> out;
    for (const auto& w : loaded.warnings) out.push_back(w.str());
    return out;
}

std::string scenario_text(const std::string& simulation, const std::string& cluster) {
    return "name: w\n" + simulation + "cluster:\n  servers: 2\n" + cluster +
           "workload: [{ transfer: { from: 0, to: 1, size: 1B } }]\n";
}

const Value* member(const Value& map, const std::string& key) {
    const auto* m = std::get_if<Value::Map>(&map.v);
    if (m == nullptr) return nullptr;
    for (const auto& [k, v] : *m)
        if (k == key) return &v;
    return nullptr;
}

bool closed(const Value& schema) {
    const Value* extra = member(schema, "additionalProperties");
    return extra != nullptr && std::holds_alternative<bool>(extra->v) && !std::get<bool>(extra->v);
}

// Each key of `node` under `path` that the schema, where it lists a mapping's keys, lacks.
void unknown_keys(const Node& node, const Value& schema, const std::string& path, std::vector<std::string>& out) {
    if (!node.is_mapping()) return;
    const Value* properties = member(schema, "properties");
    if (properties == nullptr) return;  // a section listed by name only
    for (const Entry& e : node.entries) {
        const std::string at = path.empty() ? e.key : path + "." + e.key;
        const Value* sub = member(*properties, e.key);
        if (sub == nullptr) {
            if (closed(schema)) out.push_back(at);
            continue;
        }
        unknown_keys(e.value, *sub, at, out);
    }
}

// A variant's override `a.b.c: value`, followed through the schema.
void unknown_path(const std::string& dotted, const Value& root, std::vector<std::string>& out) {
    const Value* at = &root;
    std::stringstream parts(dotted);
    for (std::string part; std::getline(parts, part, '.');) {
        const Value* properties = member(*at, "properties");
        if (properties == nullptr) return;
        const Value* next = member(*properties, part);
        if (next == nullptr) {
            if (closed(*at)) out.push_back(dotted);  // an open section (the server) lists some keys only
            return;
        }
        at = next;
    }
}

}  // namespace

TEST_CASE("every declared scenario key is read by some model", "[loader][keys]") {
    std::vector<std::pair<std::string, const KeyInfo*>> keys;
    for (const TableInfo* t : declared_sections()) each_key(*t, keys);
    REQUIRE(keys.size() > 60);  // simulation, cluster.roce, cluster.infiniband
    for (const auto& [path, k] : keys) {
        INFO(path);
        CHECK(k->consumers != 0);
        CHECK((k->consumers & ~unsigned{kAllModels}) == 0);
        CHECK_FALSE(k->doc.empty());
        CHECK_FALSE(k->type.text.empty());
        CHECK_FALSE(k->type.json_types.empty());
    }
}

TEST_CASE("a key the chosen model does not read is a located warning, not an error", "[loader][keys]") {
    // Line 1 name, 2 simulation, 3 cluster, 4 servers, 5 the roce line: `  roce: { pfc: ...`
    // puts pfc at column 11 and header_bytes (read by the packet and flow models) later on.
    const std::string roce = "  roce: { pfc: { xoff: 100KB }, header_bytes: 86 }\n";
    CHECK(warnings_of(scenario_text("simulation: { model: ideal }\n", roce)) ==
          std::vector<std::string>{
              "w.yaml:5:11: cluster.roce.pfc: the ideal model does not read this key; it has no effect",
              "w.yaml:5:33: cluster.roce.header_bytes: the ideal model does not read this key; it has no effect"});
    CHECK(warnings_of(scenario_text("simulation: { model: flow }\n", roce)) ==
          std::vector<std::string>{
              "w.yaml:5:11: cluster.roce.pfc: the flow model does not read this key; it has no effect"});
    CHECK(warnings_of(scenario_text("simulation: { model: packet }\n", roce)).empty());
    // Keys of the simulation section itself: the ideal model's latency under the packet model.
    CHECK(warnings_of(scenario_text("simulation: { model: packet, ideal: { latency: 1us } }\n", "")) ==
          std::vector<std::string>{
              "w.yaml:2:30: simulation.ideal: the packet model does not read this key; it has no effect"});
    // Not given, nothing to warn about: the defaults are declared for every model.
    CHECK(warnings_of(scenario_text("", "")).empty());
}

TEST_CASE("a warning found in only some variants names them", "[loader][keys]") {
    const std::string text = scenario_text("simulation: { model: packet }\n", "  roce: { lossless: false }\n") +
                             "variants:\n  packet: {}\n  ideal: { simulation.model: ideal }\n";
    CHECK(warnings_of(text) ==
          std::vector<std::string>{"w.yaml:5:11: cluster.roce.lossless: the ideal model does not read this key; it "
                                   "has no effect (variant \"ideal\")"});
}

TEST_CASE("a key set to its default is no warning, so a resolved scenario reads back without any", "[loader][keys]") {
    // `validate --print` spells out every key, cluster.roce and cluster.infiniband included,
    // whatever the model: read back under the ideal model it must load as quietly as the file it
    // came from, while a value that differs from the default is still reported.
    CHECK(warnings_of(scenario_text("", "  roce: { pfc: { xoff: auto }, header_bytes: 82 }\n")).empty());
    const auto loaded = load_scenario_text(scenario_text("", "  infiniband: { virtual_lanes: 2 }\n"), "w.yaml", {});
    REQUIRE(loaded.warnings.empty());
    const std::string resolved = to_yaml(loaded.variants.front().resolved);
    REQUIRE(resolved.find("roce:") != std::string::npos);
    CHECK(warnings_of(resolved).empty());
}

TEST_CASE("the JSON Schema names every key the shipped scenarios write", "[loader][keys][docs]") {
    const Value schema = json_schema();
    std::size_t files = 0;
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(std::string(FABRICSIM_SOURCE_DIR) + "/scenarios")) {
        if (entry.path().extension() != ".yaml") continue;
        ++files;
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        Issues issues;
        const std::string body = text.str();
        const auto root = parse_yaml(YamlSource{body, entry.path().string(), "", true}, issues);
        REQUIRE(root);
        std::vector<std::string> unknown;
        unknown_keys(*root, schema, "", unknown);
        if (const Node* variants = root->find("variants"); variants != nullptr && variants->is_mapping())
            for (const Entry& v : variants->entries)
                if (v.value.is_mapping())
                    for (const Entry& o : v.value.entries) unknown_path(o.key, schema, unknown);
        INFO(entry.path().string());
        CHECK(unknown == std::vector<std::string>{});
    }
    CHECK(files >= 20);
}

TEST_CASE("the JSON Schema gives a declared key its type, range, choices and default", "[loader][keys][docs]") {
    const Value schema = json_schema();
    const auto at = [&](std::initializer_list<const char*> path) {
        const Value* v = &schema;
        for (const char* p : path) {
            REQUIRE(v != nullptr);
            v = member(*member(*v, "properties"), p);
        }
        REQUIRE(v != nullptr);
        return *v;
    };
    const Value model = at({"simulation", "model"});
    CHECK(*member(model, "enum") ==
          Value{Value::List{Value{std::string("ideal")}, Value{std::string("packet")}, Value{std::string("flow")}}});
    const Value xon = at({"cluster", "roce", "pfc", "xon_delta"});
    CHECK(*member(xon, "default") == Value{std::string("3KiB")});  // roce_spec.hpp: 3 * 1024
    const Value lanes = at({"cluster", "infiniband", "virtual_lanes"});
    CHECK(*member(lanes, "minimum") == Value{std::int64_t{1}});
    CHECK(*member(lanes, "maximum") == Value{std::int64_t{15}});  // VL0..VL14 (IBA §7.6)
    CHECK(closed(at({"cluster", "roce", "dcqcn"})));
}

TEST_CASE("a key a preset sets is the device's: only the keys the scenario writes are warned of", "[loader][keys]") {
    // connectx-6 sets pcie_generation 4 and receive_buffer 512KiB, neither of them the default
    // nor read by the ideal model; only the receive_buffer written beside the preset is the
    // scenario's choice, shown where its value is written (line 5, column 67).
    LoadOptions options;
    options.config_dirs = {std::filesystem::path(FABRICSIM_SOURCE_DIR) / "configs"};
    const auto loaded = load_scenario_text(
        scenario_text("simulation: { model: ideal }\n",
                      "  clients: { nodes: 1, nic: { preset: connectx-6, receive_buffer: 2MiB } }\n"),
        "w.yaml", options);
    REQUIRE(loaded.warnings.size() == 1);
    CHECK(loaded.warnings.front().str() ==
          "w.yaml:5:67: cluster.clients.nic.receive_buffer: the ideal model does not read this key; it has no effect");
}

TEST_CASE("the server is a declared section: the schema closes it and gives its NVLink generations",
          "[loader][keys][docs]") {
    const Value schema = json_schema();
    const Value* cluster = member(*member(schema, "properties"), "cluster");
    REQUIRE(cluster != nullptr);
    const Value* server = member(*member(*cluster, "properties"), "server");
    REQUIRE(server != nullptr);
    CHECK(closed(*server));  // a misspelt server key is flagged by an editor, as the loader flags it
    const Value* nvlink = member(*member(*server, "properties"), "nvlink");
    REQUIRE(nvlink != nullptr);
    const Value* generation = member(*member(*nvlink, "properties"), "generation");
    REQUIRE(generation != nullptr);
    // docs/models/links.md models three generations; "nvlink6" is refused by the loader.
    CHECK(*member(*generation, "enum") ==
          Value{Value::List{Value{std::string("nvlink3")}, Value{std::string("nvlink4")},
                            Value{std::string("nvlink5")}}});
}

TEST_CASE("each traffic pattern's table holds the kind key, the pattern's own keys and start last", "[loader][keys]") {
    // docs/SCENARIO.md, Traffic: incast takes size, senders and receiver; poisson senders, load,
    // cdf and duration; `start` is every pattern's, printed last.
    CHECK(traffic_table(TrafficPattern::incast).names() ==
          std::vector<std::string>{"traffic", "size", "senders", "receiver", "start"});
    CHECK(traffic_table(TrafficPattern::poisson).names() ==
          std::vector<std::string>{"traffic", "senders", "load", "cdf", "duration", "start"});
    // Every key of every pattern is declared once in the table of them all.
    for (const std::string& k : traffic_keys()) {
        INFO(k);
        const auto names = traffic_table().names();
        CHECK(std::count(names.begin(), names.end(), k) == 1);
    }
}

TEST_CASE("cluster.iwarp and a custom topology's lists are declared: the schema closes them, and an iWARP key the "
          "ideal model does not read is warned of",
          "[loader][keys][docs]") {
    const Value schema = json_schema();
    const Value* cluster = member(*member(schema, "properties"), "cluster");
    REQUIRE(cluster != nullptr);
    const Value* iwarp = member(*member(*cluster, "properties"), "iwarp");
    REQUIRE(iwarp != nullptr);
    CHECK(closed(*iwarp));
    // iwarp_spec.hpp: a 9000-byte jumbo frame less IPv4 20, TCP 20 and timestamps 12 = 8948.
    CHECK(*member(*member(*member(*iwarp, "properties"), "mss"), "default") == Value{std::int64_t{8948}});
    const Value* fabric = member(*member(*cluster, "properties"), "fabric");
    REQUIRE(fabric != nullptr);
    for (const char* list : {"switches", "links"}) {
        INFO(list);
        const Value* l = member(*member(*fabric, "properties"), list);
        REQUIRE(l != nullptr);
        CHECK(*member(*l, "type") == Value{std::string("array")});
        CHECK(closed(*member(*l, "items")));  // a misspelt entry key is flagged, as the loader flags it
    }
    // DCTCP is the packet model's TCP; under the ideal model the key has no effect (line 6, column 12).
    CHECK(warnings_of(scenario_text("simulation: { model: ideal }\n",
                                    "  fabric: { technology: iwarp }\n  iwarp: { congestion_control: dctcp }\n")) ==
          std::vector<std::string>{"w.yaml:6:12: cluster.iwarp.congestion_control: the ideal model does not read this "
                                   "key; it has no effect"});
}
