#include "scenario/nic_keys.hpp"

#include "core/units_format.hpp"
#include "scenario/key_types.hpp"
#include "scenario/validate.hpp"

#include <fmt/format.h>

namespace fabricsim::scenario {

namespace {

constexpr std::int64_t kMaxQpsPerConnection = 256;
const std::vector<int> kPcieGenerations{3, 4, 5, 6};
const std::vector<int> kPcieWidths{1, 2, 4, 8, 16, 32};

Field<int> pcie(const char* text, std::optional<int> (*read)(const Node&, const std::string&, Issues&)) {
    return {TypeDoc{text, {"integer"}}, read, [](const int& v) { return Value{std::int64_t{v}}; }};
}

}  // namespace

std::optional<int> read_pcie_generation(const Node& node, const std::string& path, Issues& issues) {
    for (int g : kPcieGenerations)
        if (node.is_scalar() && node.text == std::to_string(g)) return g;
    issues.add(node.location, path,
               fmt::format("expected a PCIe generation (3, 4, 5 or 6), found {}", describe_found(node)));
    return std::nullopt;
}

std::optional<int> read_pcie_lanes(const Node& node, const std::string& path, Issues& issues) {
    for (int w : kPcieWidths)
        if (node.is_scalar() && node.text == std::to_string(w)) return w;
    issues.add(node.location, path,
               fmt::format("expected a PCIe link width (1, 2, 4, 8, 16 or 32 lanes), found {}", describe_found(node)));
    return std::nullopt;
}

const Table<NicSpec>& nic_table() {
    using S = NicSpec;
    static const Table<S> t{
        "nic",
        {
            preset_key<S>("The NIC preset the other keys start from."),
            description_key<S>(),
            key("line_rate", &S::line_rate, rate(), kAllModels, "Port line rate."),
            key("pcie_generation", &S::pcie_generation, pcie("`3`, `4`, `5`, `6`", read_pcie_generation),
                kPacket | kFlow, "PCIe generation of the NIC's host link."),
            key("pcie_lanes", &S::pcie_lanes, pcie("`1`, `2`, `4`, `8`, `16`, `32`", read_pcie_lanes), kPacket | kFlow,
                "Width of the NIC's host link."),
            key("qps_per_connection", &S::qps_per_connection, integer(1, kMaxQpsPerConnection), kPacket | kFlow,
                "RDMA queue pairs per peer connection, the ECMP entropy of a connection (NCCL's "
                "`NCCL_IB_QPS_PER_CONNECTION`, default 1)."),
            key("receive_buffer", &S::receive_buffer, size(Zero::rejected), kPacket,
                "The port's receive buffer. RoCE (packet model): frames from the fabric wait here for PCIe, and the "
                "NIC pauses its switch with PFC at buffer − headroom (docs/models/pfc.md, \"The NIC's receive "
                "buffer\")."),
            custom_key<S>(
                "tcp_min_rto", TypeDoc{"time > 0", {"string", "integer"}}, kPacket,
                "iWARP RNICs: the TCP engine's retransmission-timeout floor, used when `cluster.iwarp.min_rto` is not "
                "given (none: 200 ms; docs/models/iwarp.md).",
                [](const Node& n, const std::string& path, S& out, NoContext&, Issues& issues) {
                    const auto v = read_time(n, path, Zero::rejected, issues);
                    if (v) out.tcp_min_rto = *v;
                    return v.has_value();
                },
                [](const S& s) { return s.tcp_min_rto ? Value{to_string(*s.tcp_min_rto)} : Value{}; })
                .shown_default("none"),
            custom_key<S>(
                "offload_latency", TypeDoc{"time ≥ 0", {"string", "integer"}}, kPacket,
                "The time the NIC adds to every frame it takes in or sends on (an RNIC's TCP engine), in the packet "
                "model: the NIC's forwarding latency (docs/models/iwarp.md).",
                [](const Node& n, const std::string& path, S& out, NoContext&, Issues& issues) {
                    const auto v = read_time(n, path, Zero::allowed, issues);
                    if (v) out.offload_latency = *v;
                    return v.has_value();
                },
                [](const S& s) {
                    return s.offload_latency == Time::zero() ? Value{} : Value{to_string(s.offload_latency)};
                })
                .shown_default("`0ps`"),
        }};
    return t;
}

NicRead validate_nic(const Node* node, const std::string& path, Issues& issues) {
    NicRead out;
    if (node == nullptr) return out;
    NoContext none;
    const SectionRead r = read_table(*node, path, nic_table(), out.spec, none, issues);
    out.rate_known = r.map != nullptr && r.ok("line_rate");
    return out;
}

Value describe_nic(const NicSpec& nic) { return print_table(nic_table(), nic); }

}  // namespace fabricsim::scenario
