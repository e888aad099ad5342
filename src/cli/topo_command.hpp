// `fabricsim topo x.yaml [--set k=v]... [--variant NAME] [--dot FILE] [--dot-servers] [--json]`:
// builds every variant's topology and prints its summary (fabric/topology_summary.hpp).
//
// Text: one block per variant. JSON: one object whose top-level keys are the README.md's "Using it"
// figures of the first variant (or of --variant), with "variant" naming it, and "variants"
// holding every printed variant's object, so a one-variant scenario reads as
// `jq .bisection_bandwidth_bps` and a comparison as `jq '.variants[].diameter_hops'`.
// --dot writes GraphViz (servers collapsed unless --dot-servers); with several variants the
// file name gets the variant before its extension: topo.dot -> topo.<variant>.dot.
// A fabric that cannot be built is a ConfigError: exit 2, naming the largest buildable size.
#pragma once

#include "cli/commands.hpp"

#include <string>

namespace fabricsim::cli {

struct TopoArgs {
    ScenarioArgs scenario;
    std::string variant;       // "" = all variants
    std::string dot_file;      // "" = no GraphViz file
    bool dot_servers = false;  // expand servers in the dot file
    bool json = false;
};

// What `fabricsim topo` prints (and the dot files it writes). Throws like the other commands.
std::string topo_output(const TopoArgs& args);

int topo_command(const TopoArgs& args);

}  // namespace fabricsim::cli
