#include "report/timeline_json.hpp"

#include <nlohmann/json.hpp>

#include <set>

namespace fabricsim::report {

std::string timeline_json(const RunResult& result) {
    using Json = nlohmann::ordered_json;
    Json events = Json::array();
    for (std::size_t v = 0; v < result.variants.size(); ++v) {
        const VariantResult& variant = result.variants[v];
        const auto pid = static_cast<std::int64_t>(v);
        // Metadata ("M") events name the process after the variant and each thread after its rank.
        events.push_back(Json{{"name", "process_name"},
                              {"ph", "M"},
                              {"pid", pid},
                              {"tid", 0},
                              {"args", {{"name", "variant " + variant.name}}}});
        std::set<std::uint32_t> ranks;
        for (const auto& e : variant.timeline) ranks.insert(e.rank);
        for (std::uint32_t r : ranks)
            events.push_back(Json{{"name", "thread_name"},
                                  {"ph", "M"},
                                  {"pid", pid},
                                  {"tid", r},
                                  {"args", {{"name", "rank " + std::to_string(r)}}}});
        for (const auto& e : variant.timeline)
            events.push_back(Json{{"name", e.name},
                                  {"cat", e.category},
                                  {"ph", "X"},
                                  {"ts", e.start.seconds() * 1e6},
                                  {"dur", (e.finish - e.start).seconds() * 1e6},
                                  {"pid", pid},
                                  {"tid", e.rank}});
    }
    return Json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}}.dump(1) + "\n";
}

}  // namespace fabricsim::report
