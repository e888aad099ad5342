// The shared machinery of the collective algorithms: adds sends to an OpGraph with the two
// dependencies every NCCL-style protocol has — data (a block goes on only after the block it
// depends on has arrived) and flow control (at most kWindow messages in flight per
// connection: channel × sender × receiver) — plus an optional barrier that the whole run
// waits for (the previous iteration).
//
// A slot of a connection's buffer is free again when the receiver has consumed the message in
// it (NCCL_STEPS = 8 slots per connection, NCCL src/include/device.h). A receiver that only
// receives consumes a message as it arrives, so `send` waits for the (window)-th previous send
// on its connection to have arrived. A receiver that forwards consumes it by forwarding: NCCL's
// primitive for a step (recvReduceSend, recvCopySend; a tree root's recvReduceCopySend, which
// reduces from its children and broadcasts to them in one step: runTreeSplit in NCCL
// src/device/all_reduce.h) frees the receive slot only once it has written the step into the
// next connection's buffer. `forward` models that: its slot waits for every send the receiver
// forwarded the (window)-th previous message in. Without it a hop's sender runs ahead of a
// slower next hop as far as the bytes go (a tree's reduction ahead of its broadcast), and what
// waits in between grows with the run; with it the distance is at most the window per hop.
#pragma once

#include "workloads/op_graph.hpp"

#include <cstdint>
#include <initializer_list>
#include <map>
#include <span>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace fabricsim::workloads {

class SendChain {
public:
    SendChain(OpGraph& graph, std::uint32_t entry, OpId barrier, int window);

    // A send of `size` from src to dst on `channel`, after every op in `after` (invalid ids
    // are skipped) and after the (window)-th previous send on its connection.
    OpId send(RankId src, RankId dst, Bytes size, int channel, std::int16_t rail, std::initializer_list<OpId> after);
    OpId send(RankId src, RankId dst, Bytes size, int channel, std::int16_t rail, std::span<const OpId> after);
    // The same, for an algorithm whose receivers forward: `after` are the sends whose data this
    // one forwards (those into src), and the (window)-th previous send on the connection frees
    // its slot when every send dst forwarded it in has arrived (when dst forwarded it in none:
    // when it arrived). Only sends made with forward() count as forwarding.
    OpId forward(RankId src, RankId dst, Bytes size, int channel, std::int16_t rail, std::span<const OpId> after);

    OpGraph& graph() { return graph_; }

private:
    // The op with its barrier and data dependencies; its connection's history, of which it is
    // the last; the (window)-th previous send on the connection (invalid: none).
    OpId add(RankId src, RankId dst, Bytes size, int channel, std::int16_t rail, std::span<const OpId> after,
             OpId& slot);

    OpGraph& graph_;
    std::uint32_t entry_;
    OpId barrier_;
    int window_;
    std::map<std::tuple<int, std::uint32_t, std::uint32_t>, std::vector<OpId>> connections_;
    std::unordered_map<std::uint32_t, std::vector<OpId>> forwarded_in_;  // a send: the sends that forwarded it
};

// `size` split into `parts` nearly equal whole-byte parts (the first size % parts one byte
// larger), so that no byte is lost or invented.
Bytes share(Bytes size, std::int64_t parts, std::int64_t index);

}  // namespace fabricsim::workloads
