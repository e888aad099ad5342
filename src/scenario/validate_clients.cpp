#include "scenario/validate_clients.hpp"

#include "scenario/field_readers.hpp"
#include "scenario/validate.hpp"

namespace fabricsim::scenario {

namespace {
constexpr std::int64_t kMaxClients = 1'000'000;
constexpr std::int64_t kMaxNicsPerClient = 64;
}  // namespace

ClientsSpec validate_clients(const Node* node, Issues& issues) {
    ClientsSpec out;
    const std::string path = "cluster.clients";
    if (node == nullptr || (node->is_scalar() && node->text == "none")) return out;
    const Node* map = read_section(*node, path, issues);
    if (map == nullptr) return out;
    check_keys(*map, path, {"nodes", "nics_per_node", "nic"}, issues);
    if (const Node* n = map->find("nodes")) {
        if (auto v = read_int(*n, key_path(path, "nodes"), 1, kMaxClients, issues)) out.nodes = static_cast<int>(*v);
    } else {
        issues.add(map->location, key_path(path, "nodes"), "missing required key");
    }
    if (const Node* n = map->find("nics_per_node"))
        if (auto v = read_int(*n, key_path(path, "nics_per_node"), 1, kMaxNicsPerClient, issues))
            out.nics_per_node = static_cast<int>(*v);
    out.nic = validate_nic(map->find("nic"), key_path(path, "nic"), issues).spec;
    return out;
}

}  // namespace fabricsim::scenario
