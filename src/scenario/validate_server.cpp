// cluster.server: the GPUs, NVLink/NVSwitch, the PCIe tree and the NICs (spec.hpp), and the
// checks that need the whole server: an NVLink split that adds up to the links of a GPU, and
// a switchless NVLink bridge only between exactly two GPUs.
#include "scenario/field_readers.hpp"
#include "scenario/gpudirect_keys.hpp"
#include "scenario/nic_keys.hpp"
#include "scenario/validate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace fabricsim::scenario {

namespace {

// Caps that keep rank arithmetic far inside int (servers x gpus <= 2^30) and counts sane.
constexpr std::int64_t kMaxGpusPerServer = 1'024;
constexpr std::int64_t kMaxNicsPerServer = 1'024;
constexpr std::int64_t kMaxNvlinksPerGpu = 64;  // 18 on H100 and B200
constexpr std::int64_t kMaxSwitchesPerServer = 64;

const std::vector<std::string> kNvlinkGenerations{"nvlink3", "nvlink4", "nvlink5"};

std::string plural(std::int64_t n, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

// No "did you mean": "nvlink6" is one edit from every generation.
std::optional<std::string> read_nvlink_generation(const Node& node, const std::string& path, Issues& issues) {
    if (node.is_scalar() &&
        std::find(kNvlinkGenerations.begin(), kNvlinkGenerations.end(), node.text) != kNvlinkGenerations.end())
        return node.text;
    if (node.is_scalar())
        issues.add(node.location, path,
                   fmt::format("unknown NVLink generation \"{}\"; available: {}", node.text, join(kNvlinkGenerations)));
    else
        issues.add(node.location, path,
                   fmt::format("expected an NVLink generation ({}), found {}", join(kNvlinkGenerations),
                               describe_found(node)));
    return std::nullopt;
}

// Numbers, so no "did you mean": every generation is one edit from every other.
// Reads `key` of `map` with `read` into `field` when present; false after an issue.
template <class T, class Read>
bool read_into(const Node& map, const std::string& path, const char* key, T& field, Read read) {
    const Node* n = map.find(key);
    if (n == nullptr) return true;
    auto v = read(*n, key_path(path, key));
    if (!v) return false;
    field = static_cast<T>(*v);
    return true;
}

struct NvlinkRead {
    NvlinkSpec spec;
    const Node* node = nullptr;  // the nvlink mapping, for issues about it as a whole
    const Node* links_node = nullptr;
    const Node* switches_node = nullptr;
    const Node* split_node = nullptr;
    bool links_known = true;
    bool switches_known = true;
    bool split_known = true;
};

NvlinkRead validate_nvlink(const Node& node, const std::string& path, Issues& issues) {
    NvlinkRead out;
    const Node* map = read_section(node, path, issues);
    if (map == nullptr) {
        out.links_known = out.switches_known = out.split_known = false;
        return out;
    }
    out.node = map;
    check_keys(*map, path, {"generation", "links_per_gpu", "link_bandwidth", "switches", "split"}, issues);
    NvlinkSpec& s = out.spec;
    read_into(*map, path, "generation", s.generation,
              [&](const Node& n, const std::string& p) { return read_nvlink_generation(n, p, issues); });
    out.links_node = map->find("links_per_gpu");
    out.links_known = read_into(*map, path, "links_per_gpu", s.links_per_gpu, [&](const Node& n, const std::string& p) {
        return read_int(n, p, 0, kMaxNvlinksPerGpu, issues);
    });
    read_into(*map, path, "link_bandwidth", s.link_bandwidth,
              [&](const Node& n, const std::string& p) { return read_bandwidth_or_auto(n, p, issues); });
    out.switches_node = map->find("switches");
    out.switches_known = read_into(*map, path, "switches", s.switches, [&](const Node& n, const std::string& p) {
        return read_int(n, p, 0, kMaxSwitchesPerServer, issues);
    });
    if (const Node* n = map->find("split")) {
        out.split_node = n;
        const std::string split_path = key_path(path, "split");
        if (!n->is_sequence()) {
            issues.add(n->location, split_path,
                       fmt::format("expected a list of link counts, one per NVSwitch (e.g. [5, 4, 4, 5]), found {}",
                                   describe_found(*n)));
            out.split_known = false;
        } else {
            for (std::size_t i = 0; i < n->items.size(); ++i) {
                auto v = read_int(n->items[i], index_path(split_path, i), 1, kMaxNvlinksPerGpu, issues);
                if (v)
                    s.split.push_back(static_cast<int>(*v));
                else
                    out.split_known = false;
            }
        }
    }
    return out;
}

// The NVLink checks that need the server's GPU count.
void check_nvlink(const NvlinkRead& nv, const std::string& path, std::optional<int> gpus, Issues& issues) {
    const NvlinkSpec& s = nv.spec;
    if (nv.node == nullptr || !nv.links_known || s.links_per_gpu == 0) return;  // no NVLink
    const SourceLocation whole = nv.node->location;
    if (gpus && *gpus == 0) {
        issues.add(nv.links_node ? nv.links_node->location : whole, key_path(path, "links_per_gpu"),
                   "a server without GPUs (gpus: 0) has no NVLink; set links_per_gpu: 0");
        return;
    }
    if (!nv.switches_known) return;
    if (s.switches == 0) {
        if (gpus && *gpus != 2)
            issues.add(nv.switches_node ? nv.switches_node->location : whole, key_path(path, "switches"),
                       fmt::format("0 switches with {} per GPU is a direct NVLink bridge, which joins exactly 2 "
                                   "GPUs; this server has {}",
                                   plural(s.links_per_gpu, "link", "links"), plural(*gpus, "GPU", "GPUs")));
        return;
    }
    if (!nv.split_known) return;
    if (s.split.empty()) {  // an even split
        if (s.links_per_gpu % s.switches != 0)
            issues.add(whole, path,
                       fmt::format("{} per GPU do not spread evenly over {}; give the links to each switch in split",
                                   plural(s.links_per_gpu, "link", "links"), plural(s.switches, "switch", "switches")));
        return;
    }
    const std::string split_path = key_path(path, "split");
    if (static_cast<std::int64_t>(s.split.size()) != s.switches) {
        issues.add(nv.split_node->location, split_path,
                   fmt::format("{} for {}; give one link count per switch",
                               plural(static_cast<std::int64_t>(s.split.size()), "entry", "entries"),
                               plural(s.switches, "switch", "switches")));
        return;
    }
    const int sum = std::accumulate(s.split.begin(), s.split.end(), 0);
    if (sum != s.links_per_gpu)
        issues.add(nv.split_node->location, split_path,
                   fmt::format("the entries add up to {}, but links_per_gpu is {}", plural(sum, "link", "links"),
                               s.links_per_gpu));
}

PcieSpec validate_pcie(const Node& node, const std::string& path, Issues& issues) {
    PcieSpec s;
    const Node* map = read_section(node, path, issues);
    if (map == nullptr) return s;
    check_keys(*map, path, {"generation", "lanes", "switches"}, issues);
    read_into(*map, path, "generation", s.generation,
              [&](const Node& n, const std::string& p) { return read_pcie_generation(n, p, issues); });
    read_into(*map, path, "lanes", s.lanes,
              [&](const Node& n, const std::string& p) { return read_pcie_lanes(n, p, issues); });
    read_into(*map, path, "switches", s.switches,
              [&](const Node& n, const std::string& p) { return read_int(n, p, 0, kMaxSwitchesPerServer, issues); });
    return s;
}

}  // namespace

// Presets are already expanded: a server is a mapping whose `preset` key only records where
// its values came from.
ServerRead validate_server(const Node* node, Issues& issues) {
    ServerRead out;
    if (node == nullptr) return out;
    const std::string path = "cluster.server";
    const Node* map = node->unresolved ? nullptr : read_section(*node, path, issues);
    if (map == nullptr) {
        out.usable = out.gpus_known = out.nics_known = out.storage_nics_known = false;
        out.nic_rate_known = out.storage_nic_rate_known = false;
        return out;
    }
    check_keys(*map, path,
               {"preset", "description", "gpu_model", "gpus", "nvlink", "pcie", "nics", "nic", "storage_nics",
                "storage_nic", "gpudirect", "host"},
               issues);
    ServerSpec& s = out.spec;
    read_into(*map, path, "preset", s.preset,
              [&](const Node& n, const std::string& p) { return read_name(n, p, issues); });
    if (const Node* n = map->find("description")) read_text(*n, key_path(path, "description"), issues);
    read_into(*map, path, "gpu_model", s.gpu_model,
              [&](const Node& n, const std::string& p) { return read_text(n, p, issues); });
    out.gpus_known = read_into(*map, path, "gpus", s.gpus, [&](const Node& n, const std::string& p) {
        return read_int(n, p, 0, kMaxGpusPerServer, issues);
    });
    if (const Node* n = map->find("nvlink")) {
        const std::string nv_path = key_path(path, "nvlink");
        NvlinkRead nv = validate_nvlink(*n, nv_path, issues);
        check_nvlink(nv, nv_path, out.gpus_known ? std::optional<int>(s.gpus) : std::nullopt, issues);
        s.nvlink = std::move(nv.spec);
    }
    if (const Node* n = map->find("pcie")) s.pcie = validate_pcie(*n, key_path(path, "pcie"), issues);
    out.nics_known = read_into(*map, path, "nics", s.nics, [&](const Node& n, const std::string& p) {
        return read_int(n, p, 1, kMaxNicsPerServer, issues);
    });
    NicRead nic = validate_nic(map->find("nic"), key_path(path, "nic"), issues);
    s.nic = nic.spec;
    out.nic_rate_known = nic.rate_known;
    out.storage_nics_known =
        read_into(*map, path, "storage_nics", s.storage_nics,
                  [&](const Node& n, const std::string& p) { return read_int(n, p, 0, kMaxNicsPerServer, issues); });
    NicRead storage_nic = validate_nic(map->find("storage_nic"), key_path(path, "storage_nic"), issues);
    s.storage_nic = storage_nic.spec;
    out.storage_nic_rate_known = storage_nic.rate_known;
    NoContext none;
    if (const Node* n = map->find("gpudirect"))
        read_table(*n, key_path(path, "gpudirect"), gpudirect_table(), s.gpudirect, none, issues);
    if (const Node* n = map->find("host")) read_table(*n, key_path(path, "host"), host_table(), s.host, none, issues);
    return out;
}

}  // namespace fabricsim::scenario
