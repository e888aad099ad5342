// RingStream: one ring collective inside a graph (a training job's TP or DP reduction) as an
// OpProgram that its graph opens member by member (OpGraph::add_stream, member_stream.hpp).
//
// A whole graph holds such a collective as ring_rounds' sends (ring.cpp), each of which also
// waits for its member's gate — the op after which that rank joins. The stream numbers the
// sends as ring_rounds made them, per channel (loop·steps + round)·n + position, derives their
// dependencies from the numbers (as CollectiveProgram does) and counts a member's gate as one
// more dependency of its first kWindow sends per connection (the later ones wait for those, so
// the gate is never the last of their dependencies). Opening a member releases its ready sends
// in their ids' order, which is the order in which the gate's successors were made: event ties
// stay those of the whole graph.
//
// For the critical path (training_measure.cpp) it follows, as sends finish, which op released
// each one (the dependency that finished last; ties: the lowest id, a gate before every send),
// and so knows which member's opening the last send's chain of releases goes back to.
//
// Coupled (a network that offers Offload::ring_channel, and every channel one loop: each ring
// step one message): a channel is one group op instead of steps · n sends, released when the
// last member has opened (docs/models/flow.md, "Rings as one flow"); its root is that member.
#pragma once

#include "core/units.hpp"
#include "scenario/collective_spec.hpp"
#include "workloads/member_stream.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace fabricsim::workloads {

class RankLayout;

class RingStream final : public MemberStream {
public:
    // One run of `op` over `group` in `channels` rings of at most `message_bytes` per send, as
    // build_run plans a ring (collective.cpp). `group` is sorted, as collective_group() makes it.
    // `coupled`: the network offers Offload::ring_channel for the group.
    RingStream(scenario::CollectiveOp op, const std::vector<RankId>& group, int channels, Bytes size,
               Bytes message_bytes, const RankLayout& layout, bool coupled = false);
    // Whether ring_rounds plans `op` (all-reduce, reduce-scatter, all-gather).
    static bool streams(scenario::CollectiveOp op);
    // The most members a stream tracks (a member is 16 bits; a channel's sends, 2(n−1)·n, 32).
    static constexpr std::size_t kMaxMembers = 46000;

    void open(std::uint32_t member, Time now, ReadyOps& ready) override;
    Op op(std::uint64_t local) const override;
    void finished(std::uint64_t local, Time start, Time finish, ReadyOps& ready) override;
    const GroupOp* group(std::uint64_t local) const override;
    std::uint32_t root() const override { return last_.root; }
    bool coupled() const { return !channel_ops_.empty(); }

private:
    // The op that released the last send so far: the latest finish, ties the lowest id (local + 1).
    struct Releaser {
        Time finish = Time::zero();
        std::uint64_t id = UINT64_MAX;  // UINT64_MAX: none yet
        std::uint32_t root = 0;
        void offer(Time t, std::uint64_t by, std::uint32_t by_root) {
            if (id == UINT64_MAX || t > finish || (t == finish && by < id)) *this = Releaser{t, by, by_root};
        }
    };
    // A send from its first finished dependency to its own finish, in 16 bytes (one is read per
    // release: the loop's cache misses): the op that released it so far (the latest finish, ties
    // the lowest index in the channel + 1, 0 being the gate) and the member its chain goes back to.
    struct Track {
        Time finish = Time::zero();
        std::uint32_t by = UINT32_MAX;  // UINT32_MAX: none yet
        std::uint16_t root = 0;
        std::uint8_t waits = 0xFF;  // dependencies left; kUntouched before the first
        bool retired = false;
        void offer(Time t, std::uint32_t id, std::uint16_t by_root) {
            if (by == UINT32_MAX || t > finish || (t == finish && id < by)) {
                finish = t;
                by = id;
                root = by_root;
            }
        }
    };
    static constexpr std::uint8_t kUntouched = 0xFF;
    static_assert(sizeof(Track) == 16, "one send's record is 16 bytes");

    // Sends of one channel between the oldest unfinished one and the newest touched one.
    class Window {
    public:
        Track& at(std::uint64_t index);
        void retire(std::uint64_t index);

    private:
        std::vector<Track> slots_;
        std::uint64_t base_ = 0, end_ = 0;
    };

    struct Ring {
        std::vector<RankId> order;
        std::vector<std::uint32_t> member;    // per position: index into group_
        std::vector<std::uint32_t> position;  // per member: its position
        std::vector<std::int16_t> rail;       // per position: its send's rail
        std::vector<bool> inside;             // per position: its send stays in the server
        Bytes bytes;
        std::int64_t loops = 0;
        std::int64_t n = 0;
        Window window;
    };

    std::uint8_t dependencies(std::int64_t p) const;
    void offer(std::size_t channel, std::int64_t p, std::int64_t i, Time t, std::uint32_t by, std::uint16_t root,
               ReadyOps& ready);

    void finished_channel(std::size_t channel, Time finish);

    std::vector<Ring> rings_;
    std::int64_t steps_ = 0;
    // Coupled: per channel its group op (ranks in ring order; empty for a channel with no
    // sends), and the members opened so far, the latest opening and the first member to open then.
    std::vector<GroupOp> channel_ops_;
    std::size_t opened_ = 0;
    Time latest_open_ = Time::zero();
    std::uint32_t latest_member_ = 0;
    Releaser last_;
};

}  // namespace fabricsim::workloads
