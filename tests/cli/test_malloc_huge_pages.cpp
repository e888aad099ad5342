// `run` starts itself again with glibc's malloc on transparent huge pages when the run is large
// and the kernel gives huge pages only on request (cli/malloc_huge_pages.hpp).
#include <catch2/catch.hpp>

#include "cli/malloc_huge_pages.hpp"
#include "cli_harness.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <optional>
#include <string>

using fabricsim::Bytes;
using fabricsim::cli::HugePageFacts;
using fabricsim::cli::kHugePagesFrom;
using fabricsim::cli::malloc_huge_pages_on;
using fabricsim::cli::want_malloc_huge_pages;
using fabricsim::test::read_file;
using fabricsim::test::run_fabricsim;
using fabricsim::test::TempDir;
using Json = nlohmann::json;

namespace {

constexpr const char* kMadvise = "always [madvise] never\n";
constexpr const char* kAlways = "[always] madvise never\n";
constexpr const char* kNever = "always madvise [never]\n";
const Bytes kGiB{std::int64_t{1} << 30};

// Sets an environment variable for the scope of a test and puts the old value back.
class EnvFor {
public:
    EnvFor(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value != nullptr)
            setenv(name, value, 1);
        else
            unsetenv(name);
    }
    ~EnvFor() {
        if (old_)
            setenv(name_, old_->c_str(), 1);
        else
            unsetenv(name_);
    }
    EnvFor(const EnvFor&) = delete;
    EnvFor& operator=(const EnvFor&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

// The cost block of a run's only variant, and its exit code.
std::pair<int, Json> run_cost(const std::string& args) {
    TempDir out("hugepages");
    const auto ran = run_fabricsim(args + " --quiet --out " + out.path().string());
    return {ran.exit_code, Json::parse(read_file(out.path() / "result.json"))["variants"][0]["cost"]};
}

}  // namespace

TEST_CASE("malloc's huge pages are asked for only where they pay and nobody chose otherwise", "[cli][hugepages]") {
    const HugePageFacts plain{kMadvise, "", ""};
    CHECK(want_malloc_huge_pages(plain, kGiB));
    CHECK(want_malloc_huge_pages(plain, kHugePagesFrom));  // the line itself is in
    CHECK_FALSE(want_malloc_huge_pages(plain, kHugePagesFrom - Bytes{1}));
    // The kernel gives every heap huge pages already, or none at all, or has no THP.
    CHECK_FALSE(want_malloc_huge_pages({kAlways, "", ""}, kGiB));
    CHECK_FALSE(want_malloc_huge_pages({kNever, "", ""}, kGiB));
    CHECK_FALSE(want_malloc_huge_pages({"", "", ""}, kGiB));
    // The user set the tunable, either way; other tunables leave the choice to us.
    CHECK_FALSE(want_malloc_huge_pages({kMadvise, "glibc.malloc.hugetlb=0", ""}, kGiB));
    CHECK_FALSE(want_malloc_huge_pages({kMadvise, "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1", ""}, kGiB));
    CHECK(want_malloc_huge_pages({kMadvise, "glibc.malloc.arena_max=2", ""}, kGiB));
    // Under valgrind (its preload library), whose malloc ignores the tunable.
    CHECK_FALSE(
        want_malloc_huge_pages({kMadvise, "", "/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so"}, kGiB));
}

TEST_CASE("the restart adds huge pages and fixed malloc thresholds, keeping what the user set", "[cli][hugepages]") {
    const std::string ours =
        "glibc.malloc.hugetlb=1:glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_threshold=33554432";
    CHECK(fabricsim::cli::restart_tunables("") == ours);
    CHECK(fabricsim::cli::restart_tunables("glibc.malloc.arena_max=2") == "glibc.malloc.arena_max=2:" + ours);
    // A threshold the user set stays theirs (and glibc reads it once: no second value).
    CHECK(fabricsim::cli::restart_tunables("glibc.malloc.trim_threshold=5") ==
          "glibc.malloc.trim_threshold=5:glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432");
}

TEST_CASE("result.json says whether the heap was on huge pages", "[cli][hugepages]") {
    CHECK(malloc_huge_pages_on({kAlways, "", ""}));
    CHECK(malloc_huge_pages_on({kMadvise, "glibc.malloc.hugetlb=1", ""}));
    CHECK(malloc_huge_pages_on({kMadvise, "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1", ""}));
    CHECK_FALSE(malloc_huge_pages_on({kMadvise, "", ""}));
    CHECK_FALSE(malloc_huge_pages_on({kMadvise, "glibc.malloc.hugetlb=0", ""}));
    CHECK_FALSE(malloc_huge_pages_on({kNever, "glibc.malloc.hugetlb=1", ""}));
}

TEST_CASE("a run estimated at 1.2 GiB starts itself again with malloc's huge pages, a small one does not",
          "[cli][hugepages]") {
    const std::string thp = fabricsim::cli::huge_page_facts().thp_enabled;
    const bool always = thp.find("[always]") != std::string::npos;
    const bool on_request = thp.find("[madvise]") != std::string::npos;
    // The 175B job on 16,384 GPUs (estimated 1.2 GiB), stopped after its first microsecond.
    const std::string large = "run bench/scenarios/streaming/training-175b-16384gpu.yaml --set simulation.model=flow "
                              "--set simulation.stop_time=1us";
    SECTION("without GLIBC_TUNABLES the large run has them wherever the kernel gives them") {
        const EnvFor tunables("GLIBC_TUNABLES", nullptr);
        const auto [code, cost] = run_cost(large);
        CHECK(code == 3);  // cut short by stop_time
        CHECK(cost["malloc_huge_pages"] == (always || on_request));
        // A small run (an ideal transfer, kilobytes) is left as it started.
        CHECK(run_cost("run scenarios/ideal-transfers.yaml").second["malloc_huge_pages"] == always);
    }
    SECTION("glibc.malloc.hugetlb=0 in GLIBC_TUNABLES keeps them off") {
        const EnvFor tunables("GLIBC_TUNABLES", "glibc.malloc.hugetlb=0");
        CHECK(run_cost(large).second["malloc_huge_pages"] == always);
    }
}
