// `fabricsim compare a.yaml [b.yaml ...] [--set k=v]... [-j N] [--markdown FILE] [--html FILE]`:
// runs every variant of every scenario and prints one comparison table (report/comparison.hpp,
// docs/REPORTS.md): each row's value per variant, its difference against the first variant and
// the better variant. Columns are the variant names for one file, "file-stem: variant" (or the
// stem alone for a one-variant file) across files. --markdown writes the table as Markdown;
// --html a self-contained report with the table and its plots (report/html_report.hpp).
// Exit 3 when a variant's result is not complete and sound, as `run`.
#pragma once

#include "cli/commands.hpp"

#include <string>
#include <vector>

namespace fabricsim::cli {

struct CompareArgs {
    std::vector<std::string> files;
    std::vector<std::string> sets;
    std::optional<std::uint64_t> seed;
    int jobs = 0;
    std::string markdown;  // "" none
    std::string html;      // "" none
    bool quiet = false;
};

int compare_command(const CompareArgs& args);

}  // namespace fabricsim::cli
