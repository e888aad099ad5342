// `- transfer: { from, to, size, start }`: one message from one rank to another, the
// simplest workload and the unit of point-to-point tests.
#pragma once

#include "scenario/spec.hpp"
#include "workloads/op_graph.hpp"

namespace fabricsim::workloads {

void add_transfer(OpGraph& graph, std::uint32_t entry, const scenario::TransferSpec& transfer);

}  // namespace fabricsim::workloads
