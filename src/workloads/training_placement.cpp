// Where a training job's GPUs go (docs/models/training.md, "Placement"):
//
//   packed          the first free ranks in rank order, in Megatron order (TP fastest, then DP,
//                   then PP): with tp = GPUs per server each TP group is one server
//   random          free ranks drawn uniformly (seeded stream "training:<name>"), Megatron order
//   topology_aware  TP groups on tp aligned free GPUs of one server; a replica's pipeline
//                   stages fill a server before the next (t + tp·(p + pp·d)), so adjacent
//                   stages share NVLink where they fit and, when tp·pp is a multiple of the
//                   server's GPUs, every DP group holds one GPU per server at one local index
//                   (one rail)
//   a ranks list    exactly those ranks, in Megatron order
#include "workloads/training.hpp"

#include "core/errors.hpp"
#include "core/rng.hpp"

#include <fmt/format.h>

namespace fabricsim::workloads {

namespace {

[[noreturn]] void too_big(const std::string& key_path, int need, int free_ranks, int cluster_ranks,
                          std::string_view what) {
    throw_config_error(key_path, fmt::format("the job needs {} GPUs{}; {} of the cluster's {} ranks are free after the "
                                             "training jobs before it",
                                             need, what, free_ranks, cluster_ranks));
}

}  // namespace

std::vector<RankId> place_training(const scenario::TrainingSpec& spec, const RankLayout& layout,
                                   const std::vector<bool>& taken, std::uint64_t seed, const std::string& name,
                                   const std::string& key_path) {
    const int need = spec.gpus();
    std::vector<RankId> free_ranks;
    for (int r = 0; r < layout.ranks(); ++r)
        if (!taken[static_cast<std::size_t>(r)]) free_ranks.emplace_back(static_cast<RankId::rep>(r));

    if (!spec.ranks.empty()) {
        for (RankId r : spec.ranks)
            if (static_cast<int>(r.value()) >= layout.ranks() || taken[r.value()])
                throw_config_error(key_path,
                                   fmt::format("rank {} is already used by an earlier training job", r.value()));
        return spec.ranks;
    }
    const int free_count = static_cast<int>(free_ranks.size());
    switch (spec.placement) {
        case scenario::Placement::packed:
            if (free_count < need) too_big(key_path, need, free_count, layout.ranks(), "");
            free_ranks.resize(static_cast<std::size_t>(need));
            return free_ranks;
        case scenario::Placement::random: {
            if (free_count < need) too_big(key_path, need, free_count, layout.ranks(), "");
            Rng rng(seed, "training:" + name);
            // Fisher–Yates, drawing only the first `need` places.
            for (int i = 0; i < need; ++i) {
                const auto j = static_cast<std::size_t>(i) +
                               static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(free_count - i)));
                std::swap(free_ranks[static_cast<std::size_t>(i)], free_ranks[j]);
            }
            free_ranks.resize(static_cast<std::size_t>(need));
            return free_ranks;
        }
        case scenario::Placement::topology_aware: {
            // Slots: tp aligned, all-free GPUs of one server, servers in order.
            std::vector<RankId> slots;  // first rank of each slot
            for (int s = 0; s < layout.servers(); ++s)
                for (int local = 0; local + spec.tp <= layout.ranks_per_server(); local += spec.tp) {
                    bool all_free = true;
                    for (int t = 0; t < spec.tp; ++t) all_free = all_free && !taken[layout.rank(s, local + t).value()];
                    if (all_free) slots.push_back(layout.rank(s, local));
                }
            const int need_slots = need / spec.tp;
            if (static_cast<int>(slots.size()) < need_slots)
                too_big(key_path, need, free_count, layout.ranks(),
                        fmt::format(" as {} groups of {} aligned GPUs in one server (found {} such groups)", need_slots,
                                    spec.tp, slots.size()));
            std::vector<RankId> out(static_cast<std::size_t>(need));
            for (int d = 0; d < spec.dp; ++d)
                for (int p = 0; p < spec.pp; ++p) {
                    const RankId first = slots[static_cast<std::size_t>(p + spec.pp * d)];
                    for (int t = 0; t < spec.tp; ++t)
                        out[static_cast<std::size_t>(t + spec.tp * (d + spec.dp * p))] =
                            RankId{static_cast<RankId::rep>(first.value() + static_cast<RankId::rep>(t))};
                }
            return out;
        }
    }
    return free_ranks;
}

}  // namespace fabricsim::workloads
