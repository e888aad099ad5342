#include "flow/dcqcn_standing_queue.hpp"

#include "flow/dcqcn_fluid.hpp"
#include "flow/dcqcn_fluid_fabric.hpp"

#include <algorithm>
#include <cmath>

namespace fabricsim::flow {

namespace {

// G(p) of the header: negative below p*, positive above.
double balance(const FluidParams& P, double capacity, int n, double p) {
    const double x = capacity / n / P.mtu, rc = capacity / n;
    const double lu = std::log1p(-p);
    auto u = [&](double k) { return std::exp(k * lu); };
    const double alpha = 1 - u(P.tau_alpha * x), cut = 1 - u(P.tau * x);
    const double nt = P.timer * x, nb = P.byte_counter > 0 ? P.byte_counter / P.mtu : 0.0;
    const double past = u((P.fast_recovery + 1) * std::max(nt, nb));
    double events = 0, increase = 0;
    for (double k : {nt, nb}) {
        if (!(k > 0)) continue;
        const double ev = event_rate(x, p, lu, k);
        events += ev;
        increase += ev * (P.rate_ai * std::max(0.0, u(P.fast_recovery * k) - past) + P.rate_hai * past);
    }
    return rc * alpha * cut * cut - P.tau * P.tau * events * increase;
}

Time time_of(double bytes, double bytes_per_s) {
    return Time::ps(static_cast<std::int64_t>(std::ceil(bytes / bytes_per_s * 1e12)));
}

}  // namespace

double dcqcn_fixed_point_marking(const FluidParams& params, double capacity, int flows) {
    double lo = 1e-12, hi = 1 - 1e-12;
    if (balance(params, capacity, flows, lo) >= 0) return lo;
    if (balance(params, capacity, flows, hi) <= 0) return hi;
    for (int i = 0; i < 100; ++i) {
        const double mid = std::sqrt(lo * hi);
        (balance(params, capacity, flows, mid) < 0 ? lo : hi) = mid;
    }
    return lo;
}

double dcqcn_standing_queue(const FluidParams& params, const congestion::RedParams& red, double capacity, int flows) {
    const double kmin = static_cast<double>(red.kmin.count()), kmax = static_cast<double>(red.kmax.count());
    if (!(red.pmax > 0)) return kmax;
    const double p = dcqcn_fixed_point_marking(params, capacity, flows);
    return p <= red.pmax ? kmin + p * (kmax - kmin) / red.pmax : kmax;
}

StandingQueues::StandingQueues(const fabric::Topology& topology, const scenario::ClusterSpec& c) : topology_(topology) {
    const bool roce = c.fabric.technology == scenario::Technology::roce;
    on_ = roce && c.roce.ecn.enabled && c.roce.dcqcn.enabled;
    red_.assign(topology.directed_link_count(), congestion::RedParams{Bytes::zero(), Bytes::zero(), 0.0});
    if (!on_) return;
    params_ = fluid_params_of(c);
    for (std::uint32_t i = 0; i < red_.size(); ++i) {
        const fabric::DirectedLink dl = fabric::DirectedLink::from_index(i);
        if (!fabric::is_fabric_switch(topology.node(topology.source(dl)).kind)) continue;
        const Bandwidth speed = topology.link(dl.link).bandwidth;
        const scenario::EcnThresholds t = scenario::ecn_thresholds(c.roce.ecn, speed);
        red_[i] = congestion::RedParams{t.kmin, t.kmax, c.roce.ecn.pmax};
    }
}

Time StandingQueues::delay(std::uint32_t l, std::size_t flows, std::uint32_t unit) const {
    const fabric::Link& link = topology_.link(fabric::DirectedLink::from_index(l).link);
    const double capacity = static_cast<double>(link.payload_bandwidth().bits_per_second()) / 8.0;
    const Time half_packet = time_of(0.5 * static_cast<double>(unit), capacity);
    if (!on_ || !(red_[l].pmax > 0) || flows == 0) return half_packet;
    const std::uint64_t key = (static_cast<std::uint64_t>(l) << 32) | std::min<std::size_t>(flows, UINT32_MAX);
    auto it = cache_.find(key);
    if (it == cache_.end()) {
        const double q =
            dcqcn_standing_queue(params_, red_[l], capacity, static_cast<int>(std::min<std::size_t>(flows, 1 << 30)));
        it = cache_.emplace(key, time_of(q, capacity)).first;
    }
    return std::max(half_packet, it->second);
}

}  // namespace fabricsim::flow
