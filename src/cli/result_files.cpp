#include "cli/result_files.hpp"

#include "core/errors.hpp"
#include "report/html_report.hpp"
#include "report/result_csv.hpp"
#include "report/result_json.hpp"
#include "report/timeline_json.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

namespace fabricsim::cli {

namespace fs = std::filesystem;

fs::path default_results_dir(const std::string& scenario_name) {
    std::string safe;
    for (char c : scenario_name) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                           c == '_' || c == '+' || c == '.';
        safe += plain && !(c == '.' && safe.find_first_not_of('_') == std::string::npos) ? c : '_';
    }
    if (safe.empty()) safe = "scenario";
    return fs::path("results") / safe;
}

ResultFolder::ResultFolder(fs::path dir, std::vector<scenario::OutputFormat> formats, std::string where, bool html)
    : dir_(std::move(dir)), formats_(std::move(formats)), where_(std::move(where)), html_(html) {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec) fail(fmt::format("cannot create output folder \"{}\": {}", dir_.string(), ec.message()));
    if (!fs::is_directory(dir_, ec)) fail(fmt::format("output folder \"{}\" is not a folder", dir_.string()));
    // Whether files can be made here at all (permissions, a read-only file system), before
    // hours of simulation; a full disk can still strike later, and then write() says so.
    write_file(".fabricsim-write-test", "");
    fs::remove(dir_ / ".fabricsim-write-test", ec);
    for (const char* name : kResultFileNames) {
        fs::remove(dir_ / name, ec);
        if (ec) fail(fmt::format("cannot remove \"{}\" of an earlier run: {}", (dir_ / name).string(), ec.message()));
    }
}

void ResultFolder::write(const report::RunResult& result) const {
    for (auto format : formats_) {
        if (format == scenario::OutputFormat::json) write_file("result.json", report::to_json(result));
        if (format == scenario::OutputFormat::csv) {
            write_file("transfers.csv", report::transfers_csv(result));
            write_file("summary.csv", report::summary_csv(result));
            bool any_ports = false, any_rates = false, any_queues = false;
            for (const auto& v : result.variants) {
                any_ports = any_ports || !v.ports.empty();
                any_rates = any_rates || !v.qp_rates.empty();
                any_queues = any_queues || !v.queues.empty();
            }
            if (any_ports) write_file("ports.csv", report::ports_csv(result));
            if (any_rates) write_file("qp_rates.csv", report::qp_rates_csv(result));
            if (any_queues) write_file("queues.csv", report::queues_csv(result));
        }
    }
    // For people rather than programs, so not one of outputs.formats.
    if (html_ && !result.variants.empty()) write_file("report.html", report::html_report(result));
    bool timeline = false;
    for (const auto& v : result.variants) timeline = timeline || !v.timeline.empty();
    if (timeline) write_file("timeline.json", report::timeline_json(result));
}

void ResultFolder::write_file(const std::string& name, const std::string& text) const {
    const fs::path target = dir_ / name;
    const fs::path temporary = dir_ / fmt::format(".{}.{}.tmp", name, getpid());
    errno = 0;
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (out) out << text;
    if (out) out.close();  // flushes: a full disk shows here
    if (!out) {
        const std::string why = errno != 0 ? std::strerror(errno) : "write failed";
        std::error_code ignored;
        fs::remove(temporary, ignored);
        fail(fmt::format("cannot write \"{}\": {}", temporary.string(), why));
    }
    std::error_code ec;
    fs::rename(temporary, target, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temporary, ignored);
        fail(fmt::format("cannot replace \"{}\": {}", target.string(), ec.message()));
    }
}

void ResultFolder::fail(const std::string& message) const {
    ConfigIssue issue;
    issue.location.file = where_;
    issue.key_path = "outputs.dir";
    issue.message = message;
    throw ConfigError(std::move(issue));
}

}  // namespace fabricsim::cli
