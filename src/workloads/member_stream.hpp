// MemberStream: a collective inside a graph that its graph opens member by member
// (OpGraph::add_stream; a training job's ring reductions, ring_stream.hpp, and expert
// all-to-alls, all_to_all_stream.hpp), with what the job's figures read of it once done: the
// bytes its members sent, inside servers and between them.
#pragma once

#include "core/units.hpp"
#include "workloads/op_program.hpp"

#include <cstdint>
#include <vector>

namespace fabricsim::workloads {

class MemberStream : public OpProgram {
public:
    void begin(ReadyOps& /*ready*/) final {}  // it starts member by member (open)
    bool done() const final { return left_ == 0; }
    std::uint64_t ops_total() const final { return total_; }
    const std::vector<RankId>& members() const { return group_; }  // (group() is an op's GroupOp)
    // Bytes its finished sends carried, by sending member, and inside / between servers.
    const std::vector<Bytes>& sent_by_member() const { return sent_; }
    Bytes sent_inside_servers() const { return inside_; }
    Bytes sent_between_servers() const { return between_; }

protected:
    explicit MemberStream(const std::vector<RankId>& group) : group_(group), sent_(group.size(), Bytes::zero()) {}
    void count(std::uint32_t member, bool inside, Bytes size) {
        sent_[member] += size;
        (inside ? inside_ : between_) += size;
    }
    std::uint64_t total_ = 0;  // its sends
    std::uint64_t left_ = 0;   // not yet finished

private:
    std::vector<RankId> group_;
    std::vector<Bytes> sent_;
    Bytes inside_, between_;
};

}  // namespace fabricsim::workloads
