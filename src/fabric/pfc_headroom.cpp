#include "fabric/pfc_headroom.hpp"

#include "core/errors.hpp"
#include "core/units_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

namespace fabricsim::fabric {

namespace {

using i128 = __int128;

// IEEE 802.3 worst cases in bit times, as restated (with the Cisco Press chapter on lossless
// Ethernet) in `docs/REFERENCES.md` and docs/models/pfc.md. The 400G interface delay has
// no published figure we could check: it keeps 100G's 122880 bit times as a time (1.2288 us),
// i.e. 491520 bit times at 400G (estimate).
struct Published {
    std::int64_t gbps;
    std::int64_t interface_bits;
    std::int64_t response_bits;
};
constexpr std::array<Published, 5> kPublished{{
    {10, 8'192, 30'720},
    {25, 6'144, 40'960},
    {40, 24'576, 60'416},
    {100, 122'880, 201'728},
    {400, 491'520, 463'360},
}};

// `bits` bit times at `rate`, rounded up to the picosecond.
Time bit_times(std::int64_t bits, Bandwidth rate) {
    const i128 num = static_cast<i128>(bits) * 1'000'000'000'000;
    const i128 bps = rate.bits_per_second();
    return Time::ps(static_cast<std::int64_t>((num + bps - 1) / bps));
}

}  // namespace

PortDelays ieee8023_delays(Bandwidth speed) {
    if (speed <= Bandwidth::zero()) throw InternalError("ieee8023_delays: link speed must be positive");
    const Published* at = &kPublished.front();
    for (const auto& p : kPublished)
        if (Bandwidth::Gbps(p.gbps) <= speed) at = &p;
    if (speed < Bandwidth::Gbps(at->gbps))  // below 10G: the 10G bit times at this speed
        return PortDelays{bit_times(at->interface_bits, speed), bit_times(at->response_bits, speed)};
    const Bandwidth published = Bandwidth::Gbps(at->gbps);
    return PortDelays{bit_times(at->interface_bits, published), bit_times(at->response_bits, published)};
}

Bytes bytes_during(Time duration, Bandwidth rate) {
    if (duration <= Time::zero()) return Bytes::zero();
    const i128 bits_times_1e12 = static_cast<i128>(duration.picoseconds()) * rate.bits_per_second();
    constexpr i128 kPerByte = static_cast<i128>(8) * 1'000'000'000'000;
    return Bytes{static_cast<std::int64_t>((bits_times_1e12 + kPerByte - 1) / kPerByte)};
}

HeadroomBreakdown pfc_headroom(const HeadroomInputs& in) {
    if (in.link_speed <= Bandwidth::zero()) throw InternalError("pfc_headroom: link speed must be positive");
    HeadroomBreakdown h;
    h.frame_in_flight = in.max_frame;
    h.pause_frame = kPauseFrameOnWire;
    h.interfaces = bytes_during(in.interface_delay, in.link_speed) * 2;
    h.cable = bytes_during(propagation_delay(in.cable_length), in.link_speed) * 2;
    h.response = bytes_during(in.response_time, in.link_speed);
    h.peer_frame = in.peer_max_frame;
    return h;
}

HeadroomInputs roce_headroom_inputs(Bandwidth link_speed, Length cable_length, Bytes payload_mtu, Bytes header) {
    const PortDelays d = ieee8023_delays(link_speed);
    HeadroomInputs in;
    in.link_speed = link_speed;
    in.cable_length = cable_length;
    in.max_frame = roce_frame_on_wire(payload_mtu, header);
    in.peer_max_frame = roce_frame_on_wire(payload_mtu, header);
    in.interface_delay = d.interface;
    in.response_time = d.response;
    return in;
}

Bytes roce_link_headroom(const scenario::RoceSpec& roce, const Link& link, Bytes mtu) {
    if (roce.pfc.headroom) return *roce.pfc.headroom;
    return pfc_headroom(roce_headroom_inputs(link.bandwidth, link.length, mtu, Bytes{roce.header_bytes})).total();
}

SwitchReservation roce_switch_reservation(const Topology& topology, const scenario::RoceSpec& roce, Bytes mtu,
                                          const Node& sw) {
    SwitchReservation r;
    const bool pfc = roce.lossless && roce.pfc.enabled;
    std::vector<int> groups = pfc ? roce.pfc.priorities : std::vector<int>{};
    r.lossless = static_cast<std::int64_t>(groups.size());
    if (std::find(groups.begin(), groups.end(), roce.control_priority) == groups.end())
        groups.push_back(roce.control_priority);
    r.groups = static_cast<std::int64_t>(groups.size());
    for (const Port& port : sw.ports) {
        const Link& link = topology.link(port.link);
        const Bytes h = roce_link_headroom(roce, link, mtu);
        r.headroom += h * r.lossless;
        if (r.longest == nullptr || h > r.largest) {
            r.largest = h;
            r.longest = &link;
        }
    }
    r.reserved = roce.mmu.reserved_per_queue * r.groups * static_cast<std::int64_t>(sw.ports.size());
    return r;
}

void check_pfc_buffers(const Topology& topology, const scenario::RoceSpec& roce, Bytes mtu) {
    const bool pfc = roce.lossless && roce.pfc.enabled;
    if (roce.lossless && !roce.pfc.enabled) return;  // no PFC, no reservations
    // A NIC's receive buffer holds its link's headroom and an MTU frame below it (pfc.cpp).
    for (const Node& node : topology.nodes()) {
        if (!pfc || (node.kind != NodeKind::nic && node.kind != NodeKind::storage_nic) || node.buffer <= Bytes::zero())
            continue;
        for (const Port& port : node.ports) {
            const Link& link = topology.link(port.link);
            if (link.type != LinkType::fabric && link.type != LinkType::storage_fabric) continue;
            const Bytes h = roce_link_headroom(roce, link, mtu);
            const Bytes frame = roce_frame_in_buffer(mtu, Bytes{roce.header_bytes});
            if (h + frame < node.buffer) continue;
            ConfigIssue issue;
            issue.key_path = node.kind == NodeKind::nic ? "cluster.server.nic.receive_buffer"
                                                        : "cluster.server.storage_nic.receive_buffer";
            issue.message =
                fmt::format("NIC {}: its receive buffer of {} must hold more than the PFC headroom of its {} "
                            "{} link ({}) and one {} frame; give it a larger receive_buffer",
                            node.name, to_string(node.buffer), to_string(link.length), to_string(link.bandwidth),
                            to_string(h), to_string(frame));
            throw ConfigError(std::move(issue));
        }
    }
    for (const Node& node : topology.nodes()) {
        if (!is_fabric_switch(node.kind)) continue;
        const SwitchReservation r = roce_switch_reservation(topology, roce, mtu, node);
        if (r.total() < node.buffer) continue;
        ConfigIssue issue;
        if (r.reserved >= r.headroom) {
            issue.key_path = "cluster.roce.mmu.reserved_per_queue";
        } else {
            issue.key_path = roce.pfc.headroom ? "cluster.roce.pfc.headroom" : "cluster.roce.pfc";
        }
        const std::string worst = r.longest == nullptr || roce.pfc.headroom
                                      ? std::string()
                                      : fmt::format(", {} for its {} {} link", to_string(r.largest),
                                                    to_string(r.longest->length), to_string(r.longest->bandwidth));
        issue.message = fmt::format(
            "switch {}: its {} ports need {} of PFC headroom ({} lossless priorit{}{}) and {} of reserved space ({} "
            "queues x {} per port), {} in all; its buffer is {}: use shorter cables, fewer lossless priorities, less "
            "reserved space or a switch with a larger buffer",
            node.name, node.ports.size(), to_string(r.headroom), r.lossless, r.lossless == 1 ? "y" : "ies", worst,
            to_string(r.reserved), r.groups, to_string(roce.mmu.reserved_per_queue), to_string(r.total()),
            to_string(node.buffer));
        throw ConfigError(std::move(issue));
    }
}

}  // namespace fabricsim::fabric
