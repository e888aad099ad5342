// Notification-point CNP pacing (src/congestion/cnp_pacer.hpp): SIGCOMM'15 §3.1 (50 us) and
// the NIC-style "a CNP per marked packet" (interval 0).
#include <catch2/catch.hpp>

#include <vector>

#include "congestion/cnp_pacer.hpp"
#include "congestion/dcqcn.hpp"
#include "core/errors.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::congestion;

TEST_CASE("cnp pacer: at most one CNP per 50 us per QP", "[cnp]") {
    CnpPacer pacer(DcqcnParams::paper().cnp_interval);
    const std::vector<Time> marked{0_us, 10_us, Time::ns(49'999), 50_us, 60_us, 99_us, 100_us, 151_us, 160_us, 201_us};
    std::vector<bool> sent;
    for (Time t : marked) sent.push_back(pacer.on_marked_packet(t));
    // CNPs at 0, 50, 100, 151 and 201 us: each at least 50 us after the previous CNP.
    CHECK(sent == std::vector<bool>{true, false, false, true, false, false, true, true, false, true});
}

TEST_CASE("cnp pacer: interval 0 sends a CNP for every marked packet", "[cnp]") {
    CnpPacer pacer(DcqcnParams::nic(100_Gbps).cnp_interval);
    int sent = 0;
    for (int i = 0; i < 10; ++i) sent += pacer.on_marked_packet(Time::ns(i / 2)) ? 1 : 0;  // pairs at one instant
    CHECK(sent == 10);
}

TEST_CASE("cnp pacer: a negative interval is a configuration error", "[cnp]") {
    CHECK_THROWS_AS(CnpPacer(Time::ns(-1)), ConfigError);
}
