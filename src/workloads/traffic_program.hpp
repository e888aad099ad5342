// A `- traffic:` entry as an OpProgram (op_program.hpp; docs/ARCHITECTURE.md, "Streaming"): its
// flows (TrafficFlows, traffic.hpp) are made as the run reaches them and forgotten once done,
// but for their timings, which are the entry's results (transfers.csv's rows, the FCT
// percentiles): 16 bytes a flow.
//
//   permutation, incast, all_to_all, storage  every flow is released as the entry opens, in
//                its number's order, as a whole graph releases them
//   poisson      a sender's next arrival is released when its previous one is issued: one
//                pending arrival per sender instead of an event per flow of the whole window
//   gpu_pool     a chain's call is released when the call before it has finished, in the
//                order of its flows
//
// Flows are released in their numbers' order, as add_traffic's graph would release them, so
// event ties stay as they were; poisson's are the exception: its arrivals are scheduled one
// ahead per sender instead of all at the start, so two events at the same picosecond — an
// arrival and another event — may run in another order (a tie of integer picoseconds between
// exponential arrival times).
#pragma once

#include "workloads/executor.hpp"
#include "workloads/op_program.hpp"
#include "workloads/traffic.hpp"

#include <vector>

namespace fabricsim::workloads {

class TrafficProgram final : public OpProgram {
public:
    // Throws InternalError as add_traffic does.
    TrafficProgram(const scenario::TrafficSpec& spec, const scenario::ClusterSpec& cluster, std::uint64_t seed,
                   const std::string& entry_name, std::uint32_t entry);

    // The plan, numbered by flow (first_op = 0, end_op = the flows' count), and each flow's
    // timing: issued (start) and delivered (finish); never issued or never delivered: max.
    const TrafficPlan& plan() const { return plan_; }
    const TrafficFlows& flows() const { return flows_; }
    const OpTiming& timing(std::uint64_t flow) const { return timings_[flow]; }

    void begin(ReadyOps& ready) override;
    Op op(std::uint64_t local) const override;
    bool wants_issued() const override { return true; }
    void issued(std::uint64_t local, Time now, ReadyOps& ready) override;
    void finished(std::uint64_t local, Time start, Time finish, ReadyOps& ready) override;
    bool done() const override { return left_ == 0; }
    std::uint64_t ops_total() const override { return flows_.count(); }

private:
    void release_call(std::uint64_t call, bool in, ReadyOps& ready);  // gpu_pool

    TrafficFlows flows_;
    TrafficPlan plan_;
    std::vector<OpTiming> timings_;
    std::vector<std::uint8_t> waiting_;  // gpu_pool: per chain, flows of its current phase not done
    std::uint64_t left_ = 0;
};

}  // namespace fabricsim::workloads
