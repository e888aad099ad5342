#include "report/busbw_curve.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fabricsim::report {

namespace {

// nccl-tests conventions: elements of 4-byte floats; reductions sum; -1 for "no root". The
// last column, the algorithm run at that size (auto may change it), is fabricsim's own.
constexpr std::int64_t kFloatBytes = 4;

const char* redop_of(const std::string& op) { return op == "all_reduce" || op == "reduce_scatter" ? "sum" : "none"; }
int root_of(const std::string& op) { return op == "broadcast" ? 0 : -1; }

std::string table(const VariantResult& v, const std::vector<const CollectiveResult*>& rows) {
    const CollectiveResult& first = *rows.front();
    std::vector<NcclTestsRow> lines;
    for (const CollectiveResult* c : rows)
        lines.push_back({c->op, c->bytes, c->time, c->algbw_GBps, c->busbw_GBps, c->algorithm});
    return nccl_tests_table(fmt::format("{}: {}, {} ranks — variant {}", first.name, first.op, first.ranks, v.name),
                            "algorithm", lines);
}

}  // namespace

std::string nccl_tests_table(const std::string& title, const std::string& last_column,
                             const std::vector<NcclTestsRow>& rows) {
    std::string out = fmt::format("# {}\n", title);
    out += fmt::format("#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>9}  {:>7}  {:>7}  {}\n", "size", "count", "type",
                       "redop", "root", "time", "algbw", "busbw", last_column);
    out += fmt::format("#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>9}  {:>7}  {:>7}\n", "(B)", "(elements)", "", "", "",
                       "(us)", "(GB/s)", "(GB/s)");
    for (const NcclTestsRow& c : rows) {
        const std::int64_t bytes = c.bytes.count();
        if (c.time == Time::max()) {
            out += fmt::format(" {:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>9}  {:>7}  {:>7}  {}\n", bytes,
                               bytes / kFloatBytes, "float", redop_of(c.op), root_of(c.op), "unfinished", "-", "-",
                               c.last);
            continue;
        }
        out += fmt::format(" {:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>9.2f}  {:>7.2f}  {:>7.2f}  {}\n", bytes,
                           bytes / kFloatBytes, "float", redop_of(c.op), root_of(c.op), c.time.seconds() * 1e6,
                           c.algbw_GBps, c.busbw_GBps, c.last);
    }
    return out;
}

std::string busbw_curves(const RunResult& result) {
    std::string out;
    for (const VariantResult& v : result.variants) {
        // Entries in the order they first appear, each with its sizes in run order.
        std::vector<std::vector<const CollectiveResult*>> entries;
        for (const CollectiveResult& c : v.collectives) {
            std::size_t e = 0;
            while (e < entries.size() && entries[e].front()->name != c.name) ++e;
            if (e == entries.size()) entries.emplace_back();
            entries[e].push_back(&c);
        }
        for (const auto& rows : entries) {
            if (rows.size() < 2) continue;
            if (!out.empty()) out += '\n';
            out += table(v, rows);
        }
    }
    return out;
}

}  // namespace fabricsim::report
