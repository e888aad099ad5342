#include "cli/run_variant.hpp"

#include "cli/fault_setup.hpp"
#include "cli/interrupt.hpp"
#include "cli/malloc_huge_pages.hpp"
#include "core/errors.hpp"
#include "core/units_format.hpp"
#include "fabric/channel_dependencies.hpp"
#include "fabric/host_staging.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "fabric/packet/fault_injector.hpp"
#include "fabric/packet/packet_network.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology_builder.hpp"
#include "flow/cuda_device.hpp"
#include "flow/flow_network.hpp"
#include "report/entry_figures.hpp"
#include "report/fault_figures.hpp"
#include "report/trace_figures.hpp"
#include "report/traffic_figures.hpp"
#include "workloads/executor.hpp"
#include "workloads/workload_graph.hpp"

#include <memory>

#include <fmt/format.h>

namespace fabricsim::cli {

namespace {

// The chosen network model and what it is built on (the packet model reads the topology and
// routing for as long as it runs).
struct NetworkModel {
    std::unique_ptr<fabric::Topology> topology;
    std::unique_ptr<fabric::Routing> routing;
    std::unique_ptr<fabric::FaultRouter> fault_router;  // with faults: routing around them
    std::unique_ptr<Network> network;
    std::unique_ptr<fabric::FaultInjector> injector;  // with faults: plays them on the network
    std::string flow_backend;                         // the flow model's: "cpu" | "cuda"
};

// The flow model's rate backend as simulation.flow_backend asks (docs/models/flow.md): `cuda`
// without a usable device is bad input (exit 2), `auto` falls back to the CPU.
std::unique_ptr<flow::RateBackend> make_flow_backend(scenario::FlowBackend kind) {
    if (kind == scenario::FlowBackend::cpu) return std::make_unique<flow::CpuMaxMin>();
    const flow::CudaAvailability cuda = flow::cuda_availability();
    if (cuda.usable) return flow::make_cuda_backend();
    if (kind == scenario::FlowBackend::automatic) return std::make_unique<flow::CpuMaxMin>();
    throw_config_error(
        "simulation.flow_backend",
        fmt::format("\"cuda\" needs a CUDA device, and this run has none: {}; use \"cpu\" or \"auto\"", cuda.reason));
}

// The cluster's topology and the routing over it, which the packet and flow models share.
void build_fabric(NetworkModel& m, const scenario::ScenarioSpec& spec) {
    m.topology = std::make_unique<fabric::Topology>(fabric::build_topology(spec.cluster));
    m.routing = std::make_unique<fabric::Routing>(*m.topology, spec.cluster.fabric.routing,
                                                  spec.cluster.fabric.technology, spec.seed);
}

// Whether the fabric's switches aggregate (SHARP: InfiniBand switches with sharp: true).
bool sharp_switches(const scenario::ScenarioSpec& spec) {
    return spec.cluster.fabric.technology == scenario::Technology::infiniband && spec.cluster.fabric.switch_spec.sharp;
}

NetworkModel make_network(const scenario::ScenarioSpec& spec) {
    NetworkModel m;
    switch (spec.simulation.model) {
        case scenario::NetworkModel::ideal:
            m.network = std::make_unique<fabric::IdealNetwork>(spec.cluster, spec.simulation.ideal);
            return m;
        case scenario::NetworkModel::packet: {
            build_fabric(m, spec);
            fabric::PacketModelSpec packet;
            packet.mtu = spec.cluster.fabric.mtu;
            packet.segment = spec.simulation.packet.segment;
            packet.deadlock_timeout = spec.simulation.packet.deadlock_timeout;
            packet.qps_per_connection = spec.cluster.server.nic.qps_per_connection;
            packet.qp_rate_interval = spec.outputs.qp_rates;
            packet.queues = spec.outputs.queues;
            packet.technology = spec.cluster.fabric.technology;
            packet.roce = spec.cluster.roce;
            packet.infiniband = spec.cluster.infiniband;
            packet.iwarp = spec.cluster.iwarp;
            packet.cut_through = spec.simulation.packet.cut_through;
            packet.cluster = spec.cluster;
            packet.sharp = sharp_switches(spec);
            // Queues for the priorities the workload names (and the lossless and control ones).
            packet.priorities = 0;
            for (const auto& entry : spec.workload)
                if (entry.priority && *entry.priority < 8)
                    packet.priorities |= static_cast<std::uint8_t>(1u << *entry.priority);
            // Spraying and adaptive routing reorder packets; the receiving NIC places them.
            packet.ooo_placement = spec.cluster.fabric.routing == scenario::RoutingKind::spray ||
                                   spec.cluster.fabric.routing == scenario::RoutingKind::adaptive;
            if (!has_network_faults(spec)) {
                m.network = std::make_unique<fabric::PacketNetwork>(*m.topology, *m.routing, packet);
                return m;
            }
            packet.recover_lossless = true;
            m.fault_router = std::make_unique<fabric::FaultRouter>(*m.topology, *m.routing, spec.seed);
            auto net = std::make_unique<fabric::PacketNetwork>(*m.topology, *m.fault_router, packet);
            m.injector = std::make_unique<fabric::FaultInjector>(*m.topology, *m.fault_router, *net, spec.faults);
            m.network = std::move(net);
            return m;
        }
        case scenario::NetworkModel::flow: {
            // The validator lets no network fault through to a model without packets.
            build_fabric(m, spec);
            flow::FlowModelSpec fs;
            fs.mtu = spec.cluster.fabric.mtu;
            fs.segment = spec.simulation.packet.segment;
            fs.technology = spec.cluster.fabric.technology;
            fs.qps_per_connection = spec.cluster.server.nic.qps_per_connection;
            fs.sharp = sharp_switches(spec);
            fs.cluster = spec.cluster;
            if (spec.simulation.flow_congestion == scenario::FlowCongestion::dcqcn) {
                if (spec.cluster.fabric.technology != scenario::Technology::roce || !spec.cluster.roce.dcqcn.enabled ||
                    !spec.cluster.roce.ecn.enabled)
                    throw_config_error(
                        "simulation.flow_congestion",
                        "dcqcn needs a RoCE fabric with cluster.roce.ecn and cluster.roce.dcqcn enabled");
                fs.dcqcn = true;
            }
            fs.fluid = spec.simulation.flow_congestion == scenario::FlowCongestion::fluid;
            fs.ring_channels = spec.simulation.flow_rings == scenario::FlowRings::coupled;
            auto backend = make_flow_backend(spec.simulation.flow_backend);
            m.flow_backend = std::string(backend->name());
            m.network = std::make_unique<flow::FlowNetwork>(*m.topology, *m.routing, fs, std::move(backend));
            return m;
        }
    }
    throw InternalError("unknown network model");
}

// Every few thousand events: progress for the front end, and with --check the network's
// invariants, so a broken one is caught near the moment it broke.
class ProgressRelay final : public ProgressObserver {
public:
    ProgressRelay(const ProgressFn& fn, const workloads::Executor& executor, const Network* checked)
        : fn_(fn), executor_(executor), checked_(checked) {}
    void on_progress(Time now, std::uint64_t /*events*/) override {
        if (fn_) fn_(now, executor_.ops_done(), executor_.ops_total());
        if (checked_ != nullptr) checked_->check_invariants(now);
    }

private:
    const ProgressFn& fn_;
    const workloads::Executor& executor_;
    const Network* checked_;
};

// Why a run that ended without its work done ended so (a sentence for the console).
std::string unfinished_problem(std::size_t unfinished, std::size_t total, Time at) {
    return fmt::format("{} of {} ops never finished: nothing was left to simulate at {} (a message was lost "
                       "or never sent); the figures cover the work that finished",
                       unfinished, total, to_string(at));
}

}  // namespace

report::VariantResult run_variant(const scenario::Variant& variant, const VariantOptions& options) {
    const scenario::ScenarioSpec& spec = variant.spec;
    Simulator sim(spec.seed);
    sim.watch_interrupt(options.interrupt);
    NetworkModel model = make_network(spec);
    // Servers with a GPUDirect path off stage through host memory, on any model (docs/models/gpudirect.md).
    model.network = fabric::with_host_staging(std::move(model.network), spec.cluster);
    Network* network = model.network.get();
    workloads::Workload workload = workloads::build_workload(spec, *network, options.building);
    workloads::Executor executor(std::move(workload.graph), *network);
    workloads::attach_programs(workload, executor);
    executor.set_stragglers(stragglers_of(spec));

    report::VariantResult r;
    bool check = options.check;
#ifndef NDEBUG
    check = true;
#endif
    ProgressRelay relay(options.progress, executor, check ? network : nullptr);
    RunEnd end = RunEnd::idle;
    try {
        if (model.injector) model.injector->start(sim);
        executor.start(sim);
        end = sim.run(spec.simulation.stop_time, options.progress || check ? &relay : nullptr);
    } catch (const ModelError& e) {
        // A deadlock, or an invariant broken under --check: the run stops there, and what it
        // measured until then is still reported.
        r.problems.push_back(fmt::format("model error at {}: {}", to_string(sim.now()), e.what()));
        end = RunEnd::stopped;
    }
    // Cheap at the end of any run, so always: lossless drops, link capacity, bytes conserved.
    if (r.problems.empty()) {
        try {
            network->check_invariants(sim.now());
        } catch (const ModelError& e) {
            r.problems.emplace_back(e.what());
        }
    }

    r.name = variant.name;
    r.scenario = variant.resolved;
    r.model = std::string(network->model_name());
    r.flow_backend = model.flow_backend;
    r.malloc_huge_pages = malloc_huge_pages_on(huge_page_facts());
    r.transfers = report::transfer_results(spec, executor, *network);
    r.collectives = report::collective_results(workload.collectives, executor);
    r.traffic = report::traffic_results(workload.traffic, executor, *network);
    r.training = report::training_results(workload.training_jobs, executor);
    r.traces = report::trace_results(workload, executor);
    if (spec.outputs.timeline) r.timeline = report::timeline_events(workload, executor);
    r.unfinished_ops = static_cast<std::int64_t>(executor.ops_total() - executor.ops_done());
    if (r.unfinished_ops == 0) {
        r.makespan = executor.last_finish();
    } else {
        r.makespan = sim.now();  // what was simulated: up to the stop, the signal or the last event
        if (end == RunEnd::stop_time) r.cut_short = true;
        if (end == RunEnd::interrupted) r.interrupted = signal_name(options.interrupt->load());
        if (end == RunEnd::idle)  // after its cause, when the checks above found one
            r.problems.push_back(
                unfinished_problem(static_cast<std::size_t>(r.unfinished_ops), executor.ops_total(), sim.now()));
    }
    // A signal after the last op finished changes nothing: the work is complete.
    r.warnings = network->warnings();
    for (const auto& t : workload.traces)  // what a trace's reader could not map, node by node
        r.warnings.insert(r.warnings.end(), t.program->index().warnings.begin(), t.program->index().warnings.end());
    // Shortest paths on a custom graph carry no up/down guarantee: say when they may deadlock.
    if (model.routing && spec.cluster.fabric.topology == scenario::TopologyKind::custom)
        if (auto cycle = fabric::channel_dependency_cycle(*model.topology, *model.routing); !cycle.empty())
            r.warnings.push_back(fabric::describe_cycle(cycle));
    r.fabric = network->counters();
    r.ports = network->port_reports();
    r.qp_rates = network->qp_rates();
    r.queues = network->queue_series();
    r.faults = report::fault_results(spec, model.injector.get(), sim.now(), r.ports);
    r.cost = sim.cost();
    return r;
}

}  // namespace fabricsim::cli
