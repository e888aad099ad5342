// PFC buffer sizing as pure functions (docs/models/pfc.md): the headroom one port and priority
// needs to stay lossless, and the XOFF/XON thresholds of the shared buffer.
//
// Headroom absorbs everything that can still arrive after the receiver decides to pause,
// the IEEE 802.1Qbb worst case (restated in `docs/REFERENCES.md`, "PFC"):
//
//   headroom = frame_in_flight   a max frame this port has just started; the pause waits for it
//            + pause_frame       the 64-byte PFC frame itself (84 bytes on the wire)
//            + 2 x interface     PHY/MAC delay at both ends (IEEE 802.3 delay constraints)
//            + 2 x cable         the pause travels to the peer, the last data travels back (5 ns/m)
//            + response          the peer's MAC acting on the pause (IEEE 802.3 Annex 31B)
//            + peer_frame        a max frame the peer may have started; it is not cut short
//
// Every delay is turned into the bytes the link carries in it at its line rate, rounded up.
// The thresholds follow the dynamic-threshold MMU of the HPCC ns-3 model: a queue pauses its
// peer when its ingress bytes reach XOFF = alpha x free shared buffer, and resumes it at
// XON = XOFF - delta.
#pragma once

#include "core/units.hpp"
#include "fabric/topology.hpp"
#include "scenario/roce_spec.hpp"

namespace fabricsim::fabric {

// Ethernet + IPv4 + UDP + BTH + ICRC + FCS + preamble/SFD + inter-frame gap around a RoCEv2
// payload (docs/models/links.md): a payload MTU of M is M + 82 bytes on the wire
// (cluster.roce.header_bytes' default).
inline constexpr Bytes kRoceFrameOverhead{82};
// Of those, the preamble and start delimiter (8) and the inter-frame gap (12) are line time
// only: they come before and after the MAC frame (IEEE 802.3 §3.1.1, §4.4.2), and a switch's
// or NIC's buffer holds the frame from its destination address to its FCS.
inline constexpr Bytes kEthernetLineOnly{8 + 12};
// A PFC frame is a 64-byte MAC control frame, plus 8 bytes of preamble/SFD and a 12-byte gap.
inline constexpr Bytes kPauseFrameOnWire{64 + 8 + 12};

// A RoCE packet of `payload` with `header` bytes beside it on the wire: the line time it takes.
constexpr Bytes roce_frame_on_wire(Bytes payload, Bytes header = kRoceFrameOverhead) { return payload + header; }
// The bytes a buffer holds for it (what queue depths, the MMU and PFC's thresholds count):
// the wire bytes less the preamble and gap.
constexpr Bytes roce_frame_in_buffer(Bytes payload, Bytes header = kRoceFrameOverhead) {
    return payload + (header > kEthernetLineOnly ? header - kEthernetLineOnly : Bytes::zero());
}

// Worst-case delays of an Ethernet port at `speed` (docs/models/pfc.md has the table and its
// sources). interface: the sum of one end's transmit and receive PHY/MAC delays; response:
// the longest a MAC may take to stop after a pause arrives. Published for 10, 25, 40, 100 and
// 400 Gb/s (the 400G interface delay is an estimate); another speed takes the delays, as
// times, of the fastest published speed below it (10G's bit times below 10G).
struct PortDelays {
    Time interface;
    Time response;
};
PortDelays ieee8023_delays(Bandwidth speed);

struct HeadroomInputs {
    Bandwidth link_speed;
    Length cable_length;
    Bytes max_frame;       // largest frame on the wire this port may be sending (any priority)
    Bytes peer_max_frame;  // largest frame of the paused priority the peer may be sending
    Time interface_delay;  // one end's PHY/MAC delay, transmit + receive
    Time response_time;    // the peer's pause response time
};

// Each term in bytes, in the order of the formula above.
struct HeadroomBreakdown {
    Bytes frame_in_flight;
    Bytes pause_frame;
    Bytes interfaces;  // both ends
    Bytes cable;       // both ways
    Bytes response;
    Bytes peer_frame;
    Bytes total() const { return frame_in_flight + pause_frame + interfaces + cable + response + peer_frame; }
};

HeadroomBreakdown pfc_headroom(const HeadroomInputs& in);

// The inputs `headroom: auto` uses for a RoCE link: frames of mtu + `header` wire bytes both
// ways (the line time they take, preamble and gap included: 802.1Qbb counts bit times) and the
// IEEE 802.3 delays of the link speed.
HeadroomInputs roce_headroom_inputs(Bandwidth link_speed, Length cable_length, Bytes payload_mtu,
                                    Bytes header = kRoceFrameOverhead);
// The headroom of one lossless priority of `link`: pfc.headroom, or the worst case above with
// the fabric's MTU and cluster.roce.header_bytes.
Bytes roce_link_headroom(const scenario::RoceSpec& roce, const Link& link, Bytes mtu);

// Bytes that `rate` carries in `duration`, rounded up (a partial byte still needs room).
Bytes bytes_during(Time duration, Bandwidth rate);

// What a RoCE switch sets aside of its buffer before the shared pool, as the packet model's
// MMU carves it (switch_mmu.cpp): at every port, reserved_per_queue for each priority group it
// is set up with (the lossless priorities, when PFC is on, and the control priority) and the
// link's headroom for each lossless priority. `longest` is the link of the largest headroom.
struct SwitchReservation {
    Bytes headroom;            // over every port and lossless priority
    Bytes reserved;            // reserved_per_queue over every port and priority group
    std::int64_t lossless{0};  // lossless priorities (0 without PFC)
    std::int64_t groups{0};    // priority groups that reserve space per port
    Bytes largest;             // the largest headroom of one port and priority
    const Link* longest = nullptr;
    Bytes total() const { return headroom + reserved; }
};
SwitchReservation roce_switch_reservation(const Topology& topology, const scenario::RoceSpec& roce, Bytes mtu,
                                          const Node& sw);

// The check the packet model's PFC makes when it carves each switch buffer (pfc.cpp), made
// before the run so that a buffer too small for its headroom is bad input (ConfigError at
// cluster.roce...) rather than a model error: every port of a fabric switch reserves
// reserved_per_queue for each lossless priority and the control priority, and the headroom
// of its link (given, or the 802.1Qbb worst case of its speed and cable) for each lossless
// priority. `mtu` is the fabric's payload MTU. No check for a RoCE fabric without PFC.
void check_pfc_buffers(const Topology& topology, const scenario::RoceSpec& roce, Bytes mtu);

// Dynamic XOFF threshold: floor(alpha x free), zero when nothing is free. Inline: PFC's MMU
// asks it for every frame a switch admits. The product is positive here, where truncation is
// the floor (std::floor is a call to libm on the baseline x86-64 target).
inline Bytes xoff_threshold(Bytes free_buffer, double alpha) {
    if (free_buffer <= Bytes::zero() || !(alpha > 0)) return Bytes::zero();
    return Bytes{static_cast<std::int64_t>(static_cast<double>(free_buffer.count()) * alpha)};
}
// XON = XOFF - delta, never below zero.
inline Bytes xon_threshold(Bytes xoff, Bytes delta) { return xoff > delta ? xoff - delta : Bytes::zero(); }

}  // namespace fabricsim::fabric
