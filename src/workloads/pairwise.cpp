// Pairwise-exchange all-to-all (Thakur, Rabenseifner & Gropp 2005, §3.5): n−1 rounds, in
// round k rank i sends its block for rank (i+k) mod n: (n−1)·α + (n−1)/n·S·β.
#include "workloads/collective_algorithms.hpp"

namespace fabricsim::workloads {

void pairwise_all_to_all(ChannelContext& ctx, const std::vector<RankId>& order, Bytes channel_bytes) {
    const auto n = static_cast<std::int64_t>(order.size());
    if (n < 2 || channel_bytes <= Bytes::zero()) return;
    std::vector<OpId> previous(static_cast<std::size_t>(n), OpId::invalid());
    for (std::int64_t k = 1; k < n; ++k)
        for (std::int64_t i = 0; i < n; ++i) {
            const RankId src = order[static_cast<std::size_t>(i)];
            const RankId dst = order[static_cast<std::size_t>((i + k) % n)];
            previous[static_cast<std::size_t>(i)] =
                ctx.chain.send(src, dst, share(channel_bytes, n, (i + k) % n), ctx.channel, ctx.rail(src, dst),
                               {previous[static_cast<std::size_t>(i)]});
        }
}

}  // namespace fabricsim::workloads
