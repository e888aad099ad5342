#include "cli/fault_setup.hpp"

namespace fabricsim::cli {

bool has_network_faults(const scenario::ScenarioSpec& spec) {
    for (const auto& f : spec.faults)
        if (f.kind != scenario::FaultKind::straggler) return true;
    return false;
}

std::vector<workloads::Straggler> stragglers_of(const scenario::ScenarioSpec& spec) {
    std::vector<workloads::Straggler> out;
    for (const auto& f : spec.faults)
        if (f.kind == scenario::FaultKind::straggler) out.push_back({f.rank, f.at, f.end(), f.slowdown});
    return out;
}

}  // namespace fabricsim::cli
