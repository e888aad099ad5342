#include "cli/variant_runner.hpp"

#include "cli/progress_bar.hpp"
#include "core/errors.hpp"
#include "report/fault_figures.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

namespace fabricsim::cli {

std::vector<const scenario::Variant*> select_variants(const scenario::LoadedScenario& loaded,
                                                      const std::vector<std::string>& names) {
    std::vector<const scenario::Variant*> out;
    for (const auto& name : names) {
        bool known = false;
        for (const auto& v : loaded.variants) known = known || v.name == name;
        if (known) continue;
        std::string all;
        for (const auto& v : loaded.variants) all += (all.empty() ? "" : ", ") + v.name;
        ConfigIssue issue;
        issue.location.file = "--variant";
        issue.message = fmt::format("no variant \"{}\" in {}; it has: {}", name, loaded.file, all);
        throw ConfigError(std::move(issue));
    }
    for (const auto& v : loaded.variants)
        if (names.empty() || std::find(names.begin(), names.end(), v.name) != names.end()) out.push_back(&v);
    return out;
}

int worker_count(int requested, std::size_t variants) {
    int n = requested > 0 ? requested : static_cast<int>(std::thread::hardware_concurrency());
    n = std::max(n, 1);
    return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(n), std::max<std::size_t>(variants, 1)));
}

void run_variants(const std::vector<const scenario::Variant*>& variants, const RunPlan& plan,
                  const std::function<void(std::size_t, report::VariantResult)>& on_done) {
    std::mutex lock;  // on_done, the progress bars and the fields below
    std::size_t next = 0;
    std::optional<std::size_t> failed_at;
    std::exception_ptr failure;

    const auto worker = [&] {
        for (;;) {
            std::size_t i = 0;
            {
                std::lock_guard<std::mutex> hold(lock);
                const bool interrupted = plan.interrupt != nullptr && plan.interrupt->load() != 0;
                if (next == variants.size() || failed_at || interrupted) return;
                i = next++;
            }
            const scenario::Variant& variant = *variants[i];
            // Bars of variants running side by side take turns on the one line.
            auto bar = std::make_unique<ProgressBar>(variant.name, plan.show_progress);
            VariantOptions options;
            options.check = plan.check;
            options.interrupt = plan.interrupt;
            if (plan.show_progress)
                options.progress = [&lock, &bar](Time t, std::size_t done, std::size_t total) {
                    std::lock_guard<std::mutex> hold(lock);
                    bar->update(t, done, total);
                };
            if (plan.show_progress)
                options.building = [&lock, &bar](std::size_t ops) {
                    std::lock_guard<std::mutex> hold(lock);
                    bar->building(ops);
                };
            try {
                report::VariantResult result = run_variant(variant, options);
                if (plan.baseline && !variant.spec.faults.empty()) {  // the same variant without its faults
                    scenario::Variant clean = variant;
                    clean.spec.faults.clear();
                    VariantOptions quiet = options;
                    quiet.progress = {};
                    quiet.building = {};
                    result.baseline = report::compare_with_baseline(result, run_variant(clean, quiet));
                }
                std::lock_guard<std::mutex> hold(lock);
                bar.reset();
                on_done(i, std::move(result));
            } catch (...) {
                std::lock_guard<std::mutex> hold(lock);
                bar.reset();
                if (!failed_at || i < *failed_at) {
                    failed_at = i;
                    failure = std::current_exception();
                }
            }
        }
    };

    const int jobs = worker_count(plan.jobs, variants.size());
    if (jobs == 1) {
        worker();
    } else {
        std::vector<std::thread> threads;
        for (int t = 0; t < jobs; ++t) threads.emplace_back(worker);
        for (auto& t : threads) t.join();
    }
    if (failure) std::rethrow_exception(failure);
}

}  // namespace fabricsim::cli
