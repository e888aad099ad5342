// `- collective: all_reduce` entries: the op is the kind key's value and the parameters sit
// beside it (algorithm, size or sizes, ranks, iterations, channels, root), as in docs/SCENARIO.md.
#include "scenario/validate_collective.hpp"
#include "scenario/field_readers.hpp"
#include "scenario/input_limits.hpp"
#include "scenario/units_parse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace fabricsim::scenario {

namespace {

const std::vector<std::string> kOps{"all_reduce", "all_gather", "reduce_scatter",
                                    "all_to_all", "broadcast",  "send_recv"};
const std::vector<std::string> kAlgorithms{"auto",     "ring", "tree",         "halving_doubling",
                                           "pairwise", "nvls", "hierarchical", "sharp"};
constexpr std::int64_t kMaxSweepPoints = 64;

CollectiveOp op_of(const std::string& s) {
    return static_cast<CollectiveOp>(std::find(kOps.begin(), kOps.end(), s) - kOps.begin());
}

CollectiveAlgorithm algorithm_of(const std::string& s) {
    if (s == "ring") return CollectiveAlgorithm::ring;
    if (s == "tree") return CollectiveAlgorithm::tree;
    if (s == "halving_doubling") return CollectiveAlgorithm::halving_doubling;
    if (s == "pairwise") return CollectiveAlgorithm::pairwise;
    if (s == "nvls") return CollectiveAlgorithm::nvls;
    if (s == "hierarchical") return CollectiveAlgorithm::hierarchical;
    if (s == "sharp") return CollectiveAlgorithm::sharp;
    return CollectiveAlgorithm::automatic;
}

// Which algorithms run which op (docs/models/collectives.md).
std::vector<std::string> algorithms_for(CollectiveOp op) {
    switch (op) {
        case CollectiveOp::all_reduce:
            return {"auto", "ring", "tree", "halving_doubling", "nvls", "hierarchical", "sharp"};
        case CollectiveOp::all_gather:
        case CollectiveOp::reduce_scatter: return {"auto", "ring", "halving_doubling", "nvls"};
        case CollectiveOp::all_to_all: return {"auto", "pairwise"};
        case CollectiveOp::broadcast:
        case CollectiveOp::send_recv: return {"auto", "ring"};
    }
    return {"auto"};
}

// "8B..8GiB x2": every size from..to multiplying by the factor, to included when reached.
std::optional<std::vector<Bytes>> read_sweep(const Node& node, const std::string& path, Issues& issues) {
    if (node.is_sequence()) {
        std::vector<Bytes> sizes;
        bool ok = true;
        for (std::size_t i = 0; i < node.items.size(); ++i) {
            auto b = read_bytes(node.items[i], index_path(path, i), Zero::rejected, issues);
            ok = ok && b.has_value();
            if (b) sizes.push_back(*b);
        }
        if (ok && sizes.empty()) {
            issues.add(node.location, path, "expected at least one size");
            return std::nullopt;
        }
        return ok ? std::optional(sizes) : std::nullopt;
    }
    const auto bad = [&] {
        issues.add(node.location, path,
                   fmt::format("expected a sweep \"FROM..TO xFACTOR\" (e.g. 8B..8GiB x2) or a list of sizes, found {}",
                               describe_found(node)));
        return std::nullopt;
    };
    if (!node.is_scalar()) return bad();
    const std::string& t = node.text;
    const auto dots = t.find("..");
    const auto x = t.rfind(" x");
    if (dots == std::string::npos || x == std::string::npos || x < dots) return bad();
    const auto from = parse_bytes(t.substr(0, dots));
    const auto to = parse_bytes(t.substr(dots + 2, x - dots - 2));
    std::int64_t factor = 0;
    try {
        std::size_t used = 0;
        factor = std::stoll(t.substr(x + 2), &used);
        if (used != t.size() - x - 2) factor = 0;
    } catch (const std::exception&) {
        factor = 0;
    }
    if (!from.ok() || !to.ok() || factor < 2) return bad();
    if (from.value().count() <= 0 || to.value() < from.value()) {
        issues.add(node.location, path, fmt::format("the sweep must go up from a positive size, found \"{}\"", t));
        return std::nullopt;
    }
    if (const auto beyond = beyond_limit(to.value())) {
        issues.add(node.location, path, fmt::format("expected a size {}, found \"{}\"", *beyond, t));
        return std::nullopt;
    }
    std::vector<Bytes> sizes;
    for (std::int64_t b = from.value().count(); b <= to.value().count(); b *= factor) {
        sizes.emplace_back(b);
        if (static_cast<std::int64_t>(sizes.size()) > kMaxSweepPoints) {
            issues.add(node.location, path, fmt::format("a sweep has at most {} sizes", kMaxSweepPoints));
            return std::nullopt;
        }
        if (b > INT64_MAX / factor) break;
    }
    return sizes;
}

}  // namespace

const std::vector<std::string>& collective_keys() {
    static const std::vector<std::string> keys{"algorithm", "size", "sizes", "ranks", "iterations", "channels", "root"};
    return keys;
}

std::optional<CollectiveSpec> validate_collective(const Node& entry, const Node& op_node, const std::string& path,
                                                  std::optional<int> ranks, Issues& issues) {
    const std::string op_path = key_path(path, "collective");
    auto op_name = read_choice(op_node, op_path, "collective", kOps, issues);
    CollectiveSpec spec;
    bool ok = op_name.has_value();
    if (op_name) spec.op = op_of(*op_name);

    if (const Node* n = entry.find("algorithm")) {
        const std::string a_path = key_path(path, "algorithm");
        if (auto a = read_choice(*n, a_path, "algorithm", kAlgorithms, issues)) {
            const auto allowed = op_name ? algorithms_for(spec.op) : kAlgorithms;
            if (std::find(allowed.begin(), allowed.end(), *a) == allowed.end()) {
                issues.add(n->location, a_path,
                           fmt::format("{} does not run {}; it runs with: {}", *a, *op_name, join(allowed)));
                ok = false;
            } else {
                spec.algorithm = algorithm_of(*a);
            }
        } else {
            ok = false;
        }
    }

    const Node* size = entry.find("size");
    const Node* sizes = entry.find("sizes");
    if (size && sizes) {
        issues.add(sizes->location, key_path(path, "sizes"), "give either size or sizes, not both");
        ok = false;
    } else if (size) {
        auto b = read_bytes(*size, key_path(path, "size"), Zero::rejected, issues);
        ok = ok && b.has_value();
        if (b) spec.sizes = {*b};
    } else if (sizes) {
        auto s = read_sweep(*sizes, key_path(path, "sizes"), issues);
        ok = ok && s.has_value();
        if (s) spec.sizes = *s;
    } else {
        issues.add(entry.location, key_path(path, "size"), "missing required key (size, or sizes for a sweep)");
        ok = false;
    }

    int group_size = ranks.value_or(0);  // 0: unknown
    if (const Node* n = entry.find("ranks")) {
        auto r = read_rank_set(*n, key_path(path, "ranks"), ranks, -1, issues);
        ok = ok && r.has_value();
        if (r) {
            spec.ranks = *r;
            if (!r->empty()) group_size = static_cast<int>(r->size());
        } else {
            group_size = 0;
        }
    }
    if (const Node* n = entry.find("iterations")) {
        auto v = read_int(*n, key_path(path, "iterations"), 1, 10'000, issues);
        ok = ok && v.has_value();
        if (v) spec.iterations = static_cast<int>(*v);
    }
    if (const Node* n = entry.find("channels")) {
        if (!(n->is_scalar() && n->text == "auto")) {
            auto v = read_int(*n, key_path(path, "channels"), 1, 64, issues);
            ok = ok && v.has_value();
            if (v) spec.channels = static_cast<int>(*v);
        }
    }
    if (const Node* n = entry.find("root")) {
        auto v = read_int(*n, key_path(path, "root"), 0, (1 << 30), issues);
        ok = ok && v.has_value();
        if (v) {
            spec.root = RankId{static_cast<RankId::rep>(*v)};
            const bool in_group = spec.ranks.empty()
                                      ? (!ranks || *v < *ranks)
                                      : std::find(spec.ranks.begin(), spec.ranks.end(), spec.root) != spec.ranks.end();
            if (!in_group) {
                issues.add(n->location, key_path(path, "root"),
                           fmt::format("rank {} is not one of the collective's ranks", *v));
                ok = false;
            }
        }
    }
    if (group_size == 1) {
        issues.add(entry.location, key_path(path, "ranks"), "a collective needs at least 2 ranks");
        ok = false;
    }
    if (ok && group_size > 0 && spec.algorithm == CollectiveAlgorithm::halving_doubling &&
        !std::has_single_bit(static_cast<unsigned>(group_size))) {
        issues.add(
            entry.find("algorithm")->location, key_path(path, "algorithm"),
            fmt::format("halving_doubling needs a power-of-two number of ranks; this collective has {}", group_size));
        ok = false;
    }
    if (!ok) return std::nullopt;
    return spec;
}

}  // namespace fabricsim::scenario
