// `fabricsim sweep x.yaml [--set k=v]... [-j N] [--out DIR]`: runs every point of the scenario's
// `sweep:` grid (report/sweep_grid.hpp) and every variant at each, on the local cores with a
// progress bar, and writes DIR/sweep.csv, sweep.json and sweep.html (plots over the swept keys).
// `--emit-slurm DIR` writes a Slurm job array instead; `sweep --collect DIR` gathers its results
// into the same table. docs/REPORTS.md, "Sweeps".
//
// DIR (default results/<name>-sweep) holds
//   manifest.json           the axes and one row per point and variant: its values and hash
//   jobs/<hash>.yaml        the point's resolved scenario (validate --print of it), one variant
//   results/<hash>/         what `fabricsim run` writes for it; summary.csv marks it done
//   jobs.txt, sweep.sbatch  with --emit-slurm: the hashes, and the array script (task i runs
//                           line i+1, and exits at once when its results are there)
// A point is keyed by the hash of its resolved scenario, so a rerun, local or on Slurm, skips
// every point whose summary.csv is already there, and a changed scenario never reuses one.
#pragma once

#include "cli/commands.hpp"

#include <string>

namespace fabricsim::cli {

struct SweepArgs {
    ScenarioArgs scenario;  // file is "" with --collect
    int jobs = 0;
    std::string out;         // "" = results/<name>-sweep
    std::string emit_slurm;  // DIR
    std::string collect;     // DIR
    bool quiet = false;
};

int sweep_command(const SweepArgs& args);

}  // namespace fabricsim::cli
