#include "report/run_result.hpp"

#include <algorithm>
#include <cmath>

namespace fabricsim::report {

namespace {
// Nearest rank: the ceil(q·n)-th smallest value (1-based), as nccl-tests and most FCT
// studies report percentiles.
template <class T>
T nearest_rank(std::vector<T> values, double q) {
    std::sort(values.begin(), values.end());
    auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
    rank = std::clamp<std::size_t>(rank, 1, values.size());
    return values[rank - 1];
}
}  // namespace

FlowSummary summarise(const std::vector<TransferResult>& transfers) {
    FlowSummary s;
    std::vector<Time> fct;
    std::vector<double> slowdown;
    for (const auto& t : transfers) {
        if (!t.finished()) {
            ++s.unfinished;
            continue;
        }
        fct.push_back(t.fct());
        slowdown.push_back(t.slowdown());
    }
    s.count = static_cast<std::int64_t>(fct.size());
    if (fct.empty()) return s;
    s.fct_p50 = nearest_rank(fct, 0.50);
    s.fct_p99 = nearest_rank(fct, 0.99);
    s.slowdown_p99 = nearest_rank(slowdown, 0.99);
    return s;
}

bool RunResult::complete() const {
    if (variants.size() < variants_asked) return false;
    return std::all_of(variants.begin(), variants.end(), [](const VariantResult& v) { return v.complete(); });
}

}  // namespace fabricsim::report
