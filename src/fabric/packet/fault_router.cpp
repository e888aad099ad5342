#include "fabric/packet/fault_router.hpp"

#include "fabric/ecmp_hash.hpp"

namespace fabricsim::fabric {

FaultRouter::FaultRouter(const Topology& topology, const Routing& routing, std::uint64_t seed)
    : topology_(topology),
      routing_(routing),
      seed_(seed),
      adaptive_(routing.policy() == scenario::RoutingKind::adaptive),
      down_(topology.links().size(), 0),
      routed_out_(topology.links().size(), 0) {}

void FaultRouter::set_physical(LinkId link, bool up) {
    std::uint8_t& d = down_[link.value()];
    if (d == (up ? 0 : 1)) return;
    d = up ? 0 : 1;
    if (up)
        --down_count_;
    else
        ++down_count_;
    if (adaptive_) reach_.clear();
}

void FaultRouter::reconverge() {
    routed_out_ = down_;
    routed_count_ = down_count_;
    reach_.clear();
}

bool FaultRouter::usable(NodeId at, std::uint32_t port, const FlowKey& flow) const {
    const Port& p = topology_.node(at).ports[port];
    if (routed_out_[p.link.value()] != 0) return false;
    return reaches(p.peer, flow);
}

// Whether `at` still has a routed way to flow.dst. Cached for fabric switches, whose tables
// depend on the destination only.
bool FaultRouter::reaches(NodeId at, const FlowKey& flow) const {
    if (at == flow.dst) return true;
    const bool sw = is_fabric_switch(topology_.node(at).kind);
    const std::uint64_t key = (std::uint64_t{at.value()} << 32) | flow.dst.value();
    if (sw) {
        const auto it = reach_.find(key);
        if (it != reach_.end()) return it->second;
    }
    bool any = false;
    for (std::uint32_t port : routing_.candidates(at, flow))
        if (routed_out_[topology_.node(at).ports[port].link.value()] == 0 &&
            reaches(topology_.node(at).ports[port].peer, flow)) {
            any = true;
            break;
        }
    if (sw) reach_.emplace(key, any);
    return any;
}

bool FaultRouter::filter(NodeId at, std::span<const std::uint32_t> base, const FlowKey& flow) const {
    scratch_.clear();
    for (std::uint32_t port : base) {
        const bool local_down = adaptive_ && down_[topology_.node(at).ports[port].link.value()] != 0;
        if (!local_down && usable(at, port, flow)) scratch_.push_back(port);
    }
    return scratch_.size() != base.size();
}

std::span<const std::uint32_t> FaultRouter::candidates(NodeId at, const FlowKey& flow) const {
    const auto base = routing_.candidates(at, flow);
    if ((routed_count_ == 0 && !(adaptive_ && down_count_ > 0)) || base.empty()) return base;
    if (!filter(at, base, flow) || scratch_.empty()) return base;
    return scratch_;
}

std::uint32_t FaultRouter::next_port(NodeId at, const FlowKey& flow, std::uint64_t packet_seq,
                                     const PortLoad* load) const {
    if (routed_count_ == 0 && !(adaptive_ && down_count_ > 0)) return routing_.next_port(at, flow, packet_seq, load);
    const auto base = routing_.candidates(at, flow);
    if (base.empty() || !filter(at, base, flow) || scratch_.empty())
        return routing_.next_port(at, flow, packet_seq, load);
    // The group without its lost members: the same hash over the members left.
    const std::size_t n = scratch_.size();
    const std::uint64_t node_seed = ecmp::node_seed(seed_, at.value());
    const bool ib = routing_.technology() == scenario::Technology::infiniband;
    const std::uint64_t hash = ecmp::flow_hash(node_seed, ib ? 0 : flow.src.value(), flow.dst.value(), flow.qp);
    switch (routing_.policy()) {
        case scenario::RoutingKind::spray: return scratch_[ecmp::pick(ecmp::packet_hash(hash, packet_seq), n)];
        case scenario::RoutingKind::adaptive:
            if (load != nullptr) {
                std::uint32_t best = scratch_[ecmp::pick(hash, n)];
                Bytes least = load->queued(topology_.egress(at, best));
                for (std::uint32_t port : scratch_) {
                    const Bytes q = load->queued(topology_.egress(at, port));
                    if (q < least) {
                        least = q;
                        best = port;
                    }
                }
                return best;
            }
            break;
        default: break;
    }
    return scratch_[ecmp::pick(hash, n)];
}

}  // namespace fabricsim::fabric
