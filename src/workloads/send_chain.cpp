#include "workloads/send_chain.hpp"

namespace fabricsim::workloads {

SendChain::SendChain(OpGraph& graph, std::uint32_t entry, OpId barrier, int window)
    : graph_(graph), entry_(entry), barrier_(barrier), window_(window) {}

OpId SendChain::send(RankId src, RankId dst, Bytes size, int channel, std::int16_t rail,
                     std::initializer_list<OpId> after) {
    return send(src, dst, size, channel, rail, std::span<const OpId>(after.begin(), after.size()));
}

OpId SendChain::send(RankId src, RankId dst, Bytes size, int channel, std::int16_t rail, std::span<const OpId> after) {
    const OpId id = graph_.add_send(entry_, src, dst, size);
    Op& op = graph_.op(id);
    op.flow_hint = static_cast<std::uint32_t>(channel);
    op.rail = rail;
    if (barrier_.valid()) graph_.add_dependency(barrier_, id);
    for (OpId dep : after)
        if (dep.valid()) graph_.add_dependency(dep, id);
    auto& history = connections_[{channel, src.value(), dst.value()}];
    if (static_cast<int>(history.size()) >= window_)
        graph_.add_dependency(history[history.size() - static_cast<std::size_t>(window_)], id);
    history.push_back(id);
    return id;
}

Bytes share(Bytes size, std::int64_t parts, std::int64_t index) {
    const std::int64_t base = size.count() / parts;
    const std::int64_t extra = size.count() % parts;
    return Bytes{base + (index < extra ? 1 : 0)};
}

}  // namespace fabricsim::workloads
