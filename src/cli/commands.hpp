// The subcommands of `fabricsim`. Each returns the process exit code; errors propagate as
// exceptions to main(), which maps them: ConfigError 2, ModelError 3, anything else 1. `run`
// itself returns 3 when a variant's result is not complete and sound (run_variant.hpp), and
// 128 + the signal when SIGINT or SIGTERM stopped it.
#pragma once

#include "fabric/topology.hpp"
#include "scenario/loader.hpp"

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace fabricsim::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitModel = 3;  // also: a run whose result is not complete and sound
// A signal stopped the run: 128 + its number, as a shell reports it (130 SIGINT, 143 SIGTERM).
inline constexpr int kExitSignalBase = 128;

struct ScenarioArgs {
    std::string file;
    std::vector<std::string> sets;
    std::optional<std::uint64_t> seed;
    // The model run in place of the scenario's (`plan --model`); the warnings name it.
    std::optional<scenario::NetworkModel> model;
};

struct RunArgs {
    ScenarioArgs scenario;
    std::string out_dir;  // "" → outputs.dir → results/<name>
    bool quiet = false;
    bool check = false;                 // --check: the network's invariants during each variant too
    std::vector<std::string> variants;  // --variant: only these ("" none: all)
    int jobs = 0;                       // -j: variants at once; 0 every core
    std::string max_memory;             // --max-memory: "8GiB"; "" = the machine's available memory
    bool baseline = false;              // --baseline: each variant with faults also runs without them
    bool no_html = false;               // --no-html: no report.html in the results folder
};

int run_command(const RunArgs& args);
int validate_command(const ScenarioArgs& args, bool print);

// What main() prints to stderr and exits with when a command throws.
struct Failure {
    int exit_code;
    std::string text;  // one or more lines, each ending in '\n'
};
Failure describe_failure(const std::exception& error);

// The scenario named on the command line, with its --set and --seed, presets from config_dirs(),
// its warnings printed to stderr; the quiet one leaves them in LoadedScenario::warnings.
scenario::LoadedScenario load_scenario_args(const ScenarioArgs& args);
scenario::LoadedScenario load_scenario_quietly(const ScenarioArgs& args);

// The variant's cluster built; a cluster the builder rejects is a ConfigError naming the
// scenario file (and the variant when there are several).
fabric::Topology build_variant_topology(const scenario::LoadedScenario& loaded, const scenario::Variant& variant);

// What `validate` and `run` check beyond the loader, before anything is simulated: the
// cluster can be built, and a collective that names an in-network algorithm has a fabric that
// runs it (SHARP: InfiniBand switches with sharp: true). A ConfigError otherwise.
void check_variant_runs(const scenario::LoadedScenario& loaded, const scenario::Variant& variant);

// Preset folders: $FABRICSIM_CONFIG_DIR if set, then the source tree's configs/.
std::vector<std::string> config_dirs();

}  // namespace fabricsim::cli
