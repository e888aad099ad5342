#include "congestion/red_marker.hpp"

#include <string>

#include "core/errors.hpp"

namespace fabricsim::congestion {

namespace {

// base * line_rate / 25 Gb/s in 128 bits, rounded down to a whole byte.
Bytes per_25g(Bytes base, Bandwidth line_rate) {
    const auto product =
        static_cast<unsigned __int128>(base.count()) * static_cast<unsigned __int128>(line_rate.bits_per_second());
    return Bytes{static_cast<std::int64_t>(product / 25'000'000'000ULL)};
}

}  // namespace

RedParams RedParams::nic(Bandwidth line_rate) {
    return RedParams{per_25g(Bytes{100'000}, line_rate), per_25g(Bytes{400'000}, line_rate), 0.2};
}

void RedParams::validate() const {
    if (kmin < Bytes::zero()) throw_config_error("roce.ecn.kmin", "must not be negative");
    if (kmax < kmin) throw_config_error("roce.ecn.kmax", "must not be below kmin");
    if (!(pmax >= 0.0 && pmax <= 1.0))
        throw_config_error("roce.ecn.pmax", "must be in [0, 1], got " + std::to_string(pmax));
}

RedMarker::RedMarker(const RedParams& params) : params_(params) { params_.validate(); }

double RedMarker::probability(Bytes queue) const {
    return red_probability(queue, params_.kmin, params_.kmax, params_.pmax);
}

}  // namespace fabricsim::congestion
