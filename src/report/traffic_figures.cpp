#include "report/traffic_figures.hpp"

#include "workloads/traffic_program.hpp"

#include <algorithm>
#include <cmath>

namespace fabricsim::report {

namespace {

constexpr const char* kPatterns[] = {"permutation", "incast", "all_to_all", "poisson", "storage", "gpu_pool"};

// Nearest rank: the ceil(q·n)-th smallest (as report::summarise does for all flows).
template <class T>
T nearest_rank(std::vector<T>& values, double q) {
    if (values.empty()) return T{};
    std::sort(values.begin(), values.end());
    auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
    return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

}  // namespace

TrafficResult traffic_result(const workloads::TrafficPlan& plan, const workloads::Executor& executor,
                             const Network& network) {
    // Flow i of the entry: its program's (plan.program), or its graph's op i.
    const auto flow = [&](std::uint32_t i) {
        if (plan.program != nullptr) return plan.program->flows()[i];
        const auto& op = executor.graph().ops()[i];
        return workloads::TrafficFlow{op.src, op.dst, op.size, op.not_before};
    };
    const auto timing = [&](std::uint32_t i) {
        return plan.program != nullptr ? plan.program->timing(i) : executor.op_timings()[i];
    };
    TrafficResult r;
    r.name = executor.graph().entries()[plan.entry].name;
    r.pattern = kPatterns[static_cast<int>(plan.pattern)];
    r.start = Time::max();
    std::vector<Time> fct;
    std::vector<double> slowdown;
    Bytes arrived;  // poisson: in the arrival window
    for (std::uint32_t i = plan.first_op; i < plan.end_op; ++i) {
        const workloads::TrafficFlow op = flow(i);
        if (op.not_before >= plan.window_start && op.not_before < plan.window_start + plan.window) arrived += op.size;
        const workloads::OpTiming t = timing(i);
        if (!t.done()) {
            ++r.unfinished;
            continue;
        }
        ++r.flows;
        r.bytes += op.size;
        r.start = std::min(r.start, t.start);
        r.finish = std::max(r.finish, t.finish);
        Message m;
        m.src = op.src;
        m.dst = op.dst;
        m.size = op.size;
        const Time unloaded = network.unloaded_time(m);
        fct.push_back(t.finish - t.start);
        slowdown.push_back(unloaded > Time::zero() ? static_cast<double>((t.finish - t.start).picoseconds()) /
                                                         static_cast<double>(unloaded.picoseconds())
                                                   : 1.0);
    }
    if (r.flows == 0) r.start = Time::zero();
    r.fct_p50 = nearest_rank(fct, 0.50);
    r.fct_p99 = nearest_rank(fct, 0.99);
    r.slowdown_p99 = nearest_rank(slowdown, 0.99);

    if (plan.pattern == scenario::TrafficPattern::poisson) {
        r.has_load = true;
        r.offered_load = plan.offered_load;
        const double capacity =
            static_cast<double>(plan.senders) * plan.sender_rate.bytes_per_second() * plan.window.seconds();
        r.achieved_load = capacity > 0 ? static_cast<double>(arrived.count()) / capacity : 0.0;
    }
    if (plan.pattern == scenario::TrafficPattern::gpu_pool) {
        r.gpu_pool = true;
        std::vector<Time> latency;
        Time first = Time::max(), last = Time::zero();
        Bytes bytes;
        std::int64_t sum_ps = 0;
        for (std::size_t c = 0; c + 1 < plan.call_first.size(); ++c) {
            Time begin = Time::max(), end = Time::zero();
            bool done = true;
            Bytes call_bytes;
            for (std::uint32_t i = plan.call_first[c]; i < plan.call_first[c + 1]; ++i) {
                const workloads::OpTiming t = timing(i);
                done = done && t.done();
                begin = std::min(begin, t.start);
                end = std::max(end, t.finish);
                call_bytes += flow(i).size;
            }
            if (!done) continue;
            latency.push_back(end - begin);
            sum_ps += (end - begin).picoseconds();
            first = std::min(first, begin);
            last = std::max(last, end);
            bytes += call_bytes;
        }
        r.calls = static_cast<std::int64_t>(latency.size());
        if (r.calls > 0) {
            r.added_latency_mean = Time::ps(sum_ps / r.calls);
            r.added_latency_p99 = nearest_rank(latency, 0.99);
            const double span = (last - first).seconds();
            r.calls_per_s = span > 0 ? static_cast<double>(r.calls) / span : 0.0;
            r.bytes_per_s = span > 0 ? static_cast<double>(bytes.count()) / span : 0.0;
        }
    }
    return r;
}

std::vector<TrafficResult> traffic_results(const std::vector<workloads::TrafficPlan>& plans,
                                           const workloads::Executor& executor, const Network& network) {
    std::vector<TrafficResult> out;
    for (const auto& p : plans) out.push_back(traffic_result(p, executor, network));
    return out;
}

}  // namespace fabricsim::report
