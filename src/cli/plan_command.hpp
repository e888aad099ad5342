// `fabricsim plan x.yaml [--set k=v]... [--variant NAME]... [--gpus 1024,2048]
//                 [--model flow|ideal|packet|none] [--prices FILE] [--run-up-to GPUS] [--json]`:
// the capacity plan of every variant (report/capacity_plan.hpp, docs/PLANNING.md).
//
// --gpus scales cluster.servers to each size (GPUs / GPUs per server, which must divide) and
// plans every variant at every size. The workload runs on --model, default flow: the fast model
// that sees the fabric, so designs that differ in it (oversubscription, rails, routing) differ
// in their times, where the ideal model gives every design the same ones. Designs above
// --run-up-to GPUs (default 4096) are planned without running it, with a note, since a large
// run takes minutes. --model none runs nothing.
// --prices defaults to prices/default.yaml in the preset folders ($FABRICSIM_CONFIG_DIR, then
// configs/).
#pragma once

#include "cli/commands.hpp"

#include <string>
#include <vector>

namespace fabricsim::cli {

struct PlanArgs {
    ScenarioArgs scenario;
    std::vector<std::string> variants;  // empty: all
    std::string gpus;                   // "1024,2048,4096"; "" = the scenario's size
    std::string model = "flow";         // flow | ideal | packet | none
    std::string prices;                 // "" = prices/default.yaml in config_dirs()
    int run_up_to = 4096;
    bool json = false;
    bool quiet = false;  // no progress lines on stderr
};

// What `fabricsim plan` prints. Throws ConfigError for bad input.
std::string plan_output(const PlanArgs& args);

int plan_command(const PlanArgs& args);

}  // namespace fabricsim::cli
