#include <catch2/catch.hpp>

#include "scenario/loader.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::scenario;

namespace {
ScenarioSpec load(const std::string& workload) {
    const std::string text = "name: c\ncluster:\n  servers: 4\n  server: { gpus: 8, nics: 8 }\nworkload:\n" + workload;
    const auto loaded = load_scenario_text(text, "c.yaml", {});
    REQUIRE(loaded.variants.size() == 1);
    return loaded.variants.front().spec;
}
}  // namespace

TEST_CASE("a collective entry reads its op and parameters beside the kind key", "[loader][collective]") {
    const auto s = load("  - collective: all_gather\n    algorithm: ring\n    size: 64MiB\n    ranks: [0, 8, 16, 24]\n"
                        "    iterations: 5\n    channels: 4\n");
    const auto& c = std::get<CollectiveSpec>(s.workload.at(0).kind);
    CHECK(c.op == CollectiveOp::all_gather);
    CHECK(c.algorithm == CollectiveAlgorithm::ring);
    CHECK(c.sizes == std::vector<Bytes>{64_MiB});
    CHECK(c.ranks.size() == 4);
    CHECK(c.ranks[3] == RankId{24});
    CHECK(c.iterations == 5);
    CHECK(c.channels == 4);
    CHECK(s.workload[0].name == "collective0");
}

TEST_CASE("a sweep 8B..8GiB x2 lists every power of two from 8 B to 8 GiB", "[loader][collective]") {
    const auto s = load("  - collective: all_reduce\n    sizes: 8B..8GiB x2\n");
    const auto& c = std::get<CollectiveSpec>(s.workload.at(0).kind);
    REQUIRE(c.sizes.size() == 31);  // 2^3 .. 2^33
    CHECK(c.sizes.front() == 8_B);
    CHECK(c.sizes.back() == 8_GiB);
    CHECK(c.ranks.empty());  // all ranks
    CHECK(c.channels == 0);  // auto
    CHECK(c.algorithm == CollectiveAlgorithm::automatic);
}

TEST_CASE("ranks as a count takes the first ranks and the resolved scenario round-trips", "[loader][collective]") {
    const std::string text = "name: c\ncluster:\n  servers: 2\n  server: { gpus: 8, nics: 8 }\nworkload:\n"
                             "  - collective: broadcast\n    size: 1MiB\n    ranks: 4\n    root: 3\n"
                             "  - collective: all_to_all\n    sizes: [1KiB, 3KiB]\n    after: collective0\n";
    const auto loaded = load_scenario_text(text, "c.yaml", {});
    const auto& spec = loaded.variants.front().spec;
    const auto& b = std::get<CollectiveSpec>(spec.workload[0].kind);
    CHECK(b.ranks == std::vector<RankId>{RankId{0}, RankId{1}, RankId{2}, RankId{3}});
    CHECK(b.root == RankId{3});
    CHECK(std::get<CollectiveSpec>(spec.workload[1].kind).sizes == std::vector<Bytes>{1_KiB, 3_KiB});
    const auto again = load_scenario_text(to_yaml(loaded.variants.front().resolved), "again.yaml", {});
    CHECK(again.variants.front().spec == spec);
}
