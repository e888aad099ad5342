// The README's examples are real commands: every `./build/fabricsim ...` line of its code
// blocks runs and exits 0 (output paths under /tmp are redirected to a temporary folder).
#include <catch2/catch.hpp>

#include "cli_harness.hpp"

#include <sstream>

using fabricsim::test::read_file;
using fabricsim::test::run_fabricsim;
using fabricsim::test::TempDir;

TEST_CASE("every fabricsim command in the README runs and exits 0", "[cli][readme]") {
    const std::string readme = read_file(std::string(FABRICSIM_SOURCE_DIR) + "/README.md");
    TempDir tmp("readme");
    std::istringstream lines(readme);
    std::string line;
    int commands = 0;
    const std::string prefix = "./build/fabricsim ";
    while (std::getline(lines, line)) {
        if (line.rfind(prefix, 0) != 0) continue;
        std::string args = line.substr(prefix.size());
        if (const auto hash = args.find(" #"); hash != std::string::npos) args.erase(hash);
        const std::string into = tmp.path().string() + "/";
        for (std::size_t at = args.find("/tmp/"); at != std::string::npos; at = args.find("/tmp/", at + into.size()))
            args.replace(at, 5, into);
        if (args.find("run ") == 0 && args.find("--out") == std::string::npos)
            args += " --out " + tmp.path().string() + "/out";
        INFO(args);
        CHECK(run_fabricsim(args).exit_code == 0);
        ++commands;
    }
    CHECK(commands >= 6);
}
