// The DCQCN fluid model (`simulation.flow_congestion: dcqcn`, docs/models/flow.md,
// "Congestion control"): per link a queue, its RED marking probability and a back-pressure
// factor; per flow DCQCN's current rate R_C, target rate R_T and α; advanced in fixed time
// steps with each flow's feedback delay τ*. The equations, their sources and our two
// additions (hyper increase, PFC/credit back-pressure) are in dcqcn_fluid_rules.hpp, which
// both backends run: the CPU loop here and the CUDA kernels (make_cuda_fluid()).
//
// A model is built once (links, then flows over them, then start()) and then only stepped:
// a flow that has sent its bytes stays, sending nothing. Time is an integer count of steps of
// `step` picoseconds; rates and queues are doubles (bytes/s, bytes), as in the max-min solver.
#pragma once

#include "congestion/dcqcn.hpp"
#include "congestion/red_marker.hpp"
#include "core/units.hpp"
#include "flow/dcqcn_fluid_device.hpp"
#include "flow/dcqcn_fluid_rules.hpp"

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace fabricsim::flow {

inline constexpr double kEndless = std::numeric_limits<double>::infinity();  // a flow's bytes: never ends

// The fluid parameters of a packet-model DCQCN parameter set (the same roce.dcqcn.* keys):
// τ is the rate-decrease period (the NIC's rate_decrease_interval; per-CNP reaction: the CNP
// interval, at least one packet time at `line_rate`), τ' the alpha period.
FluidParams fluid_params(const congestion::DcqcnParams& dcqcn, Bytes mtu, Bandwidth line_rate);

struct FluidLink {
    Bandwidth capacity;                                                   // payload rate
    congestion::RedParams red;                                            // marking thresholds (pmax 0: never marks)
    Bytes queue_limit = Bytes{std::numeric_limits<std::int64_t>::max()};  // back-pressure at this queue
};

class DcqcnFluid {
public:
    // `step`: the Euler step h (docs/models/flow.md says how to choose it); `max_delay`: the
    // longest feedback delay a flow may have (sizes each flow's history ring).
    DcqcnFluid(FluidParams params, Time step, Time max_delay);

    std::uint32_t add_link(const FluidLink& link);
    // A flow of `bytes` (kEndless: long-lived) at up to `line` (its NIC), starting at rate
    // `initial` (R_C = R_T), with feedback delay τ*, over (link, share) uses.
    std::uint32_t add_flow(Bandwidth line, double bytes, Time feedback_delay, Bandwidth initial,
                           std::initializer_list<std::pair<std::uint32_t, double>> uses);
    void begin_flow(Bandwidth line, double bytes, Time feedback_delay, Bandwidth initial);
    void add_use(std::uint32_t link, double share);
    void end_flow();
    // Builds the transposed uses and the history rings; no link or flow may be added after.
    // Throws InternalError on a malformed model.
    void start();

    // Advances `n` steps on this core.
    void run(std::uint64_t n);

    std::size_t links() const { return capacity_.size(); }
    std::size_t flows() const { return line_.size(); }
    std::uint64_t steps() const { return steps_; }
    Time step() const { return step_; }
    Time now() const { return step_ * static_cast<std::int64_t>(steps_); }
    const FluidParams& params() const { return params_; }

    double queue(std::uint32_t l) const { return queue_[l]; }        // bytes
    double mark(std::uint32_t l) const { return mark_[l]; }          // p_l
    double arrival(std::uint32_t l) const { return arrival_[l]; }    // bytes/s, last step
    double throttle(std::uint32_t l) const { return throttle_[l]; }  // θ_l
    double current_rate(std::uint32_t f) const { return rc_[f]; }    // R_C, bytes/s
    double target_rate(std::uint32_t f) const { return rt_[f]; }     // R_T, bytes/s
    double alpha(std::uint32_t f) const { return alpha_[f]; }
    double sending(std::uint32_t f) const { return send_[f]; }  // R_C·θ, bytes/s
    double bytes_left(std::uint32_t f) const { return left_[f]; }
    // The time a flow sent its last byte (the end of that step), or Time::max() while it sends.
    Time finished(std::uint32_t f) const {
        return finished_[f] == 0 ? Time::max() : step_ * static_cast<std::int64_t>(finished_[f]);
    }
    // Σ_l q_l / C_l over a flow's links: the queueing delay its next byte meets (a fluid FIFO).
    Time queueing_delay(std::uint32_t f) const;

    // The arrays the rules read and write (dcqcn_fluid_rules.hpp): for a device backend.
    FluidArrays arrays();
    // Runs `n` steps on `device` instead of this core: uploads the state, steps it there and
    // copies it back.
    void run_on(FluidDevice& device, std::uint64_t n);
    std::uint32_t depth() const { return depth_; }

private:
    FluidParams params_;
    Time step_;
    std::uint32_t depth_ = 1;
    bool started_ = false;
    std::uint64_t steps_ = 0;
    std::vector<double> capacity_, kmin_, kmax_, pmax_, qmax_;
    std::vector<std::uint32_t> link_first_, use_of_, flow_of_;
    std::vector<std::uint32_t> first_{0}, link_of_;
    std::vector<double> share_, line_;
    std::vector<std::uint32_t> delay_;
    std::vector<double> queue_, mark_, throttle_, arrival_;
    std::vector<double> rc_, rt_, alpha_, send_, left_;
    std::vector<std::uint64_t> finished_;
    std::vector<double> hist_p_, hist_rc_;
};

}  // namespace fabricsim::flow
