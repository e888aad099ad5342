// A training entry as the user writes it (validate_training.cpp reads exactly this back).
#include "scenario/describe_entries.hpp"

#include <fmt/format.h>

namespace fabricsim::scenario {

namespace {

Value text(std::string s) { return Value{std::move(s)}; }
Value integer(std::int64_t v) { return Value{v}; }

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

}  // namespace

void describe_training(const TrainingSpec& t, Value::Map& entry) {
    static constexpr const char* kPlacements[] = {"packed", "random", "topology_aware"};
    Value::Map model{
        {"parameters", integer(t.model.parameters)}, {"layers", integer(t.model.layers)},
        {"hidden", integer(t.model.hidden)},         {"sequence", integer(t.model.sequence)},
        {"experts", integer(t.model.experts)},       {"top_k", integer(t.model.top_k)},
    };
    Value::Map batch{{"global", integer(t.global_batch)}, {"micro", integer(t.micro_batch)}};
    Value::Map gpu{{"peak", text(flops_text(t.peak_flops))}, {"mfu", Value{t.mfu}}};
    Value::Map parallelism{
        {"tp", integer(t.tp)},
        {"pp", integer(t.pp)},
        {"dp", integer(t.dp)},
        {"ep", integer(t.ep)},
        {"dp_mode", text(t.dp_mode == DpMode::zero ? "zero" : "all_reduce")},
    };
    Value::Map m{
        {"model", Value{std::move(model)}},
        {"batch", Value{std::move(batch)}},
        {"gpu", Value{std::move(gpu)}},
        {"parallelism", Value{std::move(parallelism)}},
        {"recompute", text(t.recompute == Recompute::full ? "full" : "none")},
        {"overlap", Value{t.overlap}},
    };
    if (t.ranks.empty()) {
        m.push_back({"placement", text(kPlacements[static_cast<int>(t.placement)])});
        m.push_back({"ranks", integer(t.gpus())});
    } else {
        Value::List ranks;
        for (RankId r : t.ranks) ranks.push_back(integer(r.value()));
        m.push_back({"ranks", Value{std::move(ranks)}});
    }
    m.push_back({"iterations", integer(t.iterations)});
    entry.push_back({"training", Value{std::move(m)}});
}

}  // namespace fabricsim::scenario
