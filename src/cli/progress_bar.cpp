#include "cli/progress_bar.hpp"

#include "core/units_format.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace fabricsim::cli {

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

ProgressBar::ProgressBar(std::string label, bool enabled)
    : label_(std::move(label)), enabled_(enabled), start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

ProgressBar::~ProgressBar() { finish_line(); }

void ProgressBar::update(Time simulated, std::size_t done, std::size_t total) {
    if (!enabled_ || total == 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    const double fraction = static_cast<double>(done) / static_cast<double>(total);
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(fraction * kWidth);
    std::string eta = "?";
    if (fraction > 0) eta = fmt::format("{:.0f}s", elapsed * (1 - fraction) / fraction);
    fmt::print(stderr, "\r{} [{:#<{}}{:<{}}] {:3.0f}%  sim {}  ETA {}   ", label_, "", filled, "", kWidth - filled,
               fraction * 100, to_string(simulated), eta);
    std::fflush(stderr);
    drawn_ = true;
}

void ProgressBar::building(std::size_t ops) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    fmt::print(stderr, "\r{} building the op graph: {:.1f} M ops  {:.0f}s   ", label_, static_cast<double>(ops) / 1e6,
               elapsed);
    std::fflush(stderr);
    drawn_ = true;
}

void ProgressBar::finish_line() {
    if (drawn_) {
        fmt::print(stderr, "\r{:<100}\r", "");
        std::fflush(stderr);
        drawn_ = false;
    }
}

}  // namespace fabricsim::cli
