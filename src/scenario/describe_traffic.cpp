// A traffic entry's keys as the user writes them, each pattern's own only, so that the
// description reads back as the same entry (validate --print, result.json "scenario").
#include "core/units_format.hpp"
#include "scenario/describe_entries.hpp"

namespace fabricsim::scenario {

namespace {

Value text(std::string s) { return Value{std::move(s)}; }
Value integer(std::int64_t v) { return Value{v}; }

Value rank_set(const std::vector<RankId>& ranks) {
    if (ranks.empty()) return text("all");
    Value::List list;
    for (RankId r : ranks) list.push_back(integer(r.value()));
    return Value{std::move(list)};
}

}  // namespace

void describe_traffic(const TrafficSpec& t, Value::Map& m) {
    static constexpr const char* kPatterns[] = {"permutation", "incast",  "all_to_all",
                                                "poisson",     "storage", "gpu_pool"};
    m.push_back({"traffic", text(kPatterns[static_cast<int>(t.pattern)])});
    switch (t.pattern) {
        case TrafficPattern::permutation:
        case TrafficPattern::all_to_all:
            m.push_back({"size", text(to_string(t.size))});
            m.push_back({"senders", rank_set(t.senders)});
            break;
        case TrafficPattern::incast:
            m.push_back({"size", text(to_string(t.size))});
            m.push_back({"senders", rank_set(t.senders)});
            m.push_back({"receiver", integer(t.receiver.value())});
            break;
        case TrafficPattern::poisson:
            m.push_back({"senders", rank_set(t.senders)});
            m.push_back({"load", Value{t.load}});
            m.push_back({"cdf", text(t.cdf)});
            m.push_back({"duration", text(to_string(t.duration))});
            break;
        case TrafficPattern::storage:
            m.push_back({"size", text(to_string(t.size))});
            m.push_back({"ranks", rank_set(t.ranks)});
            m.push_back({"operation", text(t.operation == StorageOperation::write ? "write" : "read")});
            break;
        case TrafficPattern::gpu_pool:
            m.push_back({"ranks", rank_set(t.ranks)});
            m.push_back({"clients", t.clients == 0 ? text("all") : integer(t.clients)});
            m.push_back({"calls", integer(t.calls)});
            m.push_back({"concurrency", integer(t.concurrency)});
            m.push_back({"request", text(to_string(t.request))});
            m.push_back({"response", text(to_string(t.response))});
            m.push_back({"copy", text(to_string(t.copy))});
            m.push_back({"copy_back", text(to_string(t.copy_back))});
            m.push_back({"interval", text(to_string(t.interval))});
            break;
    }
    m.push_back({"start", text(to_string(t.start))});
}

}  // namespace fabricsim::scenario
