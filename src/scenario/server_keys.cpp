// cluster.server: the GPUs, NVLink/NVSwitch, the PCIe tree and the NICs (spec.hpp), one
// declaration per key, and the checks that need the whole server: an NVLink split that adds up
// to the links of a GPU, and a switchless NVLink bridge only between exactly two GPUs.
#include "scenario/validate.hpp"

#include "scenario/key_types.hpp"

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
Field<std::string> nvlink_generation() {
    return {TypeDoc{"`nvlink3`, `nvlink4`, `nvlink5`", {"string"}, {}, {}, kNvlinkGenerations},
            [](const Node& node, const std::string& path, Issues& issues) -> std::optional<std::string> {
                if (node.is_scalar() && std::find(kNvlinkGenerations.begin(), kNvlinkGenerations.end(), node.text) !=
                                            kNvlinkGenerations.end())
                    return node.text;
                return issues.reject(node.location, path,
                                     node.is_scalar() ? fmt::format("unknown NVLink generation \"{}\"; available: {}",
                                                                    node.text, join(kNvlinkGenerations))
                                                      : fmt::format("expected an NVLink generation ({}), found {}",
                                                                    join(kNvlinkGenerations), describe_found(node)));
            },
            [](const std::string& s) { return Value{s}; }};
}

// Each entry is read, so that every bad one is reported; the list is kept only when all are good.
Field<std::vector<int>> link_counts() {
    return {TypeDoc{"list of integers ≥ 1", {"array"}},
            [](const Node& n, const std::string& path, Issues& issues) -> std::optional<std::vector<int>> {
                if (!n.is_sequence())
                    return add_expected(issues, n, path, "a list of link counts, one per NVSwitch (e.g. [5, 4, 4, 5])");
                return read_items<int>(n, path, integer(1, kMaxNvlinksPerGpu).read, issues);
            },
            int_list};
}

const Table<NvlinkSpec>& nvlink_table() {
    using S = NvlinkSpec;
    static const Table<S> t{
        "cluster.server.nvlink",
        {
            key("generation", &S::generation, nvlink_generation(), kAllModels,
                "NVLink generation (link protocol and efficiency)."),
            key("links_per_gpu", &S::links_per_gpu, integer(0, kMaxNvlinksPerGpu), kAllModels,
                "NVLink links of each GPU. `0`: no NVLink (the other NVLink keys are then not checked)."),
            key("link_bandwidth", &S::link_bandwidth, rate_or_zero_auto(), kAllModels,
                "Per link, per direction. `auto`: the generation's (nvlink3 and nvlink4 25 GB/s, nvlink5 50 GB/s)."),
            key("switches", &S::switches, integer(0, kMaxSwitchesPerServer), kAllModels,
                "NVSwitch chips on the board. `0` with links: the GPUs are joined directly by an NVLink bridge, "
                "which needs exactly 2 GPUs."),
            key("split", &S::split, link_counts(), kAllModels,
                "Links from each GPU to NVSwitch 0, 1, …: one entry per switch, adding up to `links_per_gpu`. `[]`: "
                "an even split, which `links_per_gpu` must divide."),
        }};
    return t;
}

const Table<PcieSpec>& pcie_table() {
    using S = PcieSpec;
    static const Table<S> t{
        "cluster.server.pcie",
        {
            key("generation", &S::generation, pcie_generation(), kAllModels,
                "PCIe generation of the GPU and switch links."),
            key("lanes", &S::lanes, pcie_lanes(), kAllModels, "Width of each GPU and switch link."),
            key("switches", &S::switches, integer(0, kMaxSwitchesPerServer), kAllModels,
                "PCIe switches; GPUs and NICs are spread evenly over them, each switch uplinked to the host CPU. "
                "`0`: everything on the CPU's root ports."),
        }};
    return t;
}

// cluster.server.gpudirect and cluster.server.host: which GPUDirect paths a server has, and the
// host side (sockets, their interconnect, memory-copy bandwidth, NCCL's staging) that carries
// the data where one is off (docs/models/gpudirect.md).
const Table<GpuDirectSpec>& gpudirect_table() {
    using G = GpuDirectSpec;
    static const Table<G> t{
        "cluster.server.gpudirect",
        {
            key("rdma", &G::rdma, boolean(), kAllModels,
                "GPUDirect RDMA: the NIC reads and writes GPU memory. `false`: a message between a GPU and a NIC is "
                "staged in host memory in chunks (GPU → root port → DRAM → root port → NIC), as NCCL's proxy does "
                "without GDR ([models/gpudirect.md](models/gpudirect.md))."),
            key("p2p", &G::p2p, boolean(), kAllModels,
                "GPUDirect P2P: GPUs of a server read and write each other's memory (PCIe switch, root complex or "
                "NVLink). `false`: GPU-to-GPU messages go through host memory, as NCCL's SHM transport."),
            key("storage", &G::storage, boolean(), kAllModels,
                "GPUDirect Storage: storage reads land in GPU memory. `false`: they land in host memory and are "
                "copied to the GPU (checkpoint writes the other way)."),
            key("pxn", &G::pxn, boolean(), kAllModels,
                "NCCL PXN: a message to a GPU on another rail leaves by this server's NIC of that rail, reached over "
                "NVLink through the GPU it serves, so a rail-optimised fabric keeps it on one rail. Only between "
                "NVLink-joined GPUs with GPUDirect RDMA (`NCCL_PXN_DISABLE=1` is `false`)."),
        }};
    return t;
}

const Table<HostSpec>& host_table() {
    using H = HostSpec;
    static const Table<H> t{
        "cluster.server.host",
        {
            key("sockets", &H::sockets, integer(1, 2), kAllModels,
                "CPU sockets. The PCIe switches (or, without switches, the devices on root ports) are spread "
                "evenly over them; with 2, paths between devices under different sockets cross `socket_link`."),
            key("socket_link", &H::socket_link, rate(), kAllModels,
                "Bandwidth per direction of the interconnect between the two sockets (Intel UPI, AMD Infinity "
                "Fabric)."),
            key("memory_copy", &H::memory_copy, rate(), kAllModels,
                "Per socket: the rate at which host memory takes a staged byte in and gives it out again (DRAM "
                "bandwidth available to the bounce buffers when a GPUDirect path is off)."),
            key("staging_latency", &H::staging_latency, delay(Zero::allowed), kAllModels,
                "Time a staged chunk waits in host memory before the next device takes it (NCCL's proxy thread "
                "noticing the chunk and posting the next transfer), once per side that stages."),
            key("staging_chunk", &H::staging_chunk, size(Zero::rejected), kAllModels,
                "Size of the chunks a staged message moves in, so the copy overlaps the send: NCCL's "
                "`NCCL_BUFFSIZE` (4 MiB) ÷ `NCCL_STEPS` (8)."),
        }};
    return t;
}

// The NVLink checks that need the server's GPU count, once the NVLink keys they use were read.
void check_nvlink(const ServerSpec& server, const SectionRead& r, const std::string& path, Issues& issues) {
    const NvlinkSpec& s = server.nvlink;
    const Node* nvlink = r.given("nvlink");
    if (nvlink == nullptr || !r.ok("nvlink") || !r.ok("nvlink.links_per_gpu") || s.links_per_gpu == 0) return;
    const auto at = [&](const char* key) {
        const Node* n = r.given(key_path("nvlink", key));
        return n != nullptr ? n->location : nvlink->location;
    };
    const bool gpus_known = r.ok("gpus");
    const int gpus = server.gpus;
    if (gpus_known && gpus == 0) {
        issues.add(at("links_per_gpu"), key_path(path, "links_per_gpu"),
                   "a server without GPUs (gpus: 0) has no NVLink; set links_per_gpu: 0");
        return;
    }
    if (!r.ok("nvlink.switches")) return;
    if (s.switches == 0) {
        if (gpus_known && gpus != 2)
            issues.add(at("switches"), key_path(path, "switches"),
                       "0 switches with {} per GPU is a direct NVLink bridge, which joins exactly 2 "
                       "GPUs; this server has {}",
                       plural(s.links_per_gpu, "link", "links"), plural(gpus, "GPU", "GPUs"));
        return;
    }
    if (!r.ok("nvlink.split")) return;
    if (s.split.empty()) {  // an even split
        if (s.links_per_gpu % s.switches != 0)
            issues.add(nvlink->location, path,
                       "{} per GPU do not spread evenly over {}; give the links to each switch in split",
                       plural(s.links_per_gpu, "link", "links"), plural(s.switches, "switch", "switches"));
        return;
    }
    const std::string split_path = key_path(path, "split");
    if (static_cast<std::int64_t>(s.split.size()) != s.switches) {
        issues.add(at("split"), split_path, "{} for {}; give one link count per switch",
                   plural(static_cast<std::int64_t>(s.split.size()), "entry", "entries"),
                   plural(s.switches, "switch", "switches"));
        return;
    }
    const int sum = std::accumulate(s.split.begin(), s.split.end(), 0);
    if (sum != s.links_per_gpu)
        issues.add(at("split"), split_path, "the entries add up to {}, but links_per_gpu is {}",
                   plural(sum, "link", "links"), s.links_per_gpu);
}

}  // namespace

const Table<ServerSpec>& server_table() {
    using S = ServerSpec;
    static const Table<S> t{
        "cluster.server",
        {
            preset_key<S>("The preset the other keys start from (folder `servers/`, see [Presets](#presets))."),
            description_key<S>(),
            key("gpu_model", &S::gpu_model, text_field(), kAllModels, "GPU name for reports, e.g. `H100 SXM5`."),
            key("gpus", &S::gpus, integer(0, kMaxGpusPerServer), kAllModels,
                "GPUs per server. Each GPU is one rank; `0` is a plain host, which is one rank."),
            section("nvlink", &S::nvlink, nvlink_table(), "NVLink inside the server (keys below)."),
            section("pcie", &S::pcie, pcie_table(), "The PCIe tree of the GPUs and NICs (keys below)."),
            key("nics", &S::nics, integer(1, kMaxNicsPerServer), kAllModels,
                "Compute-fabric NICs per server. Rank r uses NIC `r × nics / ranks` of its server."),
            section("nic", &S::nic, nic_table(),
                    "The compute NICs: a preset name (folder `nics/`) or a mapping ([a NIC](#a-nic-clusterservernic-"
                    "clusterserverstorage_nic-clusterstorage_fabricstorage_node_nic-clusterstoragenic-"
                    "clusterclientsnic))."),
            key("storage_nics", &S::storage_nics, integer(0, kMaxNicsPerServer), kAllModels,
                "Front-end / storage NICs per server, on `storage_fabric`."),
            section("storage_nic", &S::storage_nic, nic_table(),
                    "The storage NICs: a preset name (folder `nics/`) or a mapping."),
            section("gpudirect", &S::gpudirect, gpudirect_table(),
                    "Which GPUDirect paths the server has ([models/gpudirect.md](models/gpudirect.md))."),
            section("host", &S::host, host_table(),
                    "The host side of the paths without GPUDirect: sockets, their link, memory copy, NCCL's staging."),
        }};
    return t;
}

// Presets are already expanded: a server is a mapping whose `preset` key only records where
// its values came from.
ServerRead validate_server(const Node* node, Issues& issues) {
    ServerRead out;
    if (node == nullptr) return out;
    const std::string path = "cluster.server";
    const SectionRead r = read_table(*node, path, server_table(), out.spec, issues);
    out.usable = r.map != nullptr;
    out.gpus_known = out.usable && r.ok("gpus");
    out.nics_known = out.usable && r.ok("nics");
    out.storage_nics_known = out.usable && r.ok("storage_nics");
    out.nic_rate_known = out.usable && r.ok("nic") && r.ok("nic.line_rate");
    out.storage_nic_rate_known = out.usable && r.ok("storage_nic") && r.ok("storage_nic.line_rate");
    if (out.usable) check_nvlink(out.spec, r, key_path(path, "nvlink"), issues);
    return out;
}

}  // namespace fabricsim::scenario
