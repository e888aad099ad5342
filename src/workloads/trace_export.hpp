// Writes one entry of a whole OpGraph as Chakra execution traces, one file per rank (the
// parametric training job replayed as a trace: `fabricsim export-trace` and the tests that check
// the replay against the job; docs/models/traces.md).
//
// A compute op is a COMP_NODE of its duration (duration_micros, and fabricsim's `duration_ps`
// to keep it exact); a send is a COMM_SEND_NODE on its source and a COMM_RECV_NODE on its
// destination, tagged with the op's id so that each meets only its own receive. A dependency
// on an op of the same rank is a data dependency on its node; on a send to this rank, on the
// receive. A dependency between two other ranks has no place in a trace: it is left out when
// one of the two is a zero-time barrier (the job's start and end), and is an error otherwise.
#pragma once

#include "workloads/op_graph.hpp"

#include <cstdint>
#include <string>

namespace fabricsim::workloads {

struct ExportedTrace {
    int ranks = 0;            // files written: ranks 0 .. ranks-1
    std::uint64_t nodes = 0;  // nodes in all of them
};

// `path` holds one "%d" for the rank. Throws ModelError for ops a trace cannot hold (in-network
// group ops, streams) and for a dependency between ranks that is not a message.
ExportedTrace export_trace(const OpGraph& graph, std::uint32_t entry, const std::string& path, int ranks);

}  // namespace fabricsim::workloads
