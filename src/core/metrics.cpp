#include "core/metrics.hpp"

#include "core/errors.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

namespace fabricsim {

namespace {
// Octave 0 holds the values below 2^kSubBits exactly. A larger value keeps its top kSubBits
// bits: `octave` is how far it was shifted right, `sub` the bits kept, so a bucket spans
// 2^octave values and its width relative to its values is below 2^-(kSubBits-1).
struct Slot {
    int octave;
    int sub;
};

Slot slot_of(std::uint64_t v) {
    constexpr int kSubBits = Histogram::kSubBits;
    if (v < (std::uint64_t{1} << kSubBits)) return {0, static_cast<int>(v)};
    const int msb = 63 - std::countl_zero(v);      // >= kSubBits
    const int shift = msb - kSubBits + 1;          // >= 1
    return {shift, static_cast<int>(v >> shift)};  // sub in [2^(kSubBits-1), 2^kSubBits)
}

std::int64_t upper_edge(int octave, int sub) {
    if (octave == 0) return sub;
    const __int128 edge = ((static_cast<__int128>(sub) + 1) << octave) - 1;
    return edge > INT64_MAX ? INT64_MAX : static_cast<std::int64_t>(edge);
}
}  // namespace

void Histogram::record(std::int64_t value) {
    if (value < 0) throw InternalError(fmt::format("Histogram::record: negative value {}", value));
    const Slot s = slot_of(static_cast<std::uint64_t>(value));
    auto& octave = buckets_[static_cast<std::size_t>(s.octave)];
    if (!octave) octave = std::make_unique<std::array<std::int64_t, kSub>>();
    ++(*octave)[static_cast<std::size_t>(s.sub)];
    if (count_ == 0) {
        min_ = max_ = value;
    } else {
        min_ = std::min(min_, value);
        max_ = std::max(max_, value);
    }
    ++count_;
    sum_ += value;
}

std::int64_t Histogram::percentile(double q) const {
    if (count_ == 0) return 0;
    q = std::clamp(q, 0.0, 1.0);
    const auto rank = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(q * static_cast<double>(count_))));
    std::int64_t seen = 0;
    for (int o = 0; o <= kOctaves; ++o) {
        const auto& octave = buckets_[static_cast<std::size_t>(o)];
        if (!octave) continue;
        for (int s = 0; s < kSub; ++s) {
            seen += (*octave)[static_cast<std::size_t>(s)];
            if (seen >= rank) return std::clamp(upper_edge(o, s), min_, max_);
        }
    }
    return max_;
}

void TimeSeries::record(Time t, double value) {
    if (!points_.empty() && interval_ > Time::zero() && t / interval_ == points_.back().time / interval_) {
        points_.back() = {t, value};
        return;
    }
    points_.push_back({t, value});
}

Counter& MetricsRegistry::counter(std::string_view name) {
    auto it = counters_.find(name);
    if (it == counters_.end()) it = counters_.emplace(std::string(name), Counter{}).first;
    return it->second;
}

Histogram& MetricsRegistry::histogram(std::string_view name) {
    auto it = histograms_.find(name);
    if (it == histograms_.end()) it = histograms_.try_emplace(std::string(name)).first;
    return it->second;
}

TimeSeries& MetricsRegistry::time_series(std::string_view name, Time interval) {
    auto it = series_.find(name);
    if (it == series_.end()) it = series_.emplace(std::string(name), TimeSeries{interval}).first;
    return it->second;
}

}  // namespace fabricsim
