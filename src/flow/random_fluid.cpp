#include "flow/random_fluid.hpp"

#include "flow/random_system.hpp"

#include <random>

namespace fabricsim::flow {

DcqcnFluid random_fluid_model(std::uint64_t seed, std::size_t flows, Time step) {
    const FlowSystem s = random_flow_system(seed, flows);
    std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
    DcqcnFluid m(fluid_params(congestion::DcqcnParams::nic(Bandwidth::Gbps(100)), Bytes{4096}, Bandwidth::Gbps(100)),
                 step, Time::us(8));
    for (double c : s.capacity) {
        const Bandwidth rate = Bandwidth::bps(static_cast<std::int64_t>(c * 8));
        FluidLink l{rate, congestion::RedParams::nic(rate)};
        if (rng() % 4 == 0) l.queue_limit = l.red.kmax;
        m.add_link(l);
    }
    for (std::size_t f = 0; f < s.flows(); ++f) {
        const Bandwidth line = Bandwidth::Gbps(100 * static_cast<std::int64_t>(1 + rng() % 4));
        const double bytes = rng() % 4 == 0 ? 1e6 : kEndless;
        m.begin_flow(line, bytes, Time::ns(1000 + static_cast<std::int64_t>(rng() % 7001)), line);
        for (std::uint32_t k = s.first[f]; k < s.first[f + 1]; ++k) m.add_use(s.link_of[k], s.share[k]);
        m.end_flow();
    }
    m.start();
    return m;
}

}  // namespace fabricsim::flow
