#include "fabric/link_classes.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

namespace fabricsim::fabric {

namespace {

[[noreturn]] void bad(std::string key_path, std::string message) {
    throw_config_error(std::move(key_path), std::move(message));
}

double ratio(std::int64_t payload, std::int64_t wire) {
    return static_cast<double>(payload) / static_cast<double>(wire);
}

std::string rate_tag(Bandwidth rate) {
    const std::int64_t bps = rate.bits_per_second();
    if (bps % 1'000'000'000 == 0) return fmt::format("{}G", bps / 1'000'000'000);
    if (bps % 1'000'000 == 0) return fmt::format("{}M", bps / 1'000'000);
    return fmt::format("{}bps", bps);
}

}  // namespace

int nvlink_generation_number(std::string_view generation) {
    if (generation == "nvlink3") return 3;
    if (generation == "nvlink4") return 4;
    if (generation == "nvlink5") return 5;
    return 0;
}

double nvlink_efficiency() { return ratio(kNvlinkPayload, kNvlinkPayload + kNvlinkHeader + kNvlinkResponse); }

LinkClass nvlink_class(std::string_view generation, Bandwidth per_link) {
    const int n = nvlink_generation_number(generation);
    if (n == 0)
        bad("cluster.server.nvlink.generation",
            fmt::format("unknown NVLink generation \"{}\"; expected nvlink3, nvlink4 or nvlink5", generation));
    if (per_link == Bandwidth::zero()) per_link = n == 5 ? Bandwidth::GBps(50) : Bandwidth::GBps(25);
    return LinkClass{std::string(generation), LinkType::nvlink, per_link, nvlink_efficiency()};
}

Bandwidth pcie_line_rate(int generation, int lanes) {
    // GT/s per lane: Gen3 8, Gen4 16, Gen5 32 (128b/130b); Gen6 64 GT/s PAM4 = 64 Gb/s per lane.
    std::int64_t gts = 0;
    switch (generation) {
        case 3: gts = 8; break;
        case 4: gts = 16; break;
        case 5: gts = 32; break;
        case 6: return Bandwidth::Gbps(64 * lanes);
        default: return Bandwidth::zero();
    }
    return Bandwidth::bps(gts * 1'000'000'000 * lanes * 128 / 130);
}

double pcie_efficiency(int generation, Bytes max_payload) {
    const std::int64_t p = max_payload.count();
    if (generation >= 6) return ratio(kPcieFlitTlpBytes, kPcieFlitBytes) * ratio(p, p + kPcieFlitHeader);
    return ratio(p, p + kPcieTlpOverhead);
}

LinkClass pcie_class(int generation, int lanes, Bytes max_payload) {
    if (generation < 3 || generation > 6)
        bad("cluster.server.pcie.generation",
            fmt::format("PCIe generation {} is not modelled; expected 3, 4, 5 or 6", generation));
    if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16 && lanes != 32)
        bad("cluster.server.pcie.lanes", fmt::format("{} PCIe lanes; expected 1, 2, 4, 8, 16 or 32", lanes));
    return LinkClass{fmt::format("pcie-gen{}-x{}", generation, lanes), LinkType::pcie,
                     pcie_line_rate(generation, lanes), pcie_efficiency(generation, max_payload)};
}

double roce_efficiency(Bytes mtu, std::int64_t header_bytes) { return ratio(mtu.count(), mtu.count() + header_bytes); }
double infiniband_efficiency(Bytes mtu, std::int64_t header_bytes) {
    return ratio(mtu.count(), mtu.count() + header_bytes);
}

std::int64_t header_bytes(const scenario::ClusterSpec& cluster, scenario::Technology technology) {
    return technology == scenario::Technology::roce ? cluster.roce.header_bytes : cluster.infiniband.header_bytes;
}

LinkClass fabric_class(scenario::Technology technology, Bandwidth rate, Bytes mtu, LinkType type,
                       std::int64_t header_bytes) {
    if (technology == scenario::Technology::roce)
        return LinkClass{"roce-" + rate_tag(rate), type, rate,
                         roce_efficiency(mtu, header_bytes < 0 ? kRoceOverhead : header_bytes)};
    std::string name;
    switch (rate.bits_per_second() / 1'000'000'000) {
        case 100: name = "ib-edr"; break;
        case 200: name = "ib-hdr"; break;
        case 400: name = "ib-ndr"; break;
        case 800: name = "ib-xdr"; break;
        default: name = "ib-" + rate_tag(rate); break;
    }
    if (rate.bits_per_second() % 1'000'000'000 != 0) name = "ib-" + rate_tag(rate);
    return LinkClass{name, type, rate,
                     infiniband_efficiency(mtu, header_bytes < 0 ? kInfinibandOverhead : header_bytes)};
}

Time nvswitch_latency(std::string_view /*generation*/) {
    return Time::ns(100);  // estimate: no published port-to-port figure (links.md)
}

Time pcie_switch_latency(int generation) {
    // Broadcom PEX88000 (Gen4): 105 ns x16-to-x16 cut-through, "30% below PEX9700" (Gen3):
    // 150 ns. Gen5/Gen6: assumed unchanged (estimate).
    return generation <= 3 ? Time::ns(150) : Time::ns(105);
}

Length passive_copper_reach(scenario::Technology technology, Bandwidth rate) {
    const std::int64_t gbps = rate.bits_per_second() / 1'000'000'000;
    const std::int64_t lanes = (technology == scenario::Technology::infiniband || gbps <= 400) ? 4 : 8;
    const std::int64_t lane = gbps / lanes;
    if (lane <= 25) return Length::m(5);   // 25G NRZ: 100GBASE-CR4, EDR
    if (lane <= 50) return Length::m(3);   // 50G PAM4: 200GBASE-CR4, HDR
    if (lane <= 100) return Length::m(3);  // 100G PAM4: NVIDIA LinkX NDR / 400GbE DAC
    return Length::m(1);                   // 200G PAM4: estimate (no passive DAC offered)
}

Medium cable_medium(scenario::Technology technology, Bandwidth rate, Length length) {
    return length <= passive_copper_reach(technology, rate) ? Medium::copper : Medium::optical;
}

}  // namespace fabricsim::fabric
