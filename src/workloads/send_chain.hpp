// The shared machinery of the collective algorithms: adds sends to an OpGraph with the two
// dependencies every NCCL-style protocol has — data (a block goes on only after the block it
// depends on has arrived) and flow control (at most kWindow messages in flight per
// connection: channel × sender × receiver) — plus an optional barrier that the whole run
// waits for (the previous iteration).
#pragma once

#include "workloads/op_graph.hpp"

#include <cstdint>
#include <initializer_list>
#include <map>
#include <span>
#include <tuple>
#include <vector>

namespace fabricsim::workloads {

class SendChain {
public:
    SendChain(OpGraph& graph, std::uint32_t entry, OpId barrier, int window);

    // A send of `size` from src to dst on `channel`, after every op in `after` (invalid ids
    // are skipped) and after the (window)-th previous send on its connection.
    OpId send(RankId src, RankId dst, Bytes size, int channel, std::int16_t rail, std::initializer_list<OpId> after);
    OpId send(RankId src, RankId dst, Bytes size, int channel, std::int16_t rail, std::span<const OpId> after);

    OpGraph& graph() { return graph_; }

private:
    OpGraph& graph_;
    std::uint32_t entry_;
    OpId barrier_;
    int window_;
    std::map<std::tuple<int, std::uint32_t, std::uint32_t>, std::vector<OpId>> connections_;
};

// `size` split into `parts` nearly equal whole-byte parts (the first size % parts one byte
// larger), so that no byte is lost or invented.
Bytes share(Bytes size, std::int64_t parts, std::int64_t index);

}  // namespace fabricsim::workloads
