#include "workloads/send_chain.hpp"

namespace fabricsim::workloads {

SendChain::SendChain(OpGraph& graph, std::uint32_t entry, OpId barrier, int window)
    : graph_(graph), entry_(entry), barrier_(barrier), window_(window) {}

OpId SendChain::send(RankId src, RankId dst, Bytes size, int channel, std::int16_t rail,
                     std::initializer_list<OpId> after) {
    return send(src, dst, size, channel, rail, std::span<const OpId>(after.begin(), after.size()));
}

OpId SendChain::add(RankId src, RankId dst, Bytes size, int channel, std::int16_t rail, std::span<const OpId> after,
                    OpId& slot) {
    const OpId id = graph_.add_send(entry_, src, dst, size);
    Op& op = graph_.op(id);
    op.flow_hint = static_cast<std::uint32_t>(channel);
    op.rail = rail;
    if (barrier_.valid()) graph_.add_dependency(barrier_, id);
    for (OpId dep : after)
        if (dep.valid()) graph_.add_dependency(dep, id);
    auto& history = connections_[{channel, src.value(), dst.value()}];
    slot = static_cast<int>(history.size()) >= window_ ? history[history.size() - static_cast<std::size_t>(window_)]
                                                       : OpId::invalid();
    history.push_back(id);
    return id;
}

OpId SendChain::send(RankId src, RankId dst, Bytes size, int channel, std::int16_t rail, std::span<const OpId> after) {
    OpId slot;
    const OpId id = add(src, dst, size, channel, rail, after, slot);
    if (slot.valid()) graph_.add_dependency(slot, id);
    return id;
}

OpId SendChain::forward(RankId src, RankId dst, Bytes size, int channel, std::int16_t rail,
                        std::span<const OpId> after) {
    OpId slot;
    const OpId id = add(src, dst, size, channel, rail, after, slot);
    for (OpId dep : after)
        if (dep.valid() && graph_.op(dep).dst == src) forwarded_in_[dep.value()].push_back(id);
    if (slot.valid()) {
        const auto it = forwarded_in_.find(slot.value());
        if (it == forwarded_in_.end()) {
            graph_.add_dependency(slot, id);  // dst keeps what it receives: free on arrival
        } else {
            for (OpId next : it->second) graph_.add_dependency(next, id);
            forwarded_in_.erase(it);  // no later send on the connection waits for this slot
        }
    }
    return id;
}

Bytes share(Bytes size, std::int64_t parts, std::int64_t index) {
    const std::int64_t base = size.count() / parts;
    const std::int64_t extra = size.count() % parts;
    return Bytes{base + (index < extra ? 1 : 0)};
}

}  // namespace fabricsim::workloads
