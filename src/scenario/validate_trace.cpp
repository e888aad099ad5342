#include "scenario/validate_trace.hpp"

#include "scenario/field_readers.hpp"
#include "scenario/source_files.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fabricsim::scenario {

std::string trace_file(const std::string& path, int rank) {
    std::string out = path;
    const auto at = out.find("%d");
    if (at != std::string::npos) out.replace(at, 2, std::to_string(rank));
    return out;
}

std::optional<TraceSpec> validate_trace(const Node& kind_node, const std::string& path, std::optional<int> ranks,
                                        Issues& issues) {
    const std::string here = key_path(path, "trace");
    const Node* map = read_section(kind_node, here, issues);
    if (map == nullptr) return std::nullopt;
    check_keys(*map, here, {"format", "path", "ranks", "algorithm", "channels"}, issues);
    TraceSpec spec;
    bool ok = true;
    if (const Node* n = map->find("format"))
        ok = read_choice(*n, key_path(here, "format"), "format", {"chakra"}, issues).has_value();
    const Node* p = map->find("path");
    if (p == nullptr) {
        issues.add(map->location, key_path(here, "path"), "missing required key");
        ok = false;
    } else if (auto s = read_text(*p, key_path(here, "path"), issues)) {
        // One "%d" names each rank's file; without it every rank would read the same file.
        const auto first = s->find("%d");
        if (first == std::string::npos || s->find("%d", first + 2) != std::string::npos) {
            issues.add(p->location, key_path(here, "path"),
                       fmt::format("\"{}\" needs exactly one \"%d\", which stands for the trace rank "
                                   "(e.g. \"traces/job.%d.et\")",
                                   *s));
            ok = false;
        } else {
            spec.path = resolve_display(p->location.file, *s);
        }
    } else {
        ok = false;
    }
    if (const Node* n = map->find("ranks")) {
        // `all` (empty: every file from rank 0 on), a count or a list.
        if (auto set = read_rank_set(*n, key_path(here, "ranks"), ranks, -1, issues)) {
            for (RankId r : *set) spec.ranks.push_back(static_cast<int>(r.value()));
            std::sort(spec.ranks.begin(), spec.ranks.end());
        } else {
            ok = false;
        }
    }
    if (const Node* n = map->find("algorithm")) {
        if (auto a = read_choice(*n, key_path(here, "algorithm"), "algorithm", {"auto", "ring"}, issues))
            spec.algorithm = *a == "ring" ? CollectiveAlgorithm::ring : CollectiveAlgorithm::automatic;
        else
            ok = false;
    }
    if (const Node* n = map->find("channels"); n != nullptr && !(n->is_scalar() && n->text == "auto")) {
        if (auto v = read_int(*n, key_path(here, "channels"), 1, 64, issues))
            spec.channels = static_cast<int>(*v);
        else
            ok = false;
    }
    if (!ok) return std::nullopt;
    return spec;
}

}  // namespace fabricsim::scenario
