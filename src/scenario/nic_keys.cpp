// A NIC (cluster.server.nic, cluster.server.storage_nic, cluster.storage_fabric.storage_node_nic,
// cluster.storage.nic, cluster.clients.nic): the key table of NicSpec, presets already expanded.
#include "scenario/validate.hpp"

#include "core/units_format.hpp"
#include "scenario/key_types.hpp"

#include <fmt/format.h>

namespace fabricsim::scenario {

namespace {

constexpr std::int64_t kMaxQpsPerConnection = 256;
const std::vector<int> kPcieGenerations{3, 4, 5, 6};
const std::vector<int> kPcieWidths{1, 2, 4, 8, 16, 32};

// One of `values`, written as a plain integer; `expected` says what it is in the message.
Field<int> one_of(const std::vector<int>& values, std::string type, std::string expected) {
    return parsed<int>(
        TypeDoc{std::move(type), {"integer"}},
        [&values](const std::string& text) -> std::optional<int> {
            for (int v : values)
                if (text == std::to_string(v)) return v;
            return std::nullopt;
        },
        std::move(expected));
}

}  // namespace

Field<int> pcie_generation() {
    return one_of(kPcieGenerations, "`3`, `4`, `5`, `6`", "a PCIe generation (3, 4, 5 or 6)");
}

Field<int> pcie_lanes() {
    return one_of(kPcieWidths, "`1`, `2`, `4`, `8`, `16`, `32`", "a PCIe link width (1, 2, 4, 8, 16 or 32 lanes)");
}

const Table<NicSpec>& nic_table() {
    using S = NicSpec;
    static const Table<S> t{
        "nic",
        {
            preset_key<S>("The NIC preset the other keys start from."),
            description_key<S>(),
            key("line_rate", &S::line_rate, rate(), kAllModels, "Port line rate."),
            key("pcie_generation", &S::pcie_generation, pcie_generation(), kPacket | kFlow,
                "PCIe generation of the NIC's host link."),
            key("pcie_lanes", &S::pcie_lanes, pcie_lanes(), kPacket | kFlow, "Width of the NIC's host link."),
            key("qps_per_connection", &S::qps_per_connection, integer(1, kMaxQpsPerConnection), kPacket | kFlow,
                "RDMA queue pairs per peer connection, the ECMP entropy of a connection (NCCL's "
                "`NCCL_IB_QPS_PER_CONNECTION`, default 1)."),
            key("receive_buffer", &S::receive_buffer, size(Zero::rejected), kPacket,
                "The port's receive buffer. RoCE (packet model): frames from the fabric wait here for PCIe, and the "
                "NIC pauses its switch with PFC at buffer − headroom (docs/models/pfc.md, \"The NIC's receive "
                "buffer\")."),
            key("tcp_min_rto", &S::tcp_min_rto, optional_of(time(Zero::rejected)), kPacket,
                "iWARP RNICs: the TCP engine's retransmission-timeout floor, used when `cluster.iwarp.min_rto` is not "
                "given (none: 200 ms; docs/models/iwarp.md)."),
            key("offload_latency", &S::offload_latency, time(Zero::allowed), kPacket,
                "The time the NIC adds to every frame it takes in or sends on (an RNIC's TCP engine), in the packet "
                "model: the NIC's forwarding latency (docs/models/iwarp.md).")
                .printed_if([](const S& s) { return s.offload_latency != Time::zero(); })
                .shown_default("`0ps`"),
        }};
    return t;
}

}  // namespace fabricsim::scenario
