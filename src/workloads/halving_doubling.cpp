// Rabenseifner's all-reduce: recursive-halving reduce-scatter then recursive-doubling
// all-gather (Thakur, Rabenseifner & Gropp, IJHPCA 19(1) 2005): 2·log2(n)·α + 2(n−1)/n·S·β.
#include "workloads/collective_algorithms.hpp"

#include "core/errors.hpp"

#include <bit>

namespace fabricsim::workloads {

void halving_doubling(ChannelContext& ctx, const std::vector<RankId>& order, Bytes channel_bytes, bool reduce_scatter,
                      bool all_gather) {
    const auto n = static_cast<std::uint32_t>(order.size());
    if (!std::has_single_bit(n)) throw InternalError("halving_doubling needs a power-of-two group");
    if (n < 2 || channel_bytes <= Bytes::zero()) return;
    const int rounds = std::countr_zero(n);
    // received[i]: the message rank i received in the previous round.
    std::vector<OpId> received(n, OpId::invalid()), next(n);
    auto round = [&](std::uint32_t distance, Bytes size) {
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t peer = i ^ distance;
            const RankId src = order[i], dst = order[peer];
            next[peer] = ctx.chain.send(src, dst, size, ctx.channel, ctx.rail(src, dst), {received[i]});
        }
        received.swap(next);
    };
    if (reduce_scatter)  // distance n/2, n/4, ..., 1; the data halves every round
        for (int r = 0; r < rounds; ++r) round(n >> (r + 1), share(channel_bytes, std::int64_t{1} << (r + 1), 0));
    if (all_gather)  // distance 1, 2, ..., n/2; the data doubles every round
        for (int r = 0; r < rounds; ++r) round(1u << r, share(channel_bytes, std::int64_t{n} >> r, 0));
}

}  // namespace fabricsim::workloads
