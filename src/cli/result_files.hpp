// The results folder of `fabricsim run`: made and tested before anything is simulated, and
// rewritten after every variant, so a run that is stopped, killed or fails later keeps every
// variant that finished.
//
// Each file is written to a temporary file in the same folder and renamed over the old one
// (rename(2) is atomic within a file system): a reader, a full disk or a signal never sees a
// truncated result.json. fabricsim's own result files left by an earlier run (result.json,
// transfers.csv, summary.csv, ports.csv, qp_rates.csv, queues.csv, report.html, timeline.json) are removed when
// the folder is opened, so the folder never mixes two runs; any other file in it is left alone.
#pragma once

#include "report/run_result.hpp"
#include "scenario/spec.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace fabricsim::cli {

// The file names fabricsim run writes.
inline constexpr const char* kResultFileNames[] = {"result.json",  "transfers.csv", "summary.csv", "ports.csv",
                                                   "qp_rates.csv", "queues.csv",    "report.html", "timeline.json"};

// results/<name> with the name made safe as one folder name: a character other than a letter,
// digit, '-', '_', '+' or '.' becomes '_', and so do leading dots ("..", ".hidden"); an empty
// name becomes "scenario".
std::filesystem::path default_results_dir(const std::string& scenario_name);

class ResultFolder {
public:
    // Creates `dir`, checks that a file can be written in it and removes the result files of
    // an earlier run. A failure is a ConfigError naming `where` ("--out" or the scenario file)
    // and `key_path` ("outputs.dir"). `html`: write report.html too (run --no-html: not).
    ResultFolder(std::filesystem::path dir, std::vector<scenario::OutputFormat> formats, std::string where,
                 bool html = true);

    // (Re)writes every file the formats ask for from `result`; ports.csv, qp_rates.csv and
    // queues.csv only when a variant has rows for them; report.html (report::html_report, the
    // page `compare --html` writes) whatever the formats, once a variant has finished.
    void write(const report::RunResult& result) const;

    const std::filesystem::path& dir() const { return dir_; }

private:
    void write_file(const std::string& name, const std::string& text) const;
    [[noreturn]] void fail(const std::string& message) const;

    std::filesystem::path dir_;
    std::vector<scenario::OutputFormat> formats_;
    std::string where_;
    bool html_;
};

}  // namespace fabricsim::cli
