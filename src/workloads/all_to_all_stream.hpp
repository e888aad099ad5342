// AllToAllStream: one pairwise all-to-all inside a graph (a training job's expert dispatch or
// combine) as an OpProgram that its graph opens member by member (member_stream.hpp), instead
// of its c·n·(n−1) sends made whole into the job's step.
//
// pairwise_all_to_all (pairwise.cpp) sends, per channel, in round k = 1 … n−1 from the rank at
// position i of the channel's order to the one at (i + k) mod n, block (i + k) mod n of the
// channel's bytes, after its own round k−1 send; in the whole graph every send also waits for
// its member's gate (training.cpp). A connection carries one send per channel, so SendChain's
// window never binds, and a member's sends form one chain from its gate: its round-1 sends are
// released when it opens (channel by channel, the order in which the gate's successors were
// made) and its round-k send when its round k−1 send finishes, exactly when the whole graph
// releases them. The chain of releases of a member's last send goes back to that member.
//
// Memory: per channel the order and a member's position (8 bytes a member), whatever the
// all-to-all moves; nothing per send but the executor's slot while it is in flight.
#pragma once

#include "workloads/member_stream.hpp"

#include <cstdint>
#include <vector>

namespace fabricsim::workloads {

class RankLayout;

class AllToAllStream final : public MemberStream {
public:
    // One pairwise all-to-all of `size` over `group` (sorted, as collective_group gives it) in
    // `channels` channels, as build_run plans it (collective.cpp).
    AllToAllStream(const std::vector<RankId>& group, int channels, Bytes size, const RankLayout& layout);

    void open(std::uint32_t member, Time now, ReadyOps& ready) override;
    Op op(std::uint64_t local) const override;
    void finished(std::uint64_t local, Time start, Time finish, ReadyOps& ready) override;
    std::uint32_t root() const override { return root_; }

private:
    struct Channel {
        std::vector<RankId> order;
        std::vector<std::uint32_t> member;    // per position: index into group()
        std::vector<std::uint32_t> position;  // per member: its position
        std::vector<std::int32_t> server;     // per position
        Bytes bytes;
    };

    std::vector<Channel> channels_;
    std::int64_t n_ = 0;
    // The last send to finish so far (ties: the lowest id) and its member.
    Time last_finish_ = Time::zero();
    std::uint64_t last_ = UINT64_MAX;
    std::uint32_t root_ = 0;
};

}  // namespace fabricsim::workloads
