#include "workloads/collective_tuner.hpp"

#include "core/simulator.hpp"
#include "core/units_format.hpp"
#include "workloads/collective.hpp"
#include "workloads/collective_algorithms.hpp"
#include "workloads/collective_program.hpp"
#include "workloads/executor.hpp"
#include "workloads/op_graph.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace fabricsim::workloads {

using scenario::CollectiveAlgorithm;
using scenario::CollectiveOp;

std::vector<std::vector<RankId>> rail_groups(const std::vector<RankId>& group, const RankLayout& layout) {
    std::map<int, std::vector<RankId>> by_server;
    for (RankId r : group) by_server[layout.server(r)].push_back(r);
    const std::size_t g = by_server.begin()->second.size();
    for (const auto& [s, members] : by_server)
        if (members.size() != g) return {};
    std::vector<std::vector<RankId>> out(g);
    for (const auto& [s, members] : by_server)
        for (std::size_t j = 0; j < g; ++j) out[j].push_back(members[j]);
    return out;
}

namespace {

// α (picoseconds) and β (picoseconds per byte) of one message between two ranks.
struct Link {
    double alpha = 0;
    double beta = 0;
};

Link link_between(const Network& network, RankId a, RankId b) {
    Message m;
    m.src = a;
    m.dst = b;
    m.size = Bytes::zero();
    const double alpha = static_cast<double>(network.unloaded_time(m).picoseconds());
    m.size = Bytes{1 << 30};
    const double big = static_cast<double>(network.unloaded_time(m).picoseconds());
    return {alpha, (big - alpha) / static_cast<double>(1 << 30)};
}

struct Estimate {
    CollectiveAlgorithm algorithm;
    double ps;
};

// The candidate run alone on a new tuning model: first send to last delivery. As a program
// (collective_program.hpp), as the run itself streams it: a whole graph would hold every send
// of the size (a 256 GiB all-reduce on 32 GPUs: 4.6 GB), beyond what `run --max-memory` checks.
Time scratch_time(std::unique_ptr<Network> model, const scenario::CollectiveSpec& spec, CollectiveAlgorithm algorithm,
                  Bytes size, const RankLayout& layout, Bytes message_bytes) {
    scenario::CollectiveSpec one = spec;
    one.algorithm = algorithm;
    one.sizes = {size};
    one.iterations = 1;
    OpGraph graph;
    const std::uint32_t entry = graph.add_entry("tuner");
    auto program = std::make_unique<CollectiveProgram>(one, layout, model.get(), message_bytes);
    const CollectiveProgram* view = program.get();
    Simulator sim(0);
    Executor executor(std::move(graph), *model);
    executor.set_program(entry, std::move(program));
    executor.start(sim);
    sim.run();
    return measure(view->plan(), view->spans()).front().time;
}

// Above this, each candidate is run at half of it and at it and its time extrapolated along the
// line through the two: on the idle α–β model a run repeats the same loop (ring) or unit (tree,
// pieces), so its time grows linearly with the bytes, and running the whole size would make the
// tuner's cost grow with them (a 16 TiB all-reduce on 32 GPUs: minutes per candidate). 8 GiB is
// nccl-tests' usual largest size (`-e 8G`), so the sizes people sweep are run as they are.
constexpr Bytes kRunUpTo{std::int64_t{8} << 30};

}  // namespace

TunerChoice choose_algorithm(const scenario::CollectiveSpec& spec, const std::vector<RankId>& group, Bytes size,
                             const RankLayout& layout, const Network* network, Bytes message_bytes) {
    const CollectiveOp op = spec.op;
    if (op == CollectiveOp::all_to_all)
        return {CollectiveAlgorithm::pairwise, "auto: pairwise (all-to-all is point-to-point in NCCL)", {}};
    if (op == CollectiveOp::broadcast || op == CollectiveOp::send_recv || network == nullptr || group.size() < 2)
        return {CollectiveAlgorithm::ring, "auto: ring", {}};

    const double n = static_cast<double>(group.size());
    const double S = static_cast<double>(size.count());
    const auto sharp_groups = rail_groups(group, layout);
    const double g = sharp_groups.empty() ? 1.0 : static_cast<double>(sharp_groups.size());
    const bool spans = layout.server(group.front()) != layout.server(group.back());

    // Inside a server and across servers (the first rank to the first rank of the last server).
    Link intra{}, inter{};
    for (RankId r : group)
        if (r != group.front() && layout.same_server(r, group.front())) {
            intra = link_between(*network, group.front(), r);
            break;
        }
    if (spans) inter = link_between(*network, group.front(), group.back());
    if (intra.beta == 0) intra = inter;
    // A ring or tree across servers leaves each server through all its NICs (one per channel).
    const double nics = std::min<double>(layout.nics_per_server(), g);
    const Link path = spans ? Link{inter.alpha, std::max(inter.beta / nics, intra.beta)} : intra;

    std::vector<Estimate> e;
    const std::vector<RankId>& order = group;
    if (op == CollectiveOp::all_reduce) {
        e.push_back({CollectiveAlgorithm::ring, 2 * (n - 1) * path.alpha + 2 * (n - 1) / n * S * path.beta});
        // Each rank sends and receives the buffer twice (up and down, half per tree).
        e.push_back({CollectiveAlgorithm::tree, 2 * tree_depth(order, layout) * path.alpha + 2 * S * path.beta});
        if (!spans && network->offers(Offload::nvswitch_reduce, group))
            e.push_back({CollectiveAlgorithm::nvls, intra.alpha + S * (1 + 1 / n) * intra.beta});
        bool sharp = spans && !sharp_groups.empty();
        for (const auto& peers : sharp_groups) sharp = sharp && network->offers(Offload::switch_aggregation, peers);
        if (sharp) {
            // Pipelined: the slower of NVLink (both intra phases) and the NIC (S/g up and down)
            // sets the pace; every phase adds its latency once.
            std::vector<RankId> first_server;
            for (RankId r : group)
                if (layout.same_server(r, group.front())) first_server.push_back(r);
            const bool nvls = g > 1 && network->offers(Offload::nvswitch_reduce, first_server) &&
                              network->offers(Offload::nvswitch_multicast, first_server);
            const double intra_ps = g < 2  ? 0
                                    : nvls ? 2 * intra.alpha + S * (1 + 1 / g) * intra.beta
                                           : 2 * (g - 1) * intra.alpha + 2 * (g - 1) / g * S * intra.beta;
            const double intra_bw = g < 2 ? 0 : nvls ? S * (1 + 1 / g) * intra.beta : 2 * (g - 1) / g * S * intra.beta;
            const double intra_lat = intra_ps - intra_bw;
            e.push_back({CollectiveAlgorithm::sharp, intra_lat + inter.alpha + std::max(intra_bw, S / g * inter.beta)});
        }
    } else {  // reduce_scatter, all_gather
        e.push_back({CollectiveAlgorithm::ring, (n - 1) * path.alpha + (n - 1) / n * S * path.beta});
        const Offload o = op == CollectiveOp::all_gather ? Offload::nvswitch_multicast : Offload::nvswitch_reduce;
        if (!spans && network->offers(o, group)) e.push_back({CollectiveAlgorithm::nvls, intra.alpha + S * intra.beta});
    }
    // With a tuning model each candidate's estimate is its run there (replacing the closed form),
    // each run on a new, idle model.
    std::unique_ptr<Network> model = network->tuning_model();
    const bool ran = model != nullptr;
    const auto run_alone = [&](CollectiveAlgorithm algorithm, Bytes bytes) {
        std::unique_ptr<Network> idle = model != nullptr ? std::move(model) : network->tuning_model();
        return static_cast<double>(
            scratch_time(std::move(idle), spec, algorithm, bytes, layout, message_bytes).picoseconds());
    };
    const bool extrapolated = ran && size > kRunUpTo;
    const Bytes half{kRunUpTo.count() / 2};
    for (std::size_t i = 0; ran && i < e.size(); ++i) {
        if (!extrapolated) {
            e[i].ps = run_alone(e[i].algorithm, size);
            continue;
        }
        const double at_half = run_alone(e[i].algorithm, half);
        const double at_full = run_alone(e[i].algorithm, kRunUpTo);
        e[i].ps = at_full +
                  (at_full - at_half) * (S - static_cast<double>(kRunUpTo.count())) / static_cast<double>(half.count());
    }
    std::stable_sort(e.begin(), e.end(), [](const Estimate& a, const Estimate& b) { return a.ps < b.ps; });
    TunerChoice out{e.front().algorithm, {}, {}};
    for (const Estimate& c : e) out.estimates.emplace_back(c.algorithm, Time::ps(std::llround(c.ps)));
    std::string others;
    for (std::size_t i = 1; i < out.estimates.size(); ++i)
        others += fmt::format("{}{} {}", i == 1 ? "; " : ", ", to_string(out.estimates[i].first),
                              to_string(out.estimates[i].second));
    const std::string how = !ran           ? "estimated"
                            : extrapolated ? fmt::format("run alone on the α–β model at {} and {}, extrapolated,",
                                                         to_string(half), to_string(kRunUpTo))
                                           : "run alone on the α–β model,";
    out.reason = fmt::format("auto: {} ({} {}{})", to_string(out.algorithm), how,
                             to_string(out.estimates.front().second), others);
    return out;
}

}  // namespace fabricsim::workloads
