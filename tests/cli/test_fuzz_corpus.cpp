// The fuzz corpus under tests/fuzz/ through the real binary (docs/FUZZING.md): bad input
// gets exit 2, never a crash, a hang, an internal error or std::bad_alloc.
//
// Every file of tests/fuzz/seeds/ and tests/fuzz/regressions/ is validated and, when it
// validates, run briefly (stop_time 10 ms, at most 2 GiB, a 120 s wall limit): validate
// exits 0 or 2, run 0, 2 or 3. A regression input also states the exact outcome in its header:
//   # expect-exit: 2
//   # expect: <a fragment of the output>
#include <catch2/catch.hpp>

#include "cli_harness.hpp"

#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

using namespace fabricsim::test;
namespace fs = std::filesystem;

namespace {

// fabricsim under a wall-clock limit: `timeout` (coreutils) kills a hung run, and its 137 is
// no exit code fabricsim uses; a signal is exit code -1.
Outcome run_limited(const std::string& args) {
    const std::string command = std::string("cd '") + FABRICSIM_SOURCE_DIR + "' && timeout -s KILL 120 '" +
                                FABRICSIM_BINARY + "' " + args + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string output;
    std::array<char, 4096> buffer{};
    while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
    const int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

struct Expectation {
    int exit_code = -1;  // -1: none stated
    std::string fragment;
};

Expectation expectation_of(const std::string& text) {
    Expectation e;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line) && line.starts_with("#");) {
        if (line.starts_with("# expect-exit: "))
            e.exit_code = std::stoi(line.substr(15));
        else if (line.starts_with("# expect: "))
            e.fragment = line.substr(10);
    }
    return e;
}

// "#set key=value" lines at the top (the libFuzzer harness's overrides) as --set options.
std::string sets_of(const std::string& text) {
    std::string sets;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line) && line.starts_with("#set ");)
        sets += " --set '" + line.substr(5) + "'";
    return sets;
}

std::vector<fs::path> corpus() {
    std::vector<fs::path> files;
    for (const char* dir : {"tests/fuzz/seeds", "tests/fuzz/regressions"})
        for (const auto& f : fs::directory_iterator(fs::path(FABRICSIM_SOURCE_DIR) / dir))
            if (f.is_regular_file()) files.push_back(f.path());
    std::sort(files.begin(), files.end());
    return files;
}

// validate, then a short run when it validated: the last outcome.
Outcome validate_and_run(const fs::path& file, const std::string& sets, const TempDir& out) {
    std::string quoted = "'";  // appended piece by piece: GCC 12's -Wrestrict misfires on "'" + s + "'"
    quoted.append(file.string()).append("'").append(sets);
    Outcome v = run_limited(std::string("validate ").append(quoted));
    INFO(file.filename().string() << ": validate\n" << v.output);
    CHECK((v.exit_code == 0 || v.exit_code == 2));
    if (v.exit_code != 0) return v;
    std::string args = "run ";
    args.append(quoted).append(" --quiet --max-memory 2GiB --out '").append(out.path().string());
    args.append("' --set simulation.stop_time=10ms");
    Outcome r = run_limited(args);
    INFO(file.filename().string() << ": run\n" << r.output);
    CHECK((r.exit_code == 0 || r.exit_code == 2 || r.exit_code == 3));
    CHECK(r.output.find("internal error") == std::string::npos);
    return r;
}

}  // namespace

TEST_CASE("every fuzz corpus input validates or is refused, and runs to exit 0, 2 or 3", "[fuzz][errors]") {
    const auto files = corpus();
    REQUIRE(files.size() >= 14);
    for (const auto& file : files) {
        const std::string text = read_file(file);
        TempDir out("fuzz-corpus");
        const Outcome o = validate_and_run(file, sets_of(text), out);
        const Expectation e = expectation_of(text);
        if (e.exit_code < 0) continue;
        INFO(file.filename().string() << "\n" << o.output);
        CHECK(o.exit_code == e.exit_code);
        CHECK(o.output.find(e.fragment) != std::string::npos);
    }
}

TEST_CASE("an include of a FIFO is refused unread instead of blocking", "[fuzz][errors]") {
    TempDir dir("fuzz-fifo");
    const fs::path fifo = dir.path() / "pipe.yaml";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    const fs::path scenario = dir.path() / "s.yaml";
    write_file(scenario, "include: pipe.yaml\nname: fifo\ncluster: { servers: 2, server: host-1nic }\n"
                         "workload: [ { transfer: { from: 0, to: 1, size: 1MiB } } ]\n");
    const Outcome o = run_limited("validate '" + scenario.string() + "'");
    INFO(o.output);
    CHECK(o.exit_code == 2);
    CHECK(o.output.find("include: cannot read \"" + fifo.string() + "\": not a regular file") != std::string::npos);
    // The main scenario file itself, as a FIFO.
    const Outcome main_fifo = run_limited("validate '" + fifo.string() + "'");
    INFO(main_fifo.output);
    CHECK(main_fifo.exit_code == 2);
    CHECK(main_fifo.output.find("not a regular file") != std::string::npos);
}
