// faults: every kind read with its keys and defaults, the located errors of bad entries, and
// the resolved scenario loading back to the same faults (docs/SCENARIO.md, "Faults").
#include "core/errors.hpp"
#include "scenario/loader.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::scenario;
using namespace fabricsim::literals;

namespace {

// Two plain hosts on one switch, one transfer, and `faults` (lines from line 6 of f.yaml).
std::string with_faults(const std::string& faults, const std::string& model = "packet") {
    return "name: f\nsimulation: { model: " + model +
           " }\ncluster: { servers: 2, server: { gpus: 0, nics: 1 } }\nworkload: [{ transfer: { from: 0, to: 1, size: "
           "1MiB } }]\nfaults:\n" +
           faults;
}

std::vector<FaultSpec> faults_of(const std::string& faults, const std::string& model = "packet") {
    const auto loaded = load_scenario_text(with_faults(faults, model), "f.yaml", {});
    REQUIRE(loaded.variants.size() == 1);
    return loaded.variants.front().spec.faults;
}

std::string error_of(const std::string& faults, const std::string& model = "packet") {
    try {
        load_scenario_text(with_faults(faults, model), "f.yaml", {});
    } catch (const ConfigError& e) {
        return e.what();
    }
    return {};
}

}  // namespace

TEST_CASE("faults: every kind with its keys, and defaults for the optional ones", "[loader][faults]") {
    const auto f = faults_of(
        "  - link_down: { link: [leaf0, spine1], at: 100us, for: 1ms, reconverge: 50us }\n"
        "  - link_flap: { link: [leaf0, spine1], parallel: 1, at: 0s, period: 200us, down: 50us, until: 2ms }\n"
        "  - link_degraded: { link: [leaf0, spine1], at: 0s, speed: 100Gbps, ber: 1e-7 }\n"
        "  - switch_down: { node: spine1, at: 10us }\n"
        "  - nic_down: { node: s0.nic0, at: 10us, for: 5us }\n"
        "  - stuck_receiver: { node: s1.nic0, at: 0s, for: 2ms }\n"
        "  - straggler: { rank: 1, at: 0s, slowdown: 2.5 }\n");
    REQUIRE(f.size() == 7);
    CHECK(f[0].kind == FaultKind::link_down);
    CHECK(f[0].name == "link_down0");
    CHECK(f[0].from == "leaf0");
    CHECK(f[0].to == "spine1");
    CHECK(f[0].at == 100_us);
    CHECK(f[0].end() == 1100_us);
    CHECK(f[0].reconverge == 50_us);
    CHECK(f[1].parallel == 1);
    CHECK(f[1].period == 200_us);
    CHECK(f[1].down == 50_us);
    CHECK(f[1].jitter == Time::zero());
    CHECK(f[1].until == 2_ms);
    CHECK(f[1].reconverge == 1_ms);  // the default
    CHECK(f[2].speed == std::optional<Bandwidth>(100_Gbps));
    CHECK(f[2].ber == 1e-7);
    CHECK(f[2].duration == Time::max());  // to the end of the run
    CHECK(f[3].node == "spine1");
    CHECK(f[4].duration == 5_us);
    CHECK(f[5].kind == FaultKind::stuck_receiver);
    CHECK(f[6].rank == RankId{1});
    CHECK(f[6].slowdown == 2.5);
    CHECK(f[6].name == "straggler6");
}

TEST_CASE("faults: the resolved scenario loads back to the same faults", "[loader][faults]") {
    const auto loaded = load_scenario_text(
        with_faults(
            "  - link_flap: { link: [leaf0, spine1], at: 0s, period: 200us, down: 50us, jitter: 7us, until: 2ms }\n"
            "  - link_degraded: { link: [leaf0, spine1], at: 1us, ber: 1e-9 }\n"
            "  - straggler: { rank: 0, at: 0s, for: 3ms, slowdown: 1.5 }\n"),
        "f.yaml", {});
    const std::string printed = to_yaml(loaded.variants.front().resolved);
    const auto again = load_scenario_text(printed, "printed.yaml", {});
    CHECK(again.variants.front().spec.faults == loaded.variants.front().spec.faults);
}

TEST_CASE("faults: bad entries are located errors", "[loader][faults]") {
    CHECK(error_of("  - link_dwn: { link: [a, b], at: 0s }\n") ==
          "f.yaml:6:5: faults[0]: unknown fault kind \"link_dwn\"; did you mean \"link_down\"? available: link_down, "
          "link_flap, link_degraded, switch_down, nic_down, stuck_receiver, straggler");
    CHECK(error_of("  - link_down: { link: [leaf0], at: 0s }\n") ==
          "f.yaml:6:24: faults[0].link_down.link: expected the two nodes the link joins, e.g. [leaf0, spine1], found a "
          "list");
    CHECK(error_of("  - link_down: { link: [a, b] }\n") == "f.yaml:6:16: faults[0].link_down.at: missing required key");
    CHECK(error_of("  - stuck_receiver: { node: s1.nic0, at: 0s }\n") ==
          "f.yaml:6:21: faults[0].stuck_receiver.for: missing required key (how long the receiver stays stuck)");
    CHECK(error_of("  - link_flap: { link: [a, b], at: 0s, period: 100us, down: 90us, jitter: 10us, until: 1ms }\n") ==
          "f.yaml:6:61: faults[0].link_flap.down: down (90us) plus jitter (10us) must be shorter than the period "
          "(100us), so that the link comes back between flaps");
    CHECK(error_of("  - straggler: { rank: 2, at: 0s, slowdown: 2 }\n").find("faults[0].straggler.rank") !=
          std::string::npos);  // 2 ranks: 0 and 1
    CHECK(error_of("  - straggler: { rank: 1, at: 0s, slowdown: 0.5 }\n") ==
          "f.yaml:6:45: faults[0].straggler.slowdown: expected a factor of at least 1 (compute takes this many times "
          "longer), found 0.5");
    CHECK(error_of("  - link_degraded: { link: [a, b], at: 0s }\n") ==
          "f.yaml:6:20: faults[0].link_degraded: a degraded link needs a lower `speed`, a `ber` or both");
    CHECK(error_of("  - link_down: { link: [a, b], at: 0s }\n", "ideal") ==
          "f.yaml:6:5: faults[0]: a link_down fault needs the packet model (simulation.model: packet); the ideal "
          "and flow models have no packets or queues to lose, only a straggler");
    CHECK(error_of("  - straggler: { rank: 1, at: 0s, slowdown: 2 }\n", "ideal").empty());
}

TEST_CASE("faults: times are bounded so that their sums stay inside the engine's clock", "[loader][faults]") {
    CHECK(error_of("  - link_down: { link: [a, b], at: 2000000s }\n").find("f.yaml:6:36: faults[0].link_down.at: ") !=
          std::string::npos);
    // Every time in a scenario is held to 10^6 s (docs/SCENARIO.md, "Limits"); three such
    // times of a fault (at + for + reconverge) still fit int64 picoseconds (9.2 x 10^6 s).
    CHECK(error_of("  - link_down: { link: [a, b], at: 2000000s }\n")
              .find("expected a time at most 1000000s (11.6 days: simulated time is int64 picoseconds), found "
                    "\"2000000s\"") != std::string::npos);
    CHECK(error_of("  - link_down: { link: [a, b], at: 1000000s, for: 1000000s, reconverge: 1000000s }\n").empty());
}
