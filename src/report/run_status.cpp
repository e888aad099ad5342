#include "report/run_status.hpp"

#include "core/units_format.hpp"

#include <fmt/format.h>

namespace fabricsim::report {

namespace {
std::string ops(std::int64_t n) { return fmt::format("{} op{}", n, n == 1 ? "" : "s"); }
}  // namespace

std::string warning_lines(const RunResult& result) {
    std::string out;
    for (const VariantResult& v : result.variants)
        for (const std::string& w : v.warnings)
            out += result.variants.size() > 1 ? fmt::format("fabricsim: warning: variant \"{}\": {}\n", v.name, w)
                                              : fmt::format("fabricsim: warning: {}\n", w);
    return out;
}

std::string status_lines(const RunResult& result) {
    if (result.complete()) return {};
    std::string out = "fabricsim: INCOMPLETE RESULT: these figures are not those of a finished, sound run\n";
    for (const VariantResult& v : result.variants) {
        for (const std::string& problem : v.problems)
            out += fmt::format("  variant \"{}\" FAILED: {}\n", v.name, problem);
        if (v.cut_short)
            out += fmt::format("  variant \"{}\" cut short by simulation.stop_time at {}: {} unfinished; the "
                               "figures cover the time simulated\n",
                               v.name, to_string(v.makespan), ops(v.unfinished_ops));
        if (!v.interrupted.empty())
            out += fmt::format("  variant \"{}\" interrupted by {} at {}: {} unfinished\n", v.name, v.interrupted,
                               to_string(v.makespan), ops(v.unfinished_ops));
    }
    if (result.variants.size() < result.variants_asked) {
        const std::size_t missing = result.variants_asked - result.variants.size();
        out += fmt::format("  {} of {} variants did not run\n", missing, result.variants_asked);
    }
    return out;
}

}  // namespace fabricsim::report
