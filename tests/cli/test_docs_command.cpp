// `fabricsim docs`: the key reference tables of docs/SCENARIO.md are the ones the key tables
// generate, and the JSON Schema is JSON an editor can use. The warning for a key the model
// ignores reaches the user on stderr, and the run still succeeds.
#include <catch2/catch.hpp>

#include "cli_harness.hpp"

#include <nlohmann/json.hpp>

#include <string>

using fabricsim::test::read_file;
using fabricsim::test::run_fabricsim;
using fabricsim::test::TempDir;
using fabricsim::test::write_file;

TEST_CASE("docs/SCENARIO.md's key tables are the ones `fabricsim docs --keys` generates", "[cli][docs]") {
    // Regenerate into a copy: a table edited by hand, or a key declared and not documented,
    // makes the copy differ from the committed file. Fix with
    // `build/fabricsim docs --keys --update docs/SCENARIO.md`.
    const std::string committed = read_file(std::string(FABRICSIM_SOURCE_DIR) + "/docs/SCENARIO.md");
    TempDir dir("docs-keys");
    const auto copy = dir.path() / "SCENARIO.md";
    write_file(copy, committed);
    const auto updated = run_fabricsim("docs --keys --update " + copy.string());
    INFO(updated.output);
    REQUIRE(updated.exit_code == 0);
    CHECK(read_file(copy) == committed);
}

TEST_CASE("fabricsim docs --keys --update names a section whose markers the file lacks", "[cli][docs]") {
    TempDir dir("docs-keys-missing");
    const auto file = dir.path() / "empty.md";
    write_file(file, "# nothing here\n");
    const auto out = run_fabricsim("docs --keys --update " + file.string());
    CHECK(out.exit_code == 2);
    CHECK(out.output.find("cluster.roce.pfc: no generated table for this section") != std::string::npos);
}

TEST_CASE("fabricsim docs --json-schema writes a draft-07 schema of the declared keys", "[cli][docs]") {
    const auto out = run_fabricsim("docs --json-schema");
    REQUIRE(out.exit_code == 0);
    const auto schema = nlohmann::json::parse(out.output);
    CHECK(schema.at("$schema") == "http://json-schema.org/draft-07/schema#");
    const auto& pfc = schema.at("properties").at("cluster").at("properties").at("roce").at("properties").at("pfc");
    CHECK(pfc.at("additionalProperties") == false);
    CHECK(pfc.at("properties").at("enabled").at("type") == "boolean");
    CHECK(pfc.at("properties").at("enabled").at("default") == true);
    CHECK(schema.at("properties").at("simulation").at("properties").at("stop_time").at("default") == "none");
}

TEST_CASE("fabricsim validate warns on stderr of a key the model ignores and still accepts the file", "[cli][docs]") {
    TempDir dir("docs-warn");
    const auto file = dir.path() / "w.yaml";
    write_file(file, "name: w\ncluster:\n  servers: 2\n  roce: { lossless: false }\n"
                     "workload: [{ transfer: { from: 0, to: 1, size: 1B } }]\n");
    const auto out = run_fabricsim("validate " + file.string());
    CHECK(out.exit_code == 0);
    CHECK(out.output.find("fabricsim: warning: " + file.string() +
                          ":4:11: cluster.roce.lossless: the ideal model does not read this key; it has no effect") !=
          std::string::npos);
}
