// simulation: which network model runs and its settings, one declaration per key.
#include "scenario/validate.hpp"

#include "core/units_format.hpp"
#include "scenario/key_types.hpp"

#include <fmt/format.h>

namespace fabricsim::scenario {

namespace {

constexpr Bytes kMaxSegment{std::int64_t{1} << 30};

const auto kCongestion = choice<FlowCongestion>(
    "flow congestion control",
    {{"none", FlowCongestion::none}, {"dcqcn", FlowCongestion::dcqcn}, {"fluid", FlowCongestion::fluid}});

const auto kRings =
    choice<FlowRings>("flow ring mode", {{"coupled", FlowRings::coupled}, {"messages", FlowRings::messages}});

const auto kBackend = choice<FlowBackend>(
    "flow backend", {{"cpu", FlowBackend::cpu}, {"cuda", FlowBackend::cuda}, {"auto", FlowBackend::automatic}});

const Table<IdealNetworkSpec>& ideal_table() {
    static const Table<IdealNetworkSpec> t{
        "simulation.ideal",
        {key("latency", &IdealNetworkSpec::latency, delay(Zero::allowed), kIdeal,
             "One-way latency of every message in the ideal model, which adds size ÷ the slower NIC's rate and has "
             "no contention ([models/ideal.md](models/ideal.md)).")}};
    return t;
}

const Table<PacketSimSpec>& packet_table() {
    static const Table<PacketSimSpec> t{
        "simulation.packet",
        {
            key("segment", &PacketSimSpec::segment,
                at_most(size(Zero::rejected), kMaxSegment, "size > 0, ≤ 1 GiB",
                        [](const Node&, const Bytes& b) {
                            return fmt::format("a segment of {} B is larger than the 1 GiB limit", b.count());
                        }),
                kPacket | kFlow,
                "Payload of a segment inside a server (packet and flow models); the fabric uses "
                "`cluster.fabric.mtu`."),
            key("deadlock_timeout", &PacketSimSpec::deadlock_timeout, time(Zero::rejected), kPacket,
                "No packet moving for this long (raised to 4 of the slowest hops, docs/models/packet.md) while some "
                "wait stops the run (exit 3): a PFC deadlock naming the cycle of paused ports, or a stall saying "
                "what waits where."),
            key("cut_through", &PacketSimSpec::cut_through, boolean(), kPacket,
                "How fabric switches forward: `false` store and forward; `true` cut-through, a packet starts out "
                "once its header is in when its egress port is free (a busy port still queues it). Spectrum and "
                "Quantum switch ASICs cut through, and their datasheet latencies are port to port "
                "([models/packet.md](models/packet.md))."),
        }};
    return t;
}

}  // namespace

const Table<SimulationSpec>& simulation_table() {
    using S = SimulationSpec;
    static const Table<S> t{
        "simulation",
        {
            key("model", &S::model,
                choice<NetworkModel>(
                    "model",
                    {{"ideal", NetworkModel::ideal}, {"packet", NetworkModel::packet}, {"flow", NetworkModel::flow}}),
                kAllModels,
                "The network model: `ideal` (docs/models/ideal.md), `packet` (docs/models/packet.md) or `flow`, "
                "max-min fair fluid flows over the same topology and routing (docs/models/flow.md). Network faults "
                "need `packet`."),
            key("flow_backend", &S::flow_backend, kBackend, kFlow,
                "Where the flow model solves its rates: `cpu`; `cuda`, which needs a CUDA build and a device "
                "(without one the run is refused, exit 2); `auto`, the device when there is one, else the CPU. "
                "`result.json` says which ran (`cost.flow_backend`). ([models/flow.md](models/flow.md))")
                .printed_if(
                    [](const S& s) { return s.model == NetworkModel::flow || s.flow_backend != FlowBackend::cpu; })
                .shown_default("`cpu`"),
            // Printed only where it is set, so scenarios resolve as they did before the key existed.
            key("flow_congestion", &S::flow_congestion, kCongestion, kFlow,
                "The congestion control the flow model accounts for: `none`; `dcqcn` (RoCE with "
                "`cluster.roce.ecn` and `cluster.roce.dcqcn` enabled, else the run is refused, exit 2): a message "
                "that starts at a saturated switch port waits for the standing queue DCQCN holds there, from the "
                "fixed point of its fluid model with the same `cluster.roce.ecn` and `cluster.roce.dcqcn` settings "
                "the packet model reads, instead of half a packet. Rates stay max-min fair; `fluid` (RoCE or "
                "InfiniBand): the time-stepped fluid model of the fabric's congestion control (DCQCN, or IB CC) and "
                "of PFC or credit back-pressure runs beside the flows and caps their rates, and messages wait in "
                "its queues ([models/flow.md](models/flow.md), \"Congestion control\").")
                .printed_if([](const S& s) { return s.flow_congestion != FlowCongestion::none; })
                .shown_default("`none`"),
            // Printed only where it is set, so scenarios resolve as they did before the key existed.
            key("flow_rings", &S::flow_rings, kRings, kFlow,
                "How the flow model carries a ring channel whose every step is one message: `coupled`, one "
                "flow over all the ring's links, capped at the ring's average rate when alone (thousands of "
                "times fewer events at scale); `messages`, each step as its own flows, waiting for the one "
                "before, as the packet model sends them. Rings run as messages anyway under "
                "`flow_congestion: fluid` or when a server stages through host memory "
                "([models/flow.md](models/flow.md), \"Rings as one flow\").")
                .printed_if([](const S& s) { return s.flow_rings != FlowRings::coupled; })
                .shown_default("`coupled`"),
            key("stop_time", &S::stop_time,
                keyword_for(time(Zero::rejected), "none", Time::max(), "time > 0, or `none`"), kAllModels,
                "Simulated time at which the run stops; `none` runs until no event is left. A run stopped with work "
                "left is *cut short*: it reports what happened until then (makespan = the stop time, unfinished "
                "transfers marked), says so first, is `\"cut_short\": true, \"complete\": false` in `result.json` "
                "and exits 3."),
            section("ideal", &S::ideal, ideal_table(), "The ideal (alpha-beta) model."),
            section("packet", &S::packet, packet_table(), "The packet model (and the flow model's segment)."),
        }};
    return t;
}

}  // namespace fabricsim::scenario
