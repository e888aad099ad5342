// `- collective: all_reduce` entries: the op is the kind key's value and the parameters sit
// beside it (algorithm, size or sizes, ranks, iterations, channels, root), one declaration per
// key, and the checks across them: an algorithm that runs the op, a group of at least 2 ranks
// (a power of two for halving_doubling), a broadcast root inside the group.
#include "core/units_format.hpp"
#include "scenario/input_limits.hpp"
#include "scenario/key_types.hpp"
#include "scenario/units_parse.hpp"
#include "scenario/workload_keys.hpp"

#include <algorithm>
#include <bit>

namespace fabricsim::scenario {

namespace {

using S = CollectiveSpec;
using Ctx = EntryContext;

constexpr std::int64_t kMaxSweepPoints = 64;

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
        auto sizes = read_items<Bytes>(node, path, size(Zero::rejected).read, issues);
        if (sizes && sizes->empty()) return issues.reject(node.location, path, "expected at least one size");
        return sizes;
    }
    const auto bad = [&] {
        return issues.reject(node.location, path,
                             "expected a sweep \"FROM..TO xFACTOR\" (e.g. 8B..8GiB x2) or a list of sizes, found {}",
                             describe_found(node));
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
    if (from.value().count() <= 0 || to.value() < from.value())
        return issues.reject(node.location, path, "the sweep must go up from a positive size, found \"{}\"", t);
    if (const auto beyond = beyond_limit(to.value()))
        return issues.reject(node.location, path, "expected a size {}, found \"{}\"", *beyond, t);
    std::vector<Bytes> sizes;
    for (std::int64_t b = from.value().count(); b <= to.value().count(); b *= factor) {
        sizes.emplace_back(b);
        if (static_cast<std::int64_t>(sizes.size()) > kMaxSweepPoints)
            return issues.reject(node.location, path, "a sweep has at most {} sizes", kMaxSweepPoints);
        if (b > INT64_MAX / factor) break;
    }
    return sizes;
}

Value size_text(Bytes b) { return Value{to_string(b)}; }

}  // namespace

const Table<S, Ctx>& collective_table() {
    static const Table<S, Ctx> t{
        "workload.collective",
        {
            key("collective", &S::op,
                choice<CollectiveOp>("collective", {{"all_reduce", CollectiveOp::all_reduce},
                                                    {"all_gather", CollectiveOp::all_gather},
                                                    {"reduce_scatter", CollectiveOp::reduce_scatter},
                                                    {"all_to_all", CollectiveOp::all_to_all},
                                                    {"broadcast", CollectiveOp::broadcast},
                                                    {"send_recv", CollectiveOp::send_recv}}),
                kAllModels,
                "The operation; S follows nccl-tests (the gathered output for all_gather, the input for "
                "reduce_scatter, the whole send buffer for all_to_all).")
                .required(),
            key("algorithm", &S::algorithm,
                choice<CollectiveAlgorithm>("algorithm", {{"auto", CollectiveAlgorithm::automatic},
                                                          {"ring", CollectiveAlgorithm::ring},
                                                          {"tree", CollectiveAlgorithm::tree},
                                                          {"halving_doubling", CollectiveAlgorithm::halving_doubling},
                                                          {"pairwise", CollectiveAlgorithm::pairwise},
                                                          {"nvls", CollectiveAlgorithm::nvls},
                                                          {"hierarchical", CollectiveAlgorithm::hierarchical},
                                                          {"sharp", CollectiveAlgorithm::sharp}}),
                kAllModels,
                "ring runs all ops but all_to_all; tree (NCCL's double binary tree), hierarchical and sharp run "
                "all_reduce; halving_doubling runs all_reduce, reduce_scatter, all_gather on a power-of-two group; "
                "nvls runs all_reduce, reduce_scatter, all_gather inside one NVLink4+ NVSwitch server; pairwise runs "
                "all_to_all. sharp needs an InfiniBand fabric of switches with `sharp: true`. `auto` estimates each "
                "candidate and takes the fastest (docs/models/collectives.md); result.json's `algorithm_choice` says "
                "why."),
            custom_key<S, Ctx>(
                "size", size(Zero::rejected).doc, kAllModels,
                "The size of one collective. `size` or `sizes` is required.",
                [](const Node& n, const std::string& path, S& out, Ctx& ctx, Issues& issues) {
                    if (ctx.entry->find("sizes") != nullptr) return false;  // `sizes` says both are given
                    const auto b = size(Zero::rejected).read(n, path, issues);
                    if (b) out.sizes = {*b};
                    return b.has_value();
                },
                [](const S& c) { return c.sizes.size() == 1 ? size_text(c.sizes.front()) : Value{}; })
                .shown_default("one is required"),
            custom_key<S, Ctx>(
                "sizes", TypeDoc{"sweep or list of sizes", {"string", "array"}}, kAllModels,
                "A sweep `FROM..TO xF` multiplies by F (at most 64 sizes). With two sizes or more, `fabricsim run` "
                "also prints the curve in nccl-tests' columns (size, count, type, redop, root, time in µs, algbw, "
                "busbw; then the algorithm run), one table per variant.",
                [](const Node& n, const std::string& path, S& out, Ctx& ctx, Issues& issues) {
                    if (ctx.entry->find("size") != nullptr) {
                        issues.add(n.location, path, "give either size or sizes, not both");
                        return false;
                    }
                    return store(out.sizes, read_sweep(n, path, issues));
                },
                [](const S& c) { return c.sizes.size() == 1 ? Value{} : list_value(c.sizes, size_text); })
                .shown_default("one is required"),
            custom_key<S, Ctx>(
                "ranks", TypeDoc{"`all`, count ≥ 2, or list", {"string", "integer", "array"}}, kAllModels,
                "The group; listed ranks must exist and be distinct.",
                [](const Node& n, const std::string& path, S& out, Ctx& ctx, Issues& issues) {
                    return store(out.ranks, read_rank_set(n, path, ctx.ranks, -1, issues));
                },
                [](const S& c) { return print_rank_set(c.ranks); }),
            key("iterations", &S::iterations, integer(1, 10'000), kAllModels,
                "Runs per size, back to back; results are the mean."),
            key("channels", &S::channels, channels_field(), kAllModels,
                "Parallel rings/schedules; `auto` is two per NIC across servers, min(16, ranks) inside "
                "one."),
            custom_key<S, Ctx>(
                "root", TypeDoc{"rank", {"integer"}}, kAllModels, "The broadcast root; must be in the group.",
                [](const Node& n, const std::string& path, S& out, Ctx& ctx, Issues& issues) {
                    const auto v = read_int(n, path, 0, (1 << 30), issues);
                    if (!v) return false;
                    out.root = RankId{static_cast<RankId::rep>(*v)};
                    const bool in_group =
                        out.ranks.empty() ? (!ctx.ranks || *v < *ctx.ranks)
                                          : std::find(out.ranks.begin(), out.ranks.end(), out.root) != out.ranks.end();
                    if (!in_group) issues.add(n.location, path, "rank {} is not one of the collective's ranks", *v);
                    return in_group;
                },
                [](const S& c) { return Value{std::int64_t{c.root.value()}}; })
                .printed_if([](const S& c) { return c.op == CollectiveOp::broadcast; })
                .shown_default("`0`"),
        }};
    return t;
}

std::vector<std::string> collective_keys() {
    std::vector<std::string> keys = collective_table().names();
    keys.erase(keys.begin());  // the kind key
    return keys;
}

std::optional<CollectiveSpec> read_collective(const Node& entry, const std::string& path, EntryContext& ctx,
                                              Issues& issues) {
    S spec;
    const SectionRead r = read_keys(entry, path, collective_table(), spec, ctx, issues);
    bool ok = r.failed.empty();
    const Node* algorithm = r.given("algorithm");
    if (algorithm != nullptr && r.ok("collective") && r.ok("algorithm")) {
        const auto allowed = algorithms_for(spec.op);
        if (std::find(allowed.begin(), allowed.end(), algorithm->text) == allowed.end()) {
            issues.add(algorithm->location, key_path(path, "algorithm"), "{} does not run {}; it runs with: {}",
                       algorithm->text, r.given("collective")->text, join(allowed));
            ok = false;
        }
    }
    if (r.given("size") == nullptr && r.given("sizes") == nullptr) {
        issues.add(entry.location, key_path(path, "size"), "missing required key (size, or sizes for a sweep)");
        ok = false;
    }
    int group_size = ctx.ranks.value_or(0);  // 0: unknown
    if (r.given("ranks") != nullptr && !spec.ranks.empty()) group_size = static_cast<int>(spec.ranks.size());
    if (!r.ok("ranks")) group_size = 0;
    if (group_size == 1) {
        issues.add(entry.location, key_path(path, "ranks"), "a collective needs at least 2 ranks");
        ok = false;
    }
    if (ok && group_size > 0 && spec.algorithm == CollectiveAlgorithm::halving_doubling &&
        !std::has_single_bit(static_cast<unsigned>(group_size))) {
        issues.add(algorithm->location, key_path(path, "algorithm"),
                   "halving_doubling needs a power-of-two number of ranks; this collective has {}", group_size);
        ok = false;
    }
    if (!ok) return std::nullopt;
    return spec;
}

}  // namespace fabricsim::scenario
