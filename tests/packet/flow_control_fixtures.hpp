// Pieces for testing one link flow-control component (IbCredits, Pfc, SwitchMmu, IbCcMarker)
// on its own, without a PacketNetwork: a host that ignores its calls, and one queue per link.
#pragma once

#include "fabric/packet/link_flow_control.hpp"
#include "fabric/topology.hpp"

#include <cstdint>

namespace packet_test {

// The network's side of a flow control, doing nothing: the tests call the component directly.
class NoHost final : public fabricsim::fabric::FlowControlHost {
public:
    void catch_up(fabricsim::Simulator&, std::uint32_t) override {}
    void wake(fabricsim::Simulator&, std::uint32_t) override {}
    void drop_queue(fabricsim::Simulator&, std::uint32_t) override {}
};

// One queue per directed link of `topology` (queue q is link q's port), each of class `cls`.
inline fabricsim::fabric::QueueLayout one_queue_per_link(const fabricsim::fabric::Topology& topology,
                                                         std::uint8_t cls) {
    fabricsim::fabric::QueueLayout layout;
    for (std::uint32_t p = 0; p < topology.directed_link_count(); ++p) {
        layout.first.push_back(p);
        layout.port.push_back(p);
        layout.class_of.push_back(cls);
    }
    layout.first.push_back(static_cast<std::uint32_t>(topology.directed_link_count()));
    return layout;
}

}  // namespace packet_test
