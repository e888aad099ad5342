#include "report/result_csv.hpp"

#include "report/summary_metrics.hpp"

#include <fmt/format.h>

#include <string>

namespace fabricsim::report {

namespace {
// RFC 4180: quote a field that holds a comma, a quote or a line break.
std::string field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}
}  // namespace

std::string transfers_csv(const RunResult& result) {
    std::string out = "variant,name,from,to,bytes,start_s,end_s,fct_s,unloaded_s,slowdown,finished\n";
    // An unfinished transfer (a run cut short) leaves empty what it never reached.
    const auto seconds = [](bool known, Time t) { return known ? fmt::format("{}", t.seconds()) : std::string(); };
    for (const auto& v : result.variants)
        for (const auto& t : v.transfers)
            out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", field(v.name), field(t.name), t.from, t.to,
                               t.bytes.count(), seconds(t.issued(), t.start), seconds(t.finished(), t.finish),
                               seconds(t.finished(), t.fct()), t.unloaded.seconds(),
                               t.finished() ? fmt::format("{}", t.slowdown()) : std::string(),
                               t.finished() ? "true" : "false");
    return out;
}

std::string ports_csv(const RunResult& result) {
    std::string out = "variant,from,to,priority,bytes,busy_s,utilisation,max_queue_bytes,pauses_received,paused_s,"
                      "ecn_marks,mean_queue_bytes\n";
    for (const auto& v : result.variants) {
        const double run_s = v.makespan.seconds();
        for (const auto& p : v.ports)
            out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", field(v.name), field(p.from), field(p.to),
                               p.priority, p.bytes.count(), p.busy.seconds(),
                               run_s > 0 ? p.busy.seconds() / run_s : 0.0, p.max_queue.count(), p.pauses_received,
                               p.paused.seconds(), p.ecn_marks, run_s > 0 ? p.queue_area / run_s : 0.0);
    }
    return out;
}

std::string queues_csv(const RunResult& result) {
    std::string out = "variant,port,time_s,queue_bytes,paused,credit_stalled\n";
    for (const auto& v : result.variants)
        for (const auto& q : v.queues)
            for (const QueueSample& s : q.samples)
                out += fmt::format("{},{},{},{},{},{}\n", field(v.name), field(q.port), s.at.seconds(),
                                   s.queued.count(), s.paused ? 1 : 0, s.credit_stalled ? 1 : 0);
    return out;
}

std::string qp_rates_csv(const RunResult& result) {
    std::string out = "variant,qp,time_s,rate_bps,ccti\n";
    for (const auto& v : result.variants)
        for (const auto& q : v.qp_rates)
            for (const QpSample& s : q.samples)
                out += fmt::format("{},{},{},{},{}\n", field(v.name), field(q.name), s.at.seconds(),
                                   s.rate.bits_per_second(), s.ccti < 0 ? std::string() : std::to_string(s.ccti));
    return out;
}

std::string summary_csv(const RunResult& result) {
    std::string out = "variant,metric,value\n";
    for (const auto& v : result.variants)
        for (const auto& m : summary_metrics(v)) {
            if (m.name == "model") continue;  // text, not a number
            out += fmt::format("{},{},{}\n", field(v.name), m.name, m.value);
        }
    return out;
}

}  // namespace fabricsim::report
