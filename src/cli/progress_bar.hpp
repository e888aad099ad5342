// A one-line progress bar on stderr with simulated time and an ETA, redrawn at most 10 times
// a second; while a graph is built before the run, the ops built so far. Drawn only when stderr is a terminal, so CI
// logs stay clean.
#pragma once

#include "core/units.hpp"

#include <chrono>
#include <string>

namespace fabricsim::cli {

class ProgressBar {
public:
    ProgressBar(std::string label, bool enabled);
    ~ProgressBar();
    void update(Time simulated, std::size_t done, std::size_t total);
    // Before the run: the op graph being built has `ops` ops so far.
    void building(std::size_t ops);

private:
    void finish_line();
    std::string label_;
    bool enabled_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_draw_;
};

// True when stderr is a terminal.
bool stderr_is_terminal();

}  // namespace fabricsim::cli
