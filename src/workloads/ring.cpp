// Ring collectives (NCCL's ring algorithm; Patarasuk & Yuan, JPDC 69(2) 2009 for the
// bandwidth-optimal ring all-reduce).
#include "workloads/collective.hpp"
#include "workloads/collective_algorithms.hpp"

#include <algorithm>

namespace fabricsim::workloads {

std::int16_t ChannelContext::rail(RankId src, RankId dst) const {
    if (!rail_aligned || layout.same_server(src, dst)) return -1;
    return static_cast<std::int16_t>(channel % layout.nics_per_server());
}

void ring_rounds(ChannelContext& ctx, const std::vector<RankId>& order, Bytes channel_bytes, int steps) {
    const auto n = static_cast<std::int64_t>(order.size());
    if (n < 2 || channel_bytes <= Bytes::zero()) return;
    // A loop moves n blocks of at most message_bytes; the last loop's blocks are smaller.
    const std::int64_t loop_bytes = n * ctx.message_bytes.count();
    const std::int64_t loops = (channel_bytes.count() + loop_bytes - 1) / loop_bytes;
    // sent[k][i]: rank i's round-k send of the previous loop, then of this one.
    const auto un = static_cast<std::size_t>(n);
    std::vector<std::vector<OpId>> sent(static_cast<std::size_t>(steps), std::vector<OpId>(un, OpId::invalid()));
    for (std::int64_t l = 0; l < loops; ++l) {
        const Bytes loop_size = share(channel_bytes, loops, l);
        for (int k = 0; k < steps; ++k) {
            const auto uk = static_cast<std::size_t>(k);
            for (std::size_t i = 0; i < un; ++i) {
                const RankId src = order[i];
                const RankId dst = order[(i + 1) % un];
                // The block rank i sends in round k is the one it received in round k−1; and
                // a rank works through its loops in order, as NCCL's kernel does.
                const OpId received = k > 0 ? sent[uk - 1][(i + un - 1) % un] : OpId::invalid();
                const OpId same_round_before = sent[uk][i];
                const Bytes block = share(loop_size, n, (static_cast<std::int64_t>(i) - k + 2 * n * steps) % n);
                sent[uk][i] =
                    ctx.chain.send(src, dst, block, ctx.channel, ctx.rail(src, dst), {received, same_round_before});
            }
        }
    }
}

Bytes ring_sent_in_loop(Bytes bytes, std::int64_t n, std::int64_t steps, std::int64_t position) {
    // share(bytes, n, j) is bytes / n, plus one for j < bytes % n. Its blocks j run down from
    // `position` (mod n): steps / n whole turns, then the steps % n blocks down to
    // position − steps % n + 1.
    const std::int64_t base = bytes.count() / n, extra = bytes.count() % n, rest = steps % n;
    const auto below = [&](std::int64_t a, std::int64_t b) {  // j in [a, b] with j < extra
        return std::max<std::int64_t>(0, std::min(b, extra - 1) - a + 1);
    };
    std::int64_t ones = steps / n * extra;
    if (rest > 0) {
        const std::int64_t low = position - rest + 1;
        ones += low >= 0 ? below(low, position) : below(0, position) + below(n + low, n - 1);
    }
    return Bytes{steps * base + ones};
}

GroupOp ring_channel_group(const std::vector<RankId>& order, Bytes bytes, std::int64_t steps) {
    GroupOp g;
    g.offload = Offload::ring_channel;
    g.ranks = order;
    g.steps = static_cast<std::uint32_t>(steps);
    const auto n = static_cast<std::int64_t>(order.size());
    for (std::int64_t i = 0; i < n; ++i) g.egress = std::max(g.egress, ring_sent_in_loop(bytes, n, steps, i));
    g.ingress = g.egress;
    return g;
}

Op ring_channel_op(const std::vector<RankId>& order, Bytes bytes, std::uint32_t channel, std::int16_t rail) {
    Op o;
    o.kind = OpKind::group;
    o.src = order.front();
    o.size = bytes;
    o.flow_hint = channel;
    o.rail = rail;
    return o;
}

void ring_broadcast(ChannelContext& ctx, const std::vector<RankId>& order, Bytes channel_bytes) {
    const auto n = static_cast<std::int64_t>(order.size());
    if (n < 2 || channel_bytes <= Bytes::zero()) return;
    const std::int64_t messages = (channel_bytes.count() + ctx.message_bytes.count() - 1) / ctx.message_bytes.count();
    const UnitRange built = unit_range(ctx.units, static_cast<std::uint32_t>(ctx.chain.graph().ops().size()), messages,
                                       channel_bytes.count() % messages);
    for (std::int64_t k = 0; k < built.count; ++k) {
        const Bytes size = share(channel_bytes, messages, built.offset + k);
        OpId received = OpId::invalid();
        for (std::int64_t hop = 0; hop + 1 < n; ++hop) {
            const RankId src = order[static_cast<std::size_t>(hop)];
            const RankId dst = order[static_cast<std::size_t>(hop + 1)];
            const OpId data[] = {received};  // forwarded: its slot frees when dst sends it on
            received = ctx.chain.forward(src, dst, size, ctx.channel, ctx.rail(src, dst), data);
        }
    }
}

void shift_send_recv(ChannelContext& ctx, const std::vector<RankId>& order, Bytes channel_bytes) {
    const auto n = static_cast<std::int64_t>(order.size());
    if (n < 2 || channel_bytes <= Bytes::zero()) return;
    const std::int64_t messages = (channel_bytes.count() + ctx.message_bytes.count() - 1) / ctx.message_bytes.count();
    const UnitRange built = unit_range(ctx.units, static_cast<std::uint32_t>(ctx.chain.graph().ops().size()), messages,
                                       channel_bytes.count() % messages);
    for (std::int64_t k = 0; k < built.count; ++k)
        for (std::int64_t i = 0; i < n; ++i) {
            const RankId src = order[static_cast<std::size_t>(i)];
            const RankId dst = order[static_cast<std::size_t>((i + 1) % n)];
            ctx.chain.send(src, dst, share(channel_bytes, messages, built.offset + k), ctx.channel, ctx.rail(src, dst),
                           {});
        }
}

}  // namespace fabricsim::workloads
