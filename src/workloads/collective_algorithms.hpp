// The algorithms, one channel at a time. Each appends the sends of one channel's share of a
// collective to a SendChain; `order` lists the group's ranks in the channel's ring order.
// Internal to src/workloads/: collective.cpp chooses and calls them.
#pragma once

#include "scenario/collective_spec.hpp"
#include "workloads/collective.hpp"
#include "workloads/periodic_run.hpp"
#include "workloads/rank_layout.hpp"
#include "workloads/send_chain.hpp"

#include <string>
#include <vector>

namespace fabricsim::workloads {

struct ChannelContext {
    SendChain& chain;
    const RankLayout& layout;
    int channel;
    // Rings enter and leave each server through the channel's NIC (NCCL: `NET/c … NET/c`);
    // point-to-point schedules (pairwise, halving-doubling) use each rank's own NIC.
    bool rail_aligned = false;
    Bytes message_bytes = kMessageBytes;  // the largest message a block is sent in
    // The units (messages) an algorithm that cuts its bytes into them builds (periodic_run.hpp);
    // null: all of them.
    const UnitWindow* units = nullptr;
    // The NIC index a message leaving a server uses on this channel; -1: the ranks' own.
    std::int16_t rail(RankId src, RankId dst) const;
};

// Ring: `steps` rounds in which every rank sends one block to the next rank, each block
// forwarded (reduced or copied) from the one received in the round before. All-reduce is
// 2(n−1) rounds (reduce-scatter then all-gather), reduce-scatter and all-gather n−1, each
// block 1/n of the channel's bytes, sent in loops of messages of at most ctx.message_bytes.
void ring_rounds(ChannelContext& ctx, const std::vector<RankId>& order, Bytes channel_bytes, int steps);

// Pipelined ring broadcast from order[0]: every message hops n−1 times, each hop under its
// receiver's consumption (SendChain::forward).
void ring_broadcast(ChannelContext& ctx, const std::vector<RankId>& order, Bytes channel_bytes);

// Rabenseifner's all-reduce (recursive-halving reduce-scatter, then recursive-doubling
// all-gather); n must be a power of two. `reduce_scatter`/`all_gather` select the halves.
void halving_doubling(ChannelContext& ctx, const std::vector<RankId>& order, Bytes channel_bytes, bool reduce_scatter,
                      bool all_gather);

// Pairwise exchange all-to-all: in round k every rank sends its block for rank (i+k) mod n,
// after its round k−1 block has arrived.
void pairwise_all_to_all(ChannelContext& ctx, const std::vector<RankId>& order, Bytes channel_bytes);

// nccl-tests' sendrecv: every rank sends its whole buffer to the next rank in `order`.
void shift_send_recv(ChannelContext& ctx, const std::vector<RankId>& order, Bytes channel_bytes);

// NCCL's double binary tree all-reduce (tree.cpp): two trees over the servers (ranks, inside
// one server), each carrying half the bytes, with a chain inside each server. `order` lists
// each server's ranks together, the chain head (the rank on the channel's rail) first.
void double_binary_tree_all_reduce(ChannelContext& ctx, const std::vector<RankId>& order, Bytes channel_bytes);
// Hops from the deepest rank to the root, the larger of the two trees.
int tree_depth(const std::vector<RankId>& order, const RankLayout& layout);

// Algorithms planned for a whole run rather than per channel. Their ops wait for `barrier`
// (the previous run) when it is valid.
struct RunContext {
    OpGraph& graph;
    std::uint32_t entry;
    OpId barrier;
    const RankLayout& layout;
    const UnitWindow* units = nullptr;  // the pieces built (periodic_run.hpp); null: all
};

// Hierarchical all-reduce (hierarchical.cpp): reduce-scatter inside each server, an
// all-reduce of S/g across servers among the ranks with the same local index (rings on their
// own NIC, or with `sharp` one switch-aggregation group per index), all-gather inside; the
// inside phases by NVLS when `network` offers it, by `channels` rings otherwise. Pipelined in
// pieces of g·kMessageBytes; NVLS with SHARP in NCCL's NVLS pieces, one stage per phase.
// Every server holds the same number g of the group's ranks.
void hierarchical_all_reduce(RunContext& run, const std::vector<RankId>& group, Bytes size, int channels, bool sharp,
                             const Network* network);

// NVLS (in_network.cpp): the whole collective as one NVSwitch group operation.
void nvls_collective(RunContext& run, scenario::CollectiveOp op, const std::vector<RankId>& group, Bytes size);

// What add_collective does per entry and per size, for the streaming program too
// (collective.cpp). The group: the spec's ranks (all when empty), sorted.
std::vector<RankId> collective_group(const scenario::CollectiveSpec& spec, const RankLayout& layout);
// Throws ModelError when the algorithm cannot run on the group (see add_collective).
void check_collective(const scenario::CollectiveSpec& spec, const std::vector<RankId>& group, const RankLayout& layout,
                      const Network* network);
// Channel c's ring order (rail-aligned across servers).
std::vector<RankId> ring_order(const std::vector<RankId>& group, const RankLayout& layout, int channel);
// Bytes the rank at `position` of a ring of n sends over `steps` steps of one loop of `bytes`:
// its blocks (position − k) mod n, k < steps, as share() cuts them.
Bytes ring_sent_in_loop(Bytes bytes, std::int64_t n, std::int64_t steps, std::int64_t position);
// A channel of one loop as one group op (Offload::ring_channel): ranks in ring order, each
// sending the most any rank of the ring sends; and the op that starts it.
GroupOp ring_channel_group(const std::vector<RankId>& order, Bytes bytes, std::int64_t steps);
Op ring_channel_op(const std::vector<RankId>& order, Bytes bytes, std::uint32_t channel, std::int16_t rail);

struct SizeChoice {
    scenario::CollectiveAlgorithm algorithm;  // as resolved
    std::string reason;                       // why auto chose it ("" when the user chose)
    int channels = 0;
};
SizeChoice choose_for_size(const scenario::CollectiveSpec& spec, const std::vector<RankId>& group, Bytes size,
                           const RankLayout& layout, const Network* network, Bytes message_bytes);
// One run's ops (every one after `barrier` when it is valid), appended to `graph` under `entry`;
// of the algorithms that cut their bytes into units, only the units `units` names (null: all).
void build_run(OpGraph& graph, std::uint32_t entry, OpId barrier, const scenario::CollectiveSpec& spec,
               const SizeChoice& choice, const std::vector<RankId>& group, Bytes size, const RankLayout& layout,
               const Network* network, Bytes message_bytes, const UnitWindow* units = nullptr);

}  // namespace fabricsim::workloads
