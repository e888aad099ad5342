#include "congestion/cnp_pacer.hpp"

#include "core/errors.hpp"

namespace fabricsim::congestion {

CnpPacer::CnpPacer(Time cnp_interval) : interval_(cnp_interval) {
    if (interval_ < Time::zero()) throw_config_error("roce.dcqcn.cnp_interval", "must not be negative");
}

}  // namespace fabricsim::congestion
