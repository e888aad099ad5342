// `faults:` entries: scheduled faults in the modelled network and its GPUs (docs/models/faults.md).
// Each entry has exactly one kind key, like a workload entry:
//
//   faults:
//     - link_down: { link: [leaf0, spine1], at: 100us, for: 1ms, reconverge: 50us }
//     - link_flap: { link: [leaf0, spine1], at: 0s, period: 200us, down: 50us, jitter: 20us, until: 2ms }
//     - link_degraded: { link: [leaf0, spine1], at: 0s, speed: 100Gbps }      # or ber: 1e-7
//     - switch_down: { node: spine1, at: 100us }
//     - nic_down: { node: s0.nic0, at: 100us, for: 1ms }
//     - stuck_receiver: { node: s3.nic0, at: 0s, for: 2ms }
//     - straggler: { rank: 3, at: 0s, for: 10ms, slowdown: 2 }
//
// Links and nodes are named as `fabricsim topo` names them; they are looked up when the
// topology is built (fabric/packet/fault_injector.cpp), where an unknown name is a ConfigError
// at the entry's location. Every fault but a straggler needs the packet model.
#pragma once

#include "core/errors.hpp"
#include "core/ids.hpp"
#include "core/units.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace fabricsim::scenario {

enum class FaultKind { link_down, link_flap, link_degraded, switch_down, nic_down, stuck_receiver, straggler };

struct FaultSpec {
    FaultKind kind = FaultKind::link_down;
    std::string name;             // "<kind><index>", e.g. "link_down0"
    Time at = Time::zero();       // when it starts
    Time duration = Time::max();  // `for:`; Time::max(): to the end of the run
    // link_*: the link between these two nodes; `parallel` picks among parallel links (0 first).
    std::string from, to;
    int parallel = 0;
    // switch_down, nic_down, stuck_receiver: the node.
    std::string node;
    // Routing reconverges (ECMP groups drop the member) this long after a link goes down or
    // comes back; on InfiniBand, the subnet manager's sweep delay.
    Time reconverge = Time::ms(1);
    // link_flap: down for `down` every `period` (each start moved by up to ±jitter, drawn from
    // the scenario seed) from `at` until `until`.
    Time period = Time::zero();
    Time down = Time::zero();
    Time jitter = Time::zero();
    Time until = Time::max();
    // link_degraded: a lower line rate (nullopt: unchanged) and a bit error rate (0: none).
    std::optional<Bandwidth> speed;
    double ber = 0.0;
    // straggler: this rank's compute runs `slowdown` times slower during [at, at + for).
    RankId rank;
    double slowdown = 1.0;
    SourceLocation location;  // of the entry, for errors found when the topology is built

    Time end() const { return duration == Time::max() ? Time::max() : at + duration; }
    bool operator==(const FaultSpec& o) const {
        return kind == o.kind && name == o.name && at == o.at && duration == o.duration && from == o.from &&
               to == o.to && parallel == o.parallel && node == o.node && reconverge == o.reconverge &&
               period == o.period && down == o.down && jitter == o.jitter && until == o.until && speed == o.speed &&
               ber == o.ber && rank == o.rank && slowdown == o.slowdown;
    }
};

std::string_view to_string(FaultKind kind);

}  // namespace fabricsim::scenario
