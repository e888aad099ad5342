// Group operations on the packet model (the `Network` offloads NVLS and SHARP): which one a
// group gets, and the bookkeeping they share. Each offload turns the operation into parts,
// direct messages between neighbouring nodes (nvls.cpp: GPU <-> NVSwitch; sharp.cpp: the
// aggregation tree's edges), all started at once; the operation completes when the last part
// is delivered.
#include "fabric/packet/packet_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"

namespace fabricsim::fabric {

bool PacketNetwork::offers(Offload offload, std::span<const RankId> ranks) const {
    if (ranks.size() < 2 || offload == Offload::ring_channel) return false;  // rings run as messages
    return offload == Offload::switch_aggregation ? offers_sharp(ranks) : offers_nvls(ranks);
}

void PacketNetwork::start_group(Simulator& sim, const GroupOperation& op, DeliveryListener& listener) {
    if (!offers(op.offload, op.ranks)) Network::start_group(sim, op, listener);  // throws
    if (op.offload == Offload::switch_aggregation)
        start_sharp(sim, op, listener);
    else
        start_nvls(sim, op, listener);
}

void PacketNetwork::start_parts(Simulator& sim, const GroupOperation& op, DeliveryListener& listener,
                                std::span<const GroupPart> parts) {
    if (parts.empty()) throw InternalError("packet model: a group operation with nothing to move");
    std::uint32_t g;
    if (free_groups_.empty()) {
        g = static_cast<std::uint32_t>(groups_.size());
        groups_.emplace_back();
    } else {
        g = free_groups_.back();
        free_groups_.pop_back();
    }
    // The count first: a part may be delivered (and the group end) before the last starts.
    groups_[g] = Group{op.id, &listener, static_cast<std::uint32_t>(parts.size())};
    for (const GroupPart& part : parts) {
        Message m;
        m.id = MessageId{g};
        m.size = part.bytes;
        start_message(sim, m, group_parts_, part.from, part.to, true);
    }
}

void PacketNetwork::GroupParts::on_delivered(Simulator& sim, MessageId part) {
    const auto g = static_cast<std::uint32_t>(part.value());
    Group& group = net_.groups_[g];
    if (--group.parts_left > 0) return;
    const Group done = group;
    net_.free_groups_.push_back(g);
    done.listener->on_delivered(sim, done.id);
}

}  // namespace fabricsim::fabric
