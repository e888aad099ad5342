// cluster.clients: CPU-only client hosts on the compute fabric, the far end of `- traffic:
// gpu_pool` entries (docs/models/traffic.md, "gpu_pool").
#pragma once

#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

namespace fabricsim::scenario {

// `node` may be null (no clients) or `none` (a variant removes them).
ClientsSpec validate_clients(const Node* node, Issues& issues);

}  // namespace fabricsim::scenario
