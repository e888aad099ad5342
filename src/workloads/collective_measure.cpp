#include "workloads/collective.hpp"
#include "workloads/executor.hpp"

#include <algorithm>

namespace fabricsim::workloads {

std::vector<CollectiveMeasurement> measure(const CollectivePlan& plan, const std::vector<OpTiming>& timings) {
    std::vector<RunSpan> spans;
    spans.reserve(plan.runs.size());
    for (const CollectiveRun& run : plan.runs) {
        Time first = Time::max(), last = Time::zero();
        for (std::uint32_t op = run.first_op; op < run.end_op; ++op) {
            first = std::min(first, timings[op].start);
            last = std::max(last, timings[op].finish);
        }
        if (run.end_op == run.first_op) first = last;  // nothing to move (one rank)
        spans.push_back({first, last});
    }
    return measure(plan, spans);
}

std::vector<CollectiveMeasurement> measure(const CollectivePlan& plan, const std::vector<RunSpan>& spans) {
    std::vector<CollectiveMeasurement> out;
    std::size_t i = 0;
    while (i < plan.runs.size()) {
        const Bytes size = plan.runs[i].size;
        std::int64_t total_ps = 0, count = 0;
        bool finished = true;
        for (; i < plan.runs.size() && plan.runs[i].size == size; ++i) {
            const RunSpan& span = spans[i];
            if (span.last == Time::max()) {
                finished = false;
                continue;
            }
            total_ps += (span.last - span.first).picoseconds();
            ++count;
        }
        CollectiveMeasurement m;
        m.size = size;
        m.algorithm = plan.runs[i - 1].algorithm;
        m.choice = plan.runs[i - 1].choice;
        m.channels = plan.runs[i - 1].channels;
        if (!finished || count == 0) {
            m.time = Time::max();
        } else {
            m.time = Time::ps(total_ps / count);
            if (m.time > Time::zero()) {
                m.algbw_GBps = static_cast<double>(size.count()) / m.time.seconds() / 1e9;
                m.busbw_GBps = m.algbw_GBps * bus_factor(plan.op, plan.ranks);
            }
        }
        out.push_back(m);
    }
    return out;
}

}  // namespace fabricsim::workloads
