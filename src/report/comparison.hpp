// One table that sets variants side by side (`fabricsim compare`, and `run` of a scenario with
// `variants:`; docs/REPORTS.md): collective time and busbw, iteration time and its breakdown,
// FCT percentiles and slowdown, queue depth percentiles (over time from the queue time series
// when the variant has one, else over the ports' deepest queues) and the time-average queue
// per tier, PFC pauses and paused time
// beside InfiniBand credit stalls, ECN marks and CNPs beside FECN and BECN, drops, and link
// utilisation per tier; each row with its difference against the first variant and the
// better variant.
//
// A row a variant cannot have (a collective it does not run, PFC on InfiniBand, any queue on
// the ideal model, which has none) is empty for it; a row empty for every variant is left out.
//
// Link utilisation of a port: busy time / the run's makespan; per tier, the mean and the
// largest over the ports that carried traffic, the tier read from the node names at both
// ends (NICs "s3.nic5", switches "leaf12", "p1.spine4", "core2"; "s3.cpu", GPUs and switches
// inside a server count as "server", so a NIC-CPU port is "server-nic", PCIe).
#pragma once

#include "report/run_result.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fabricsim::report {

enum class Better { lower, higher, none };
enum class Unit { time, bytes, count, ratio, gbps, fraction, text };

struct ComparisonRow {
    std::string group;  // "collectives", "training", "flows", "queues", "flow control", "utilisation"
    std::string label;  // "ar 1MiB time"
    Unit unit = Unit::count;
    Better better = Better::none;
    std::vector<std::optional<double>> values;  // per variant, SI (s, B, GB/s, 0..1)
    std::vector<std::string> text;              // Unit::text only
    // Relative difference of variant i against the first, when both have a value and the first is not 0.
    std::optional<double> delta(std::size_t i) const;
    // The index of the better variant: nullopt when no direction, fewer than 2 values, or a tie.
    std::optional<std::size_t> best() const;
};

struct Comparison {
    std::vector<std::string> variants;  // column names
    std::vector<ComparisonRow> rows;
};

// Queue depth percentiles over time (the "queues" rows when a variant has outputs.queues):
// every sample of every sampled port is a (depth in bytes, seconds until that port's next
// sample) pair — the last sample of a series, where the run ends, weighs nothing — and
// time_weighted_percentile() is the smallest depth d such that the ports spent at least q of
// their sampled time at depth <= d (nearest rank, weighted).
std::vector<std::pair<double, double>> queue_depth_over_time(const std::vector<QueueSeries>& queues);
double time_weighted_percentile(std::vector<std::pair<double, double>> weighted, double q);

// `names` label the columns (variant names, or "file: variant" across files).
Comparison compare(const std::vector<const VariantResult*>& variants, const std::vector<std::string>& names);

// A value with its unit for people: "2.73 µs", "61.0 MiB", "12.3 GB/s", "45.1 %".
std::string display(Unit unit, double value);

std::string comparison_text(const Comparison& c);      // console
std::string comparison_markdown(const Comparison& c);  // GitHub Markdown table

}  // namespace fabricsim::report
