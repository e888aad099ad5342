#include "workloads/traffic_program.hpp"

#include <algorithm>

namespace fabricsim::workloads {

using scenario::TrafficPattern;

TrafficProgram::TrafficProgram(const scenario::TrafficSpec& spec, const scenario::ClusterSpec& cluster,
                               std::uint64_t seed, const std::string& entry_name, std::uint32_t entry)
    : flows_(spec, cluster, seed, entry_name),
      plan_(flows_.plan(entry, 0)),
      timings_(flows_.count()),
      waiting_(flows_.chains(), 0),
      left_(flows_.count()) {
    plan_.program = this;
}

void TrafficProgram::begin(ReadyOps& ready) {
    switch (plan_.pattern) {
        case TrafficPattern::poisson:
            for (std::size_t s = 0; s < flows_.senders(); ++s)
                if (flows_.sender_first(s) < flows_.sender_first(s + 1)) ready.push_back(flows_.sender_first(s));
            return;
        case TrafficPattern::gpu_pool:
            for (std::uint64_t chain = 0; chain < flows_.chains(); ++chain)
                release_call(chain * static_cast<std::uint64_t>(flows_.calls()), true, ready);
            return;
        default:
            for (std::uint64_t i = 0; i < flows_.count(); ++i) ready.push_back(i);
    }
}

void TrafficProgram::release_call(std::uint64_t call, bool in, ReadyOps& ready) {
    // A call's flows in (to the GPU) or back, in their numbers' order: the order in which a
    // whole graph lists them among the successors of the op they wait for.
    const auto per = static_cast<std::uint64_t>(flows_.per_call());
    const auto first_in = static_cast<std::uint64_t>(flows_.in_per_call());
    const std::uint64_t from = call * per + (in ? 0 : first_in), to = call * per + (in ? first_in : per);
    waiting_[call / static_cast<std::uint64_t>(flows_.calls())] = static_cast<std::uint8_t>(to - from);
    for (std::uint64_t i = from; i < to; ++i) ready.push_back(i);
}

Op TrafficProgram::op(std::uint64_t local) const {
    const TrafficFlow f = flows_[local];
    Op o;
    o.kind = OpKind::send;
    o.src = f.src;
    o.dst = f.dst;
    o.size = f.size;
    o.not_before = f.not_before;
    return o;
}

void TrafficProgram::issued(std::uint64_t local, Time now, ReadyOps& ready) {
    timings_[local].start = now;
    if (plan_.pattern != TrafficPattern::poisson) return;
    // The sender's next arrival, unless this was its last.
    const std::uint64_t next = local + 1;
    std::size_t lo = 0, hi = flows_.senders();  // the sender whose flows hold `local`
    while (hi - lo > 1) {
        const std::size_t mid = (lo + hi) / 2;
        (flows_.sender_first(mid) <= local ? lo : hi) = mid;
    }
    if (next < flows_.sender_first(lo + 1)) ready.push_back(next);
}

void TrafficProgram::finished(std::uint64_t local, Time start, Time finish, ReadyOps& ready) {
    timings_[local] = OpTiming{start, finish};
    --left_;
    if (plan_.pattern != TrafficPattern::gpu_pool) return;
    const auto per = static_cast<std::uint64_t>(flows_.per_call());
    const std::uint64_t call = local / per;
    const std::uint64_t chain = call / static_cast<std::uint64_t>(flows_.calls());
    if (--waiting_[chain] > 0) return;
    const bool was_in = local % per < static_cast<std::uint64_t>(flows_.in_per_call());
    if (was_in)
        release_call(call, false, ready);
    else if ((call + 1) % static_cast<std::uint64_t>(flows_.calls()) != 0)
        release_call(call + 1, true, ready);
}

}  // namespace fabricsim::workloads
