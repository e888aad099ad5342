#include "report/fault_figures.hpp"

#include "core/units_format.hpp"

#include <fmt/format.h>

#include <set>
#include <string>
#include <utility>

namespace fabricsim::report {

std::vector<FaultResult> fault_results(const scenario::ScenarioSpec& spec, const fabric::FaultInjector* injector,
                                       Time run_end, const std::vector<PortReport>& ports) {
    std::set<std::pair<std::string, std::string>> paused;  // a port: (from, to), any class
    for (const auto& p : ports)
        if (p.paused > Time::zero()) paused.emplace(p.from, p.to);
    std::vector<fabric::FaultDamage> damage;
    if (injector != nullptr) damage = injector->damage();
    std::vector<FaultResult> out;
    std::size_t next = 0;  // the injector keeps the network faults in the scenario's order
    for (const auto& f : spec.faults) {
        FaultResult r;
        r.name = f.name;
        r.kind = std::string(scenario::to_string(f.kind));
        if (f.kind == scenario::FaultKind::straggler) {
            r.target = fmt::format("rank {} ({}x slower)", f.rank.value(), f.slowdown);
            r.at = f.at;
            r.times_down = f.at <= run_end ? 1 : 0;
            r.end = f.end() <= run_end ? f.end() : Time::max();
        } else if (next < damage.size()) {
            const fabric::FaultDamage& d = damage[next++];
            r.target = d.target;
            r.at = d.at;
            r.end = d.end;
            r.reconverged = d.reconverged;
            r.times_down = d.times_down;
            r.packets_lost = d.packets_lost;
            if (f.kind == scenario::FaultKind::stuck_receiver)
                r.ports_paused = static_cast<std::int64_t>(paused.size());
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<SlowdownRow> compare_with_baseline(const VariantResult& with, const VariantResult& without) {
    std::vector<SlowdownRow> rows;
    for (const auto& c : with.collectives)
        for (const auto& b : without.collectives)
            if (b.name == c.name && b.bytes == c.bytes) {
                rows.push_back({fmt::format("collective {} {}", c.name, c.bytes), c.time, b.time});
                break;
            }
    for (const auto& t : with.training)
        for (const auto& b : without.training)
            if (b.name == t.name) {
                rows.push_back({fmt::format("training {} iteration", t.name), t.iteration_time, b.iteration_time});
                break;
            }
    rows.push_back({"makespan", with.makespan, without.makespan});
    return rows;
}

}  // namespace fabricsim::report
