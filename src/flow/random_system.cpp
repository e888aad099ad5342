#include "flow/random_system.hpp"

#include <algorithm>
#include <random>

namespace fabricsim::flow {

FlowSystem random_flow_system(std::uint64_t seed, std::size_t flows) {
    std::mt19937_64 rng(seed);
    FlowSystem s;
    const std::size_t links = std::max<std::size_t>(16, flows / 8);
    for (std::size_t l = 0; l < links; ++l) {
        const double gbps = 50.0 + static_cast<double>(rng() % 350);  // 50..400 Gb/s
        s.add_link((rng() % 10 == 0 ? gbps / 10 : gbps) * 1e9 / 8);
    }
    std::uint32_t path[6];
    for (std::size_t f = 0; f < flows; ++f) {
        const int hops = 2 + static_cast<int>(rng() % 5);
        s.begin_flow(1.0 + static_cast<double>(rng() % 4),
                     rng() % 10 == 0 ? 1e8 + static_cast<double>(rng() % 1000) * 1e7 : kUncapped);
        for (int h = 0; h < hops; ++h) {
            std::uint32_t l;
            do l = static_cast<std::uint32_t>(rng() % links);
            while (std::find(path, path + h, l) != path + h);
            path[h] = l;
            s.add_use(l, 1.0);
        }
        s.end_flow();
    }
    return s;
}

}  // namespace fabricsim::flow
