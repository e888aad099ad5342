// `- training: {...}` entries: every parameter sits inside the `training` mapping, in four
// groups (model, batch, gpu, parallelism) and a few job-level keys, one declaration per key. The
// checks across keys are the ones Megatron-LM makes at start-up: tp·pp·dp GPUs, pp dividing the
// layers, ep dividing dp and the experts, the global batch a whole number of micro-batches per
// DP replica (docs/models/training.md).
#include "scenario/key_types.hpp"
#include "scenario/workload_keys.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <climits>

namespace fabricsim::scenario {

namespace {

using S = TrainingSpec;
using Ctx = EntryContext;

constexpr std::int64_t kMaxParameters = 100'000'000'000'000;  // 1e14
constexpr std::int64_t kMaxDegree = 1 << 20;

// "70B", "1.5T", "7e9", "175000000000": a whole count. Suffixes K, M, B (billion), T are
// powers of 1000; an exponent e<N> a power of ten. Exact decimal arithmetic, no rounding.
std::optional<std::int64_t> parse_count(std::string_view t) {
    std::size_t i = 0;
    std::string digits;
    int fraction = 0;  // digits after the point
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) digits += t[i++];
    if (i < t.size() && t[i] == '.') {
        ++i;
        while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) {
            digits += t[i++];
            ++fraction;
        }
    }
    if (digits.empty() || digits.size() > 18) return std::nullopt;
    int exponent = 0;
    const std::string_view rest = t.substr(i);
    if (rest.empty()) {
    } else if (rest == "K") {
        exponent = 3;
    } else if (rest == "M") {
        exponent = 6;
    } else if (rest == "B" || rest == "G") {
        exponent = 9;
    } else if (rest == "T") {
        exponent = 12;
    } else if (rest.size() > 1 && (rest[0] == 'e' || rest[0] == 'E')) {
        const auto [ptr, ec] = std::from_chars(rest.data() + 1, rest.data() + rest.size(), exponent);
        if (ec != std::errc{} || ptr != rest.data() + rest.size() || exponent < 0 || exponent > 18) return std::nullopt;
    } else {
        return std::nullopt;
    }
    std::int64_t mantissa = std::stoll(digits);
    int shift = exponent - fraction;
    for (; shift < 0; ++shift) {
        if (mantissa % 10 != 0) return std::nullopt;  // not whole
        mantissa /= 10;
    }
    for (; shift > 0; --shift) {
        if (mantissa > INT64_MAX / 10) return std::nullopt;
        mantissa *= 10;
    }
    return mantissa;
}

// "989TFLOPS", "1.979PFLOPS", "312 TFLOP/s": a whole number of FLOP/s.
std::optional<std::int64_t> parse_flops(std::string_view t) {
    std::string_view unit;
    for (std::string_view u : {"FLOPS", "FLOP/s"})
        if (t.size() > u.size() && t.substr(t.size() - u.size()) == u) unit = u;
    if (unit.empty()) return std::nullopt;
    std::string_view number = t.substr(0, t.size() - unit.size());
    int exponent = 0;
    if (!number.empty()) {
        const char prefix = number.back();
        const std::string_view prefixes = "KMGTPE";
        if (const auto p = prefixes.find(prefix); p != std::string_view::npos) {
            exponent = 3 * static_cast<int>(p + 1);
            number.remove_suffix(1);
        }
    }
    while (!number.empty() && number.back() == ' ') number.remove_suffix(1);
    if (number.empty() || number.find_first_not_of("0123456789.") != std::string_view::npos) return std::nullopt;
    return parse_count(fmt::format("{}e{}", number, exponent));
}

// The largest SI prefix that keeps the number whole: 989000000000000 -> "989TFLOPS".
std::string flops_text(std::int64_t flops) {
    static constexpr const char* kPrefixes[] = {"", "K", "M", "G", "T", "P", "E"};
    int p = 0;
    while (p < 6 && flops % 1000 == 0 && flops != 0) {
        flops /= 1000;
        ++p;
    }
    return fmt::format("{}{}FLOPS", flops, kPrefixes[p]);
}

const Table<TrainingModelSpec, Ctx>& model_table() {
    using M = TrainingModelSpec;
    static const Table<M, Ctx> t{
        "workload.training.model",
        {
            key("parameters", &M::parameters,
                parsed<std::int64_t>(
                    TypeDoc{"count > 0", {"string", "integer"}},
                    [](const std::string& s) -> std::optional<std::int64_t> {
                        const auto v = parse_count(s);
                        return v && *v > 0 && *v <= kMaxParameters ? v : std::nullopt;
                    },
                    "a positive whole count such as 70B, 1.5T or 7e9"),
                kAllModels,
                "Total parameters, experts included: `70B`, `1.5T`, `7e9`, `175000000000` (K, M, B, T are powers of "
                "1000; must be whole).")
                .required("missing required key (the model's parameter count, e.g. 70B or 7e9)"),
            key("layers", &M::layers, integer(1, 100'000), kAllModels, "Transformer layers.")
                .required("missing required key (transformer layers)"),
            key("hidden", &M::hidden, integer(1, 1'000'000), kAllModels, "Hidden size.")
                .required("missing required key (hidden size)"),
            key("sequence", &M::sequence, integer(1, 10'000'000), kAllModels, "Tokens per sequence.")
                .required("missing required key (tokens per sequence)"),
            key("experts", &M::experts, integer(0, 100'000), kAllModels,
                "0: dense; E: every layer's FFN is E experts (needs parameters > 4·hidden²·layers)."),
            key("top_k", &M::top_k, integer(1, 100'000), kAllModels,
                "Experts per token (MoE only), at most `experts`."),
        }};
    return t;
}

const Table<S, Ctx>& batch_table() {
    static const Table<S, Ctx> t{
        "workload.training.batch",
        {
            key("global", &S::global_batch, integer(1, 100'000'000), kAllModels,
                "Sequences per iteration; a multiple of micro × dp.")
                .required("missing required key (sequences per iteration)"),
            key("micro", &S::micro_batch, integer(1, 1'000'000), kAllModels, "Sequences per micro-batch."),
        }};
    return t;
}

const Table<S, Ctx>& gpu_table() {
    static const Table<S, Ctx> t{
        "workload.training.gpu",
        {
            key("peak", &S::peak_flops,
                {TypeDoc{"FLOP/s", {"string"}},
                 [](const Node& n, const std::string& path, Issues& issues) -> std::optional<std::int64_t> {
                     std::optional<std::int64_t> v;
                     if (n.is_scalar()) v = parse_flops(n.text);
                     if (v && *v > 0) return v;
                     return add_expected(issues, n, path, "a rate in FLOPS (e.g. 989TFLOPS, 1.979PFLOPS)");
                 },
                 [](const std::int64_t& f) { return Value{flops_text(f)}; }},
                kAllModels,
                "Dense peak per GPU: `989TFLOPS`, `1.979PFLOPS`, `312 TFLOP/s` (K, M, G, T, P, E prefixes; whole "
                "FLOP/s).")
                .required("missing required key (the GPU's dense peak, e.g. 989TFLOPS)"),
            key("mfu", &S::mfu,
                parsed<double>(
                    TypeDoc{"(0, 1]", {"number"}},
                    [](const std::string& s) -> std::optional<double> {
                        const auto v = parse_number(s);
                        return v && *v > 0 && *v <= 1 ? v : std::nullopt;
                    },
                    "a fraction in (0, 1]"),
                kAllModels, "Fraction of the peak sustained on the FLOPs executed."),
        }};
    return t;
}

const Table<S, Ctx>& parallelism_table() {
    static const Table<S, Ctx> t{
        "workload.training.parallelism",
        {
            key("tp", &S::tp, integer(1, kMaxDegree), kAllModels, "Tensor parallelism; divides `model.hidden`."),
            key("pp", &S::pp, integer(1, kMaxDegree), kAllModels, "Pipeline stages; divides `model.layers`."),
            key("dp", &S::dp, integer(1, kMaxDegree), kAllModels,
                "Data parallelism. May be left out when `ranks` gives the count: dp = ranks / (tp·pp)."),
            key("ep", &S::ep, integer(1, kMaxDegree), kAllModels,
                "Expert parallelism; divides dp and `model.experts` (ep > 1 needs experts)."),
            key("dp_mode", &S::dp_mode,
                choice<DpMode>("dp_mode", {{"all_reduce", DpMode::all_reduce}, {"zero", DpMode::zero}}), kAllModels,
                "Gradient all-reduce, or reduce-scatter + parameter all-gather (ZeRO)."),
        }};
    return t;
}

// ranks: a count, or a list of distinct ranks of the cluster (which is then the placement).
bool read_ranks(const Node& n, const std::string& path, S& spec, Ctx& ctx, Issues& issues) {
    if (!n.is_sequence()) return store(ctx.rank_count, read_int(n, path, 1, (1 << 30), issues));
    ctx.rank_count = static_cast<std::int64_t>(n.items.size());
    if (n.items.empty()) {
        issues.add(n.location, path, "expected at least one rank");
        return false;
    }
    return store(spec.ranks, read_rank_set(n, path, ctx.ranks, -1, issues));
}

// The checks across keys, in the order a reader meets the keys; dp from the rank count when
// not given. False after an issue.
bool check_training(const SectionRead& r, const Node& kind_node, const std::string& tpath, std::int64_t rank_count,
                    TrainingSpec& spec, const ClusterSpec* cluster, Issues& issues) {
    const std::string par_path = key_path(tpath, "parallelism");
    const Node* tp = r.given("parallelism.tp");
    const Node* pp = r.given("parallelism.pp");
    const Node* dp = r.given("parallelism.dp");
    const Node* ep = r.given("parallelism.ep");
    const std::size_t before = issues.size();
    const auto at = [&](const Node* n) { return n != nullptr ? n->location : kind_node.location; };
    const std::string ranks_path = key_path(tpath, "ranks");
    const std::int64_t tp_pp = std::int64_t{spec.tp} * spec.pp;
    if (rank_count > 0) {
        if (!dp) {
            if (rank_count % tp_pp != 0) {
                issues.add(at(r.given("ranks")), ranks_path,
                           "{} ranks do not split into tp·pp = {}·{} = {} GPUs per replica", rank_count, spec.tp,
                           spec.pp, tp_pp);
                return false;
            }
            spec.dp = static_cast<int>(rank_count / tp_pp);
        } else if (rank_count != tp_pp * spec.dp) {
            issues.add(at(r.given("ranks")), ranks_path, "the job has tp·pp·dp = {}·{}·{} = {} GPUs, found {} ranks",
                       spec.tp, spec.pp, spec.dp, tp_pp * spec.dp, rank_count);
            return false;
        }
    }
    const int cluster_ranks = cluster ? cluster->ranks() : 0;
    const std::int64_t gpus = tp_pp * spec.dp;
    if (cluster && gpus > cluster_ranks) {
        issues.add(at(dp ? dp : (pp ? pp : tp)), par_path,
                   "the job needs tp·pp·dp = {}·{}·{} = {} GPUs; the cluster has {} ranks", spec.tp, spec.pp, spec.dp,
                   gpus, cluster_ranks);
    }
    if (spec.model.layers % spec.pp != 0)
        issues.add(at(pp), key_path(par_path, "pp"),
                   "pp must divide model.layers: {} layers do not split into {} stages", spec.model.layers, spec.pp);
    if (spec.model.hidden % spec.tp != 0)
        issues.add(at(tp), key_path(par_path, "tp"),
                   "tp must divide model.hidden: hidden {} does not split over {} GPUs", spec.model.hidden, spec.tp);
    if (spec.ep > 1 && spec.model.experts == 0)
        issues.add(at(ep), key_path(par_path, "ep"),
                   "expert parallelism needs a mixture-of-experts model (model.experts > 0)");
    else if (spec.ep > 1 && spec.dp % spec.ep != 0)
        issues.add(at(ep), key_path(par_path, "ep"),
                   "ep must divide dp (expert-parallel groups are cut from the data-parallel ranks): dp {}, ep {}",
                   spec.dp, spec.ep);
    else if (spec.ep > 1 && spec.model.experts % spec.ep != 0)
        issues.add(at(ep), key_path(par_path, "ep"),
                   "ep must divide model.experts: {} experts do not split over {} GPUs", spec.model.experts, spec.ep);
    const std::int64_t per_step = std::int64_t{spec.micro_batch} * spec.dp;
    if (spec.global_batch % per_step != 0)
        issues.add(at(r.given("batch.global")), key_path(tpath, "batch.global"),
                   "the global batch must be a multiple of micro × dp = {} × {} = {}, found {}", spec.micro_batch,
                   spec.dp, per_step, spec.global_batch);
    if (spec.model.experts > 0) {
        const double attention = 4.0 * spec.model.hidden * double(spec.model.hidden) * spec.model.layers;
        if (double(spec.model.parameters) <= attention)
            issues.add(at(r.given("model.parameters")), key_path(tpath, "model.parameters"),
                       "{} parameters leave nothing for the experts after the attention weights "
                       "(4·hidden²·layers = {:.4g})",
                       spec.model.parameters, attention);
    }
    if (cluster && spec.placement == Placement::topology_aware) {
        const int per_server = cluster->server.ranks();
        if (spec.tp > per_server || per_server % spec.tp != 0)
            issues.add(at(r.given("placement")), key_path(tpath, "placement"),
                       "topology_aware keeps each TP group inside one server: tp {} must divide the {} GPUs of a "
                       "server",
                       spec.tp, per_server);
    }
    return issues.size() == before;
}

}  // namespace

const Table<S, Ctx>& training_table() {
    static const Table<S, Ctx> t{
        "workload.training",
        {
            section("model", &S::model, model_table(), "The transformer (keys below).")
                .required("missing required section"),
            group("batch", batch_table(), "The batch (keys below).").required("missing required section"),
            group("gpu", gpu_table(), "The GPU's speed (keys below).").required("missing required section"),
            group("parallelism", parallelism_table(), "How the job is split over its GPUs (keys below).")
                .required("missing required section"),
            key("recompute", &S::recompute,
                choice<Recompute>("recompute", {{"none", Recompute::none}, {"full", Recompute::full}}), kAllModels,
                "`full` adds one forward to every backward (8·P·tokens instead of 6)."),
            custom_key<S, Ctx>(
                "overlap", TypeDoc{"`true`, `false`", {"boolean"}}, kAllModels,
                "DP gradient buckets start during the stage's last backward.",
                [](const Node& n, const std::string& path, S& out, Ctx&, Issues& issues) {
                    const auto v = read_choice(n, path, "value", {"true", "false"}, issues);
                    if (v) out.overlap = *v == "true";
                    return v.has_value();
                },
                [](const S& s) { return Value{s.overlap}; }),
            key("placement", &S::placement,
                choice<Placement>("placement", {{"packed", Placement::packed},
                                                {"random", Placement::random},
                                                {"topology_aware", Placement::topology_aware}}),
                kAllModels,
                "How the job's GPUs are chosen among the ranks earlier training entries left free; not with a "
                "ranks list. topology_aware needs tp to divide the GPUs of a server.")
                .printed_if([](const S& s) { return s.ranks.empty(); }),
            custom_key<S, Ctx>(
                "ranks", TypeDoc{"count or list", {"integer", "array"}}, kAllModels,
                "A count must equal tp·pp·dp (≤ the cluster's ranks); a list gives the exact ranks in Megatron order "
                "(TP fastest, then DP, then PP).",
                read_ranks,
                [](const S& s) {
                    if (s.ranks.empty()) return Value{std::int64_t{s.gpus()}};
                    return print_rank_set(s.ranks);
                })
                .shown_default("tp·pp·dp"),
            key("iterations", &S::iterations, integer(1, 1000), kAllModels,
                "Iterations back to back; results are the mean."),
        }};
    return t;
}

std::optional<TrainingSpec> read_training(const Node& kind_node, const std::string& path, EntryContext& ctx,
                                          Issues& issues) {
    const std::string tpath = key_path(path, "training");
    if (!kind_node.is_mapping())
        return add_expected(issues, kind_node, tpath, "a mapping with model, batch, gpu and parallelism");
    S spec;
    ctx.rank_count = 0;
    const SectionRead r = read_table(kind_node, tpath, training_table(), spec, ctx, issues);
    bool ok = r.failed.empty();
    // top_k, once the model's keys were read.
    const Node* top_k = r.given("model.top_k");
    const bool model_ok =
        std::none_of(r.failed.begin(), r.failed.end(), [](const std::string& f) { return f.starts_with("model"); });
    const std::string top_k_path = key_path(tpath, "model.top_k");
    if (model_ok && top_k && spec.model.experts == 0 && spec.model.top_k != 1) {
        issues.add(top_k->location, top_k_path, "top_k applies to a mixture-of-experts model; set model.experts");
        ok = false;
    } else if (model_ok && top_k && spec.model.top_k > spec.model.experts && spec.model.experts > 0) {
        issues.add(top_k->location, top_k_path, "a token visits at most the {} experts there are, found top_k {}",
                   spec.model.experts, spec.model.top_k);
        ok = false;
    }
    const Node* ranks = r.given("ranks");
    const Node* placement = r.given("placement");
    if (ranks != nullptr && ranks->is_sequence() && placement != nullptr) {
        issues.add(placement->location, key_path(tpath, "placement"),
                   "placement chooses ranks for a count; with a list of ranks the list is the placement");
        ok = false;
    }
    if (!ok || !check_training(r, kind_node, tpath, ctx.rank_count, spec, ctx.cluster, issues)) return std::nullopt;
    return spec;
}

}  // namespace fabricsim::scenario
