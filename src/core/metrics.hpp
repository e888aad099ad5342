// The metrics registry: named counters, histograms and sampled time series.
//
// Components look a metric up once (by name, at build time) and keep the reference; the hot
// path then only increments or records. References stay valid for the registry's lifetime.
//
// Histogram: log-linear buckets as in HdrHistogram (Tene): a value v >= 2^kSubBits falls in
// the bucket of its top kSubBits+1 significant bits, so a percentile is reported with a
// relative error below 2^-(kSubBits-1) (< 1.6 %); values below 2^kSubBits are exact. Count, sum,
// min and max are exact. Recording never allocates after the first value of each octave.
#pragma once

#include "core/units.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fabricsim {

class Counter {
public:
    void add(std::int64_t v = 1) { value_ += v; }
    std::int64_t value() const { return value_; }

private:
    std::int64_t value_ = 0;
};

class Histogram {
public:
    static constexpr int kSubBits = 7;

    void record(std::int64_t value);  // value >= 0
    std::int64_t count() const { return count_; }
    std::int64_t min() const { return count_ ? min_ : 0; }
    std::int64_t max() const { return count_ ? max_ : 0; }
    double mean() const { return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0; }
    // The value at quantile q in [0, 1]: the upper edge of the bucket holding the
    // ceil(q·count)-th smallest value, clamped to [min, max]. 0 when empty.
    std::int64_t percentile(double q) const;

private:
    static constexpr int kOctaves = 64 - kSubBits;
    static constexpr int kSub = 1 << kSubBits;
    std::array<std::unique_ptr<std::array<std::int64_t, kSub>>, kOctaves + 1> buckets_{};
    std::int64_t count_ = 0;
    std::int64_t sum_ = 0;
    std::int64_t min_ = 0;
    std::int64_t max_ = 0;
};

// (time, value) samples, at most one per `interval` (the last value in an interval wins).
class TimeSeries {
public:
    explicit TimeSeries(Time interval) : interval_(interval) {}
    void record(Time t, double value);
    struct Point {
        Time time;
        double value;
    };
    const std::vector<Point>& points() const { return points_; }
    Time interval() const { return interval_; }

private:
    Time interval_;
    std::vector<Point> points_;
};

class MetricsRegistry {
public:
    Counter& counter(std::string_view name);
    Histogram& histogram(std::string_view name);
    TimeSeries& time_series(std::string_view name, Time interval);

    // Sorted by name, so reports are deterministic.
    const std::map<std::string, Counter, std::less<>>& counters() const { return counters_; }
    const std::map<std::string, Histogram, std::less<>>& histograms() const { return histograms_; }
    const std::map<std::string, TimeSeries, std::less<>>& time_series() const { return series_; }

private:
    std::map<std::string, Counter, std::less<>> counters_;
    std::map<std::string, Histogram, std::less<>> histograms_;
    std::map<std::string, TimeSeries, std::less<>> series_;
};

}  // namespace fabricsim
