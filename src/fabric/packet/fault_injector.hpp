// The faults of a scenario (faults:, scenario/faults_spec.hpp) played on the packet model as
// scheduled events (docs/models/faults.md): each fault is resolved to the links or ports it
// hits when the injector is built, and at its times the injector tells the PacketNetwork what
// happened and, after the reconvergence delay, the FaultRouter that routing has converged.
// Nothing here runs per packet. Stragglers are the executor's (workloads/straggler.hpp).
//
// Each fault's damage is kept for the report: packets lost on its links, when it happened,
// when routing had converged around it, how often a flapping link went down.
#pragma once

#include "core/event_queue.hpp"
#include "fabric/packet/fault_router.hpp"
#include "fabric/packet/packet_network.hpp"
#include "scenario/faults_spec.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace fabricsim::fabric {

struct FaultDamage {
    std::string name;  // "link_down0"
    scenario::FaultKind kind;
    std::string target;              // "leaf0 - spine1", "spine1", "s3.nic0", "rank 3"
    Time at;                         // first failure
    Time end = Time::max();          // last recovery (Time::max(): not within the run)
    Time reconverged = Time::max();  // routing had converged around its (first) failure
    std::int64_t times_down = 0;     // link_flap: the flaps that happened; others 1 once it struck
    std::int64_t packets_lost = 0;   // on its links, both directions, over the whole run
};

// What a network fault hits, found by name on the topology: the links it takes down or
// degrades, the switch ports into a stuck receiver, and its target as the report names it.
struct FaultTargets {
    std::vector<LinkId> links;
    std::vector<DirectedLink> into;
    std::string target;
};
// In the order of `faults`, stragglers left out. Throws ConfigError at the entry for a name the
// topology does not have, or a node of the wrong kind (`fabricsim run` checks this before
// running any variant).
std::vector<FaultTargets> resolve_fault_targets(const Topology& topology,
                                                const std::vector<scenario::FaultSpec>& faults);

class FaultInjector final : private EventTarget {
public:
    // Resolves the faults' names on the topology: an unknown node or link is a ConfigError at
    // the entry. Stragglers are skipped (the executor plays them). `router` and `network` must
    // outlive the injector.
    FaultInjector(const Topology& topology, FaultRouter& router, PacketNetwork& network,
                  std::vector<scenario::FaultSpec> faults);

    void start(Simulator& sim);
    std::vector<FaultDamage> damage() const;

private:
    enum Action : std::uint64_t { kStrike = 0, kRecover = 1, kReconverge = 2 };
    struct Active {
        scenario::FaultSpec spec;
        std::vector<LinkId> links;        // links it takes down or degrades
        std::vector<DirectedLink> stuck;  // stuck_receiver: the switch ports into the node
        FaultDamage damage;
        Time next_recover = Time::max();
    };
    void on_event(Simulator& sim, std::uint64_t arg) override;
    void strike(Simulator& sim, std::uint32_t f);
    void recover(Simulator& sim, std::uint32_t f);
    void schedule(Simulator& sim, Time at, std::uint32_t f, Action action);

    const Topology& topology_;
    FaultRouter& router_;
    PacketNetwork& network_;
    std::vector<Active> faults_;
    Rng* rng_ = nullptr;  // flap jitter
};

}  // namespace fabricsim::fabric
