// `- training: {...}` entries: every parameter sits inside the `training` mapping, in four
// groups (model, batch, gpu, parallelism) and a few job-level keys. The checks across keys are
// the ones Megatron-LM makes at start-up: tp·pp·dp GPUs, pp dividing the layers, ep dividing
// dp and the experts, the global batch a whole number of micro-batches per DP replica
// (docs/models/training.md).
#include "scenario/validate_training.hpp"

#include "scenario/field_readers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <set>

namespace fabricsim::scenario {

namespace {

const std::vector<std::string> kTrainingKeys{"model",   "batch",     "gpu",   "parallelism", "recompute",
                                             "overlap", "placement", "ranks", "iterations"};
const std::vector<std::string> kModelKeys{"parameters", "layers", "hidden", "sequence", "experts", "top_k"};
const std::vector<std::string> kBatchKeys{"global", "micro"};
const std::vector<std::string> kGpuKeys{"peak", "mfu"};
const std::vector<std::string> kParallelismKeys{"tp", "pp", "dp", "ep", "dp_mode"};
const std::vector<std::string> kDpModes{"all_reduce", "zero"};
const std::vector<std::string> kRecompute{"none", "full"};
const std::vector<std::string> kPlacements{"packed", "random", "topology_aware"};
const std::vector<std::string> kBools{"true", "false"};

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

std::optional<double> parse_double(const std::string& t) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc{} || ptr != t.data() + t.size() || t.empty() || !std::isfinite(v)) return std::nullopt;
    return v;
}

// Reads the keys of one group; `ok` turns false on any issue.
struct Reader {
    const std::string& path;
    Issues& issues;
    bool ok = true;

    template <class T>
    bool keep(const std::optional<T>& v) {
        ok = ok && v.has_value();
        return v.has_value();
    }
    const Node* required(const Node& section, const std::string& section_path, std::string_view key,
                         std::string_view what) {
        const Node* n = section.find(key);
        if (!n) {
            issues.add(section.location, key_path(section_path, key), fmt::format("missing required key ({})", what));
            ok = false;
        }
        return n;
    }
    void integer(const Node* n, const std::string& at, std::int64_t min, std::int64_t max, int& out) {
        if (!n) return;
        if (auto v = read_int(*n, at, min, max, issues); keep(v)) out = static_cast<int>(*v);
    }
};

// The nodes the checks across keys point at, and what the reading steps learnt.
struct TrainingRead {
    const Node& kind_node;
    std::string tpath;
    std::string par_path;
    const Node* parameters = nullptr;
    const Node* global = nullptr;
    const Node* par = nullptr;
    const Node* tp = nullptr;
    const Node* pp = nullptr;
    const Node* dp = nullptr;
    const Node* ep = nullptr;
    const Node* placement = nullptr;
    const Node* ranks = nullptr;
    std::int64_t rank_count = 0;  // 0: not given
};

// A required section of `training`: the mapping, or null after an issue.
std::pair<const Node*, std::string> required_section(const TrainingRead& t, std::string_view key, Reader& rd) {
    const std::string p = key_path(t.tpath, key);
    const Node* n = t.kind_node.find(key);
    if (!n) {
        rd.issues.add(t.kind_node.location, p, "missing required section");
        rd.ok = false;
        return {nullptr, p};
    }
    const Node* s = read_section(*n, p, rd.issues);
    if (!s) rd.ok = false;
    return {s, p};
}

void read_model(TrainingRead& t, TrainingSpec& spec, Reader& rd) {
    auto [m, mp] = required_section(t, "model", rd);
    if (!m) return;
    Issues& issues = rd.issues;
    check_keys(*m, mp, kModelKeys, issues);
    t.parameters = rd.required(*m, mp, "parameters", "the model's parameter count, e.g. 70B or 7e9");
    if (t.parameters) {
        std::optional<std::int64_t> v;
        if (t.parameters->is_scalar()) v = parse_count(t.parameters->text);
        if (!v || *v <= 0 || *v > kMaxParameters) {
            issues.add(t.parameters->location, key_path(mp, "parameters"),
                       fmt::format("expected a positive whole count such as 70B, 1.5T or 7e9, found {}",
                                   describe_found(*t.parameters)));
            rd.ok = false;
        } else {
            spec.model.parameters = *v;
        }
    }
    rd.integer(rd.required(*m, mp, "layers", "transformer layers"), key_path(mp, "layers"), 1, 100'000,
               spec.model.layers);
    rd.integer(rd.required(*m, mp, "hidden", "hidden size"), key_path(mp, "hidden"), 1, 1'000'000, spec.model.hidden);
    rd.integer(rd.required(*m, mp, "sequence", "tokens per sequence"), key_path(mp, "sequence"), 1, 10'000'000,
               spec.model.sequence);
    rd.integer(m->find("experts"), key_path(mp, "experts"), 0, 100'000, spec.model.experts);
    const Node* top_k = m->find("top_k");
    rd.integer(top_k, key_path(mp, "top_k"), 1, 100'000, spec.model.top_k);
    if (rd.ok && top_k && spec.model.experts == 0 && spec.model.top_k != 1) {
        issues.add(top_k->location, key_path(mp, "top_k"),
                   "top_k applies to a mixture-of-experts model; set model.experts");
        rd.ok = false;
    } else if (rd.ok && top_k && spec.model.top_k > spec.model.experts && spec.model.experts > 0) {
        issues.add(top_k->location, key_path(mp, "top_k"),
                   fmt::format("a token visits at most the {} experts there are, found top_k {}", spec.model.experts,
                               spec.model.top_k));
        rd.ok = false;
    }
}

void read_batch(TrainingRead& t, TrainingSpec& spec, Reader& rd) {
    auto [b, bp] = required_section(t, "batch", rd);
    if (!b) return;
    check_keys(*b, bp, kBatchKeys, rd.issues);
    t.global = rd.required(*b, bp, "global", "sequences per iteration");
    rd.integer(t.global, key_path(bp, "global"), 1, 100'000'000, spec.global_batch);
    rd.integer(b->find("micro"), key_path(bp, "micro"), 1, 1'000'000, spec.micro_batch);
}

void read_gpu(TrainingRead& t, TrainingSpec& spec, Reader& rd) {
    auto [g, gp] = required_section(t, "gpu", rd);
    if (!g) return;
    Issues& issues = rd.issues;
    check_keys(*g, gp, kGpuKeys, issues);
    if (const Node* n = rd.required(*g, gp, "peak", "the GPU's dense peak, e.g. 989TFLOPS")) {
        std::optional<std::int64_t> v;
        if (n->is_scalar()) v = parse_flops(n->text);
        if (!v || *v <= 0) {
            issues.add(
                n->location, key_path(gp, "peak"),
                fmt::format("expected a rate in FLOPS (e.g. 989TFLOPS, 1.979PFLOPS), found {}", describe_found(*n)));
            rd.ok = false;
        } else {
            spec.peak_flops = *v;
        }
    }
    if (const Node* n = g->find("mfu")) {
        std::optional<double> v;
        if (n->is_scalar()) v = parse_double(n->text);
        if (!v || *v <= 0 || *v > 1) {
            issues.add(n->location, key_path(gp, "mfu"),
                       fmt::format("expected a fraction in (0, 1], found {}", describe_found(*n)));
            rd.ok = false;
        } else {
            spec.mfu = *v;
        }
    }
}

// parallelism: its absence is reported after the job-level keys (reading order).
void read_parallelism(TrainingRead& t, TrainingSpec& spec, Reader& rd) {
    t.par = t.kind_node.find("parallelism");
    if (!t.par) return;
    const Node* p = read_section(*t.par, t.par_path, rd.issues);
    if (!p) {
        rd.ok = false;
        return;
    }
    check_keys(*p, t.par_path, kParallelismKeys, rd.issues);
    t.tp = p->find("tp");
    t.pp = p->find("pp");
    t.dp = p->find("dp");
    t.ep = p->find("ep");
    rd.integer(t.tp, key_path(t.par_path, "tp"), 1, kMaxDegree, spec.tp);
    rd.integer(t.pp, key_path(t.par_path, "pp"), 1, kMaxDegree, spec.pp);
    rd.integer(t.dp, key_path(t.par_path, "dp"), 1, kMaxDegree, spec.dp);
    rd.integer(t.ep, key_path(t.par_path, "ep"), 1, kMaxDegree, spec.ep);
    if (const Node* n = p->find("dp_mode")) {
        if (auto v = read_choice(*n, key_path(t.par_path, "dp_mode"), "dp_mode", kDpModes, rd.issues); rd.keep(v))
            spec.dp_mode = *v == "zero" ? DpMode::zero : DpMode::all_reduce;
    }
}

// recompute, overlap, placement, iterations.
void read_job_keys(TrainingRead& t, TrainingSpec& spec, Reader& rd) {
    const Node& k = t.kind_node;
    if (const Node* n = k.find("recompute")) {
        if (auto v = read_choice(*n, key_path(t.tpath, "recompute"), "recompute", kRecompute, rd.issues); rd.keep(v))
            spec.recompute = *v == "full" ? Recompute::full : Recompute::none;
    }
    if (const Node* n = k.find("overlap")) {
        if (auto v = read_choice(*n, key_path(t.tpath, "overlap"), "value", kBools, rd.issues); rd.keep(v))
            spec.overlap = *v == "true";
    }
    t.placement = k.find("placement");
    if (t.placement) {
        if (auto v = read_choice(*t.placement, key_path(t.tpath, "placement"), "placement", kPlacements, rd.issues);
            rd.keep(v))
            spec.placement = *v == "random"           ? Placement::random
                             : *v == "topology_aware" ? Placement::topology_aware
                                                      : Placement::packed;
    }
    if (const Node* n = k.find("iterations")) rd.integer(n, key_path(t.tpath, "iterations"), 1, 1000, spec.iterations);
}

// ranks: a count, or a list of distinct ranks of the cluster (which is then the placement).
void read_ranks(TrainingRead& t, TrainingSpec& spec, const ClusterSpec* cluster, Reader& rd) {
    Issues& issues = rd.issues;
    const int cluster_ranks = cluster ? cluster->ranks() : 0;
    t.ranks = t.kind_node.find("ranks");
    const std::string ranks_path = key_path(t.tpath, "ranks");
    if (t.ranks && t.ranks->is_sequence()) {
        std::set<std::int64_t> seen;
        if (t.ranks->items.empty()) {
            issues.add(t.ranks->location, ranks_path, "expected at least one rank");
            rd.ok = false;
        }
        for (std::size_t i = 0; i < t.ranks->items.size(); ++i) {
            const std::string ip = index_path(ranks_path, i);
            auto r = read_int(t.ranks->items[i], ip, 0, (1 << 30), issues);
            if (!rd.keep(r)) continue;
            if (cluster && *r >= cluster_ranks) {
                issues.add(t.ranks->items[i].location, ip,
                           fmt::format("rank {} does not exist; the cluster has {} ranks (0..{})", *r, cluster_ranks,
                                       cluster_ranks - 1));
                rd.ok = false;
            } else if (!seen.insert(*r).second) {
                issues.add(t.ranks->items[i].location, ip, fmt::format("rank {} is listed twice", *r));
                rd.ok = false;
            } else {
                spec.ranks.emplace_back(static_cast<RankId::rep>(*r));
            }
        }
        t.rank_count = static_cast<std::int64_t>(t.ranks->items.size());
        if (t.placement) {
            issues.add(t.placement->location, key_path(t.tpath, "placement"),
                       "placement chooses ranks for a count; with a list of ranks the list is the placement");
            rd.ok = false;
        }
    } else if (t.ranks) {
        if (auto v = read_int(*t.ranks, ranks_path, 1, (1 << 30), issues); rd.keep(v)) t.rank_count = *v;
    }
}

// The checks across keys, in the order a reader meets the keys; dp from the rank count when
// not given. False after an issue.
bool check_training(const TrainingRead& t, TrainingSpec& spec, const ClusterSpec* cluster, Issues& issues) {
    bool ok = true;
    const auto fail = [&](const Node* at, const std::string& key, std::string message) {
        issues.add(at ? at->location : t.kind_node.location, key, std::move(message));
        ok = false;
    };
    const std::string ranks_path = key_path(t.tpath, "ranks");
    const std::int64_t tp_pp = std::int64_t{spec.tp} * spec.pp;
    if (t.rank_count > 0) {
        if (!t.dp) {
            if (t.rank_count % tp_pp != 0) {
                fail(t.ranks, ranks_path,
                     fmt::format("{} ranks do not split into tp·pp = {}·{} = {} GPUs per replica", t.rank_count,
                                 spec.tp, spec.pp, tp_pp));
                return false;
            }
            spec.dp = static_cast<int>(t.rank_count / tp_pp);
        } else if (t.rank_count != tp_pp * spec.dp) {
            fail(t.ranks, ranks_path,
                 fmt::format("the job has tp·pp·dp = {}·{}·{} = {} GPUs, found {} ranks", spec.tp, spec.pp, spec.dp,
                             tp_pp * spec.dp, t.rank_count));
            return false;
        }
    }
    const int cluster_ranks = cluster ? cluster->ranks() : 0;
    const std::int64_t gpus = tp_pp * spec.dp;
    if (cluster && gpus > cluster_ranks) {
        fail(t.dp ? t.dp : (t.pp ? t.pp : t.tp), t.par_path,
             fmt::format("the job needs tp·pp·dp = {}·{}·{} = {} GPUs; the cluster has {} ranks", spec.tp, spec.pp,
                         spec.dp, gpus, cluster_ranks));
    }
    if (spec.model.layers % spec.pp != 0)
        fail(t.pp, key_path(t.par_path, "pp"),
             fmt::format("pp must divide model.layers: {} layers do not split into {} stages", spec.model.layers,
                         spec.pp));
    if (spec.model.hidden % spec.tp != 0)
        fail(t.tp, key_path(t.par_path, "tp"),
             fmt::format("tp must divide model.hidden: hidden {} does not split over {} GPUs", spec.model.hidden,
                         spec.tp));
    if (spec.ep > 1 && spec.model.experts == 0)
        fail(t.ep, key_path(t.par_path, "ep"),
             "expert parallelism needs a mixture-of-experts model (model.experts > 0)");
    else if (spec.ep > 1 && spec.dp % spec.ep != 0)
        fail(
            t.ep, key_path(t.par_path, "ep"),
            fmt::format("ep must divide dp (expert-parallel groups are cut from the data-parallel ranks): dp {}, ep {}",
                        spec.dp, spec.ep));
    else if (spec.ep > 1 && spec.model.experts % spec.ep != 0)
        fail(t.ep, key_path(t.par_path, "ep"),
             fmt::format("ep must divide model.experts: {} experts do not split over {} GPUs", spec.model.experts,
                         spec.ep));
    const std::int64_t per_step = std::int64_t{spec.micro_batch} * spec.dp;
    if (spec.global_batch % per_step != 0)
        fail(t.global, key_path(t.tpath, "batch.global"),
             fmt::format("the global batch must be a multiple of micro × dp = {} × {} = {}, found {}", spec.micro_batch,
                         spec.dp, per_step, spec.global_batch));
    if (spec.model.experts > 0) {
        const double attention = 4.0 * spec.model.hidden * double(spec.model.hidden) * spec.model.layers;
        if (double(spec.model.parameters) <= attention)
            fail(t.parameters, key_path(t.tpath, "model.parameters"),
                 fmt::format("{} parameters leave nothing for the experts after the attention weights "
                             "(4·hidden²·layers = {:.4g})",
                             spec.model.parameters, attention));
    }
    if (cluster && spec.placement == Placement::topology_aware) {
        const int per_server = cluster->server.ranks();
        if (spec.tp > per_server || per_server % spec.tp != 0)
            fail(t.placement, key_path(t.tpath, "placement"),
                 fmt::format("topology_aware keeps each TP group inside one server: tp {} must divide the {} GPUs of a "
                             "server",
                             spec.tp, per_server));
    }
    return ok;
}

}  // namespace

const std::vector<std::string>& training_keys() {
    static const std::vector<std::string> keys;  // every parameter sits inside `training:`
    return keys;
}

std::optional<TrainingSpec> validate_training(const Node& /*entry*/, const Node& kind_node, const std::string& path,
                                              const ClusterSpec* cluster, Issues& issues) {
    const std::string tpath = key_path(path, "training");
    if (!kind_node.is_mapping()) {
        issues.add(kind_node.location, tpath,
                   fmt::format("expected a mapping with model, batch, gpu and parallelism, found {}",
                               describe_found(kind_node)));
        return std::nullopt;
    }
    check_keys(kind_node, tpath, kTrainingKeys, issues);
    Reader rd{tpath, issues};
    TrainingSpec spec;
    TrainingRead t{kind_node, tpath, key_path(tpath, "parallelism")};
    read_model(t, spec, rd);
    read_batch(t, spec, rd);
    read_gpu(t, spec, rd);
    read_parallelism(t, spec, rd);
    read_job_keys(t, spec, rd);
    read_ranks(t, spec, cluster, rd);
    if (!t.par) {
        issues.add(kind_node.location, t.par_path, "missing required section");
        rd.ok = false;
    }
    if (!rd.ok || !check_training(t, spec, cluster, issues)) return std::nullopt;
    return spec;
}

}  // namespace fabricsim::scenario
