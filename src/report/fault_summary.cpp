#include "report/fault_summary.hpp"

#include "core/units_format.hpp"

#include <fmt/format.h>

namespace fabricsim::report {

std::string faults_summary(const RunResult& result) {
    std::string out;
    for (const auto& v : result.variants) {
        if (v.faults.empty()) continue;
        out += fmt::format("faults in variant {}:\n", v.name);
        for (const auto& f : v.faults) {
            std::string when = f.times_down > 0 ? fmt::format("at {}", f.at) : std::string("did not strike");
            if (f.times_down > 1) when += fmt::format(", {} times", f.times_down);
            if (f.reconverged != Time::max()) when += fmt::format(", routes converged {} later", f.reconverged - f.at);
            out += fmt::format("  {} ({}): {}", f.name, f.target, when);
            if (f.kind != "straggler") out += fmt::format(", {} packets lost", f.packets_lost);
            if (f.ports_paused >= 0) out += fmt::format(", {} ports paused by PFC", f.ports_paused);
            out += "\n";
        }
        const FabricCounters& c = v.fabric;
        if (v.model == "packet")
            out += fmt::format("  RC: {} packets sent again, {} timeouts, {} messages given up; PFC watchdog: {} "
                               "triggers, {} drops; unfinished ops: {}\n",
                               c.retransmitted, c.rc_timeouts, c.messages_abandoned, c.pfc_watchdog_triggers,
                               c.watchdog_drops, v.unfinished_ops);
        const auto shown = [](Time t) { return t == Time::max() ? std::string("unfinished") : to_string(t); };
        for (const auto& row : v.baseline)
            out += fmt::format("  {}: {} against {} without faults{}\n", row.what, shown(row.with_faults),
                               shown(row.without), row.finished() ? fmt::format(" ({:.3f}x)", row.slowdown()) : "");
    }
    return out;
}

}  // namespace fabricsim::report
