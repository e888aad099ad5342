#include "flow/dcqcn_fluid.hpp"

#include "core/errors.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace fabricsim::flow {

namespace {
double seconds(Time t) { return static_cast<double>(t.picoseconds()) * 1e-12; }
double bytes_per_s(Bandwidth b) { return static_cast<double>(b.bits_per_second()) / 8.0; }
}  // namespace

FluidParams fluid_params(const congestion::DcqcnParams& d, Bytes mtu, Bandwidth line_rate) {
    d.validate();
    FluidParams p;
    p.g = d.g;
    p.mtu = static_cast<double>(std::max<std::int64_t>(mtu.count(), 1));
    // A cut needs a CNP in the decrease period: the NIC checks every rate_decrease_interval;
    // the per-CNP reaction cuts on each CNP, which the receiver paces to one per cnp_interval
    // (one per marked packet at zero: then the period is a packet time).
    const double packet_time = p.mtu / bytes_per_s(line_rate);
    p.tau = d.reaction == congestion::DcqcnReaction::periodic ? seconds(d.rate_decrease_interval)
                                                              : std::max(seconds(d.cnp_interval), packet_time);
    p.tau_alpha = seconds(d.alpha_update_interval);
    p.timer = seconds(d.rate_increase_timer);
    p.byte_counter = static_cast<double>(d.byte_counter.count());
    p.fast_recovery = d.fast_recovery_steps;
    p.rate_ai = bytes_per_s(d.rate_ai);
    p.rate_hai = bytes_per_s(d.rate_hai);
    p.min_rate = bytes_per_s(d.min_rate);
    p.clamp_target = d.clamp_target_rate;
    p.periodic = d.reaction == congestion::DcqcnReaction::periodic;
    p.react = true;
    return p;
}

DcqcnFluid::DcqcnFluid(FluidParams params, Time step, Time max_delay) : params_(params), step_(step) {
    if (step <= Time::zero()) throw InternalError("DCQCN fluid model: the step must be positive");
    if (max_delay < Time::zero()) throw InternalError("DCQCN fluid model: a negative feedback delay");
    const std::int64_t steps = (max_delay.picoseconds() + step.picoseconds() / 2) / step.picoseconds();
    if (steps > 1'000'000)
        throw ModelError(fmt::format("DCQCN fluid model: a feedback delay of {} steps; use a longer step", steps));
    depth_ = static_cast<std::uint32_t>(steps) + 1;
}

std::uint32_t DcqcnFluid::add_link(const FluidLink& link) {
    if (started_) throw InternalError("DCQCN fluid model: a link added after start()");
    link.red.validate();
    capacity_.push_back(bytes_per_s(link.capacity));
    kmin_.push_back(static_cast<double>(link.red.kmin.count()));
    kmax_.push_back(static_cast<double>(link.red.kmax.count()));
    pmax_.push_back(link.red.pmax);
    qmax_.push_back(static_cast<double>(link.queue_limit.count()));
    return static_cast<std::uint32_t>(capacity_.size() - 1);
}

void DcqcnFluid::begin_flow(Bandwidth line, double bytes, Time feedback_delay, Bandwidth initial) {
    if (started_) throw InternalError("DCQCN fluid model: a flow added after start()");
    if (line <= Bandwidth::zero() || !(bytes > 0) || feedback_delay < Time::zero())
        throw InternalError(fmt::format("DCQCN fluid model: flow {} with line rate {} b/s, {} B, delay {} ps", flows(),
                                        line.bits_per_second(), bytes, feedback_delay.picoseconds()));
    line_.push_back(bytes_per_s(line));
    const double r = std::min(bytes_per_s(initial), line_.back());
    rc_.push_back(r);
    rt_.push_back(r);
    alpha_.push_back(1.0);  // as the packet model's first CNP sets it (dcqcn.hpp)
    send_.push_back(0.0);
    left_.push_back(bytes);
    finished_.push_back(0);
    const std::int64_t d = (feedback_delay.picoseconds() + step_.picoseconds() / 2) / step_.picoseconds();
    if (d >= depth_)
        throw InternalError(
            fmt::format("DCQCN fluid model: a feedback delay of {} steps beyond the {} allowed", d, depth_ - 1));
    delay_.push_back(static_cast<std::uint32_t>(d));
}

void DcqcnFluid::add_use(std::uint32_t link, double share) {
    if (link >= links() || !(share > 0) || share > 1)
        throw InternalError(
            fmt::format("DCQCN fluid model: a use of link {} of {} with share {}", link, links(), share));
    link_of_.push_back(link);
    share_.push_back(share);
}

void DcqcnFluid::end_flow() { first_.push_back(static_cast<std::uint32_t>(link_of_.size())); }

std::uint32_t DcqcnFluid::add_flow(Bandwidth line, double bytes, Time feedback_delay, Bandwidth initial,
                                   std::initializer_list<std::pair<std::uint32_t, double>> uses) {
    begin_flow(line, bytes, feedback_delay, initial);
    for (const auto& [l, s] : uses) add_use(l, s);
    end_flow();
    return static_cast<std::uint32_t>(flows() - 1);
}

void DcqcnFluid::start() {
    if (started_) return;
    if (first_.size() != flows() + 1) throw InternalError("DCQCN fluid model: a flow begun but not ended");
    // The transpose of the uses, in flow order per link: both backends sum a link's arrivals
    // in this order, so they add the same terms in the same sequence.
    link_first_.assign(links() + 1, 0);
    for (std::uint32_t l : link_of_) ++link_first_[l + 1];
    for (std::size_t l = 0; l < links(); ++l) link_first_[l + 1] += link_first_[l];
    use_of_.resize(link_of_.size());
    flow_of_.resize(link_of_.size());
    std::vector<std::uint32_t> next(link_first_.begin(), link_first_.end() - 1);
    for (std::uint32_t f = 0; f < flows(); ++f)
        for (std::uint32_t k = first_[f]; k < first_[f + 1]; ++k) {
            const std::uint32_t at = next[link_of_[k]]++;
            use_of_[at] = k;
            flow_of_[at] = f;
        }
    queue_.assign(links(), 0.0);
    mark_.assign(links(), 0.0);
    throttle_.assign(links(), 1.0);
    arrival_.assign(links(), 0.0);
    // Before the first step every flow sends at its initial rate with nothing marked.
    hist_p_.assign(flows() * depth_, 0.0);
    hist_rc_.resize(flows() * depth_);
    for (std::size_t f = 0; f < flows(); ++f) {
        std::fill_n(hist_rc_.begin() + static_cast<std::ptrdiff_t>(f * depth_), depth_, rc_[f]);
        send_[f] = rc_[f];
    }
    started_ = true;
}

FluidArrays DcqcnFluid::arrays() {
    if (!started_) throw InternalError("DCQCN fluid model: arrays() before start()");
    FluidArrays a;
    a.links = links();
    a.flows = flows();
    a.depth = depth_;
    a.capacity = capacity_.data();
    a.kmin = kmin_.data();
    a.kmax = kmax_.data();
    a.pmax = pmax_.data();
    a.qmax = qmax_.data();
    a.link_first = link_first_.data();
    a.use_of = use_of_.data();
    a.flow_of = flow_of_.data();
    a.first = first_.data();
    a.link_of = link_of_.data();
    a.share = share_.data();
    a.line = line_.data();
    a.delay = delay_.data();
    a.queue = queue_.data();
    a.mark = mark_.data();
    a.throttle = throttle_.data();
    a.arrival = arrival_.data();
    a.rc = rc_.data();
    a.rt = rt_.data();
    a.alpha = alpha_.data();
    a.send = send_.data();
    a.left = left_.data();
    a.finished = finished_.data();
    a.hist_p = hist_p_.data();
    a.hist_rc = hist_rc_.data();
    return a;
}

void DcqcnFluid::run(std::uint64_t n) {
    start();
    const FluidArrays a = arrays();
    const double h = seconds(step_);
    for (std::uint64_t i = 0; i < n; ++i, ++steps_) {
        for (std::size_t l = 0; l < a.links; ++l) fluid_link_step(a, l, h);
        for (std::size_t f = 0; f < a.flows; ++f) fluid_flow_step(params_, a, f, steps_, h);
    }
}

void DcqcnFluid::run_on(FluidDevice& device, std::uint64_t n) {
    start();
    const FluidArrays a = arrays();
    device.upload(a, params_, seconds(step_), steps_);
    device.run(n);
    steps_ += device.download(a);
}

Time DcqcnFluid::queueing_delay(std::uint32_t f) const {
    double s = 0;
    for (std::uint32_t k = first_[f]; k < first_[f + 1]; ++k) s += queue_[link_of_[k]] / capacity_[link_of_[k]];
    return Time::ps(static_cast<std::int64_t>(std::ceil(s * 1e12)));
}

}  // namespace fabricsim::flow
