#include "scenario/suggest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace fabricsim::scenario {

namespace {
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::size_t max_edits(std::size_t length) {
    if (length <= 5) return 1;
    if (length <= 9) return 2;
    return 3;
}
}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
    // Three rolling rows: the transposition step looks two rows back.
    const std::size_t m = b.size();
    std::vector<std::size_t> before(m + 1), prev(m + 1), cur(m + 1);
    std::iota(prev.begin(), prev.end(), std::size_t{0});
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= m; ++j) {
            const bool same = lower(a[i - 1]) == lower(b[j - 1]);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
                cur[j] = std::min(cur[j], before[j - 2] + 1);
        }
        std::swap(before, prev);
        std::swap(prev, cur);
    }
    return prev[m];
}

std::optional<std::string> nearest(std::string_view word, const std::vector<std::string>& candidates) {
    const std::size_t limit = max_edits(word.size());
    std::optional<std::string> best;
    std::size_t best_distance = limit + 1;
    for (const auto& c : candidates) {
        const std::size_t gap = c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
        if (gap > limit) continue;  // cannot be close enough; skip the quadratic work
        const std::size_t d = edit_distance(word, c);
        if (d < best_distance) {
            best_distance = d;
            best = c;
        }
    }
    return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
    if (const auto n = nearest(word, candidates)) return fmt::format("; did you mean \"{}\"?", *n);
    return {};
}

}  // namespace fabricsim::scenario
