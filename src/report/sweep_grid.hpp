// The `sweep:` section of a scenario (`fabricsim sweep`, docs/REPORTS.md): a grid over dotted
// keys, each point the scenario with those keys set (as --set would), every variant run at
// every point.
//
//   sweep:
//     cluster.fabric.oversubscription: ["1:1", "2:1", "3:1"]
//     cluster.roce.ecn.kmax: [400KB, 1600KB]
//
// Points are the cartesian product in the order written: the last key varies fastest. The
// section is taken out of the text before the scenario loader sees it (the loader knows no
// `sweep` key); its values are --set values, checked by the loader at each point.
#pragma once

#include "core/errors.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace fabricsim::report {

struct SweepAxis {
    std::string key;                  // "cluster.fabric.oversubscription"
    std::vector<std::string> values;  // as written
    SourceLocation location;
};

struct SweepGrid {
    std::vector<SweepAxis> axes;  // empty: the file has no sweep section
    std::string scenario_text;    // the file without its sweep section (lines blanked)
    std::size_t points() const;
    // The values of point `i` (0 .. points()-1), one per axis.
    std::vector<std::string> point(std::size_t i) const;
};

inline constexpr std::size_t kMaxSweepPoints = 100'000;

// Throws ConfigError (file:line:col, sweep.<key>) for a section that is not a mapping of keys
// to non-empty lists of scalars, or a grid above kMaxSweepPoints points.
SweepGrid parse_sweep(std::string_view text, const std::string& file);

// A short stable key for a text (FNV-1a 64, hex): results are filed under the hash of each
// point's resolved scenario, so a rerun finds what is already done.
std::string content_hash(std::string_view text);

}  // namespace fabricsim::report
