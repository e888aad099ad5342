#include "fabric/packet/ib_cc_marker.hpp"

namespace fabricsim::fabric {

IbCcMarker::IbCcMarker(const congestion::FecnMarkerParams& params, const Topology& topology, const QueueLayout& layout,
                       const IbCredits& credits)
    : marker_(params), credits_(credits), state_(layout.port.size()), credited_(layout.port.size(), 0) {
    for (std::uint32_t q = 0; q < layout.port.size(); ++q)
        credited_[q] = IbCredits::applies_to(topology.link(DirectedLink::from_index(layout.port[q]).link)) ? 1 : 0;
}

}  // namespace fabricsim::fabric
