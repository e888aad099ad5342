#include "cli/malloc_huge_pages.hpp"

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string_view>
#include <vector>

#include <pthread.h>
#include <unistd.h>

namespace fabricsim::cli {

namespace {

constexpr std::string_view kTunable = "glibc.malloc.hugetlb";

// What the restart adds, each unless the user's GLIBC_TUNABLES names it. Besides huge pages:
// malloc hands no freed memory back during the run (trim at 1 GiB) and serves blocks below
// 32 MiB from its heap, the largest mmap threshold its dynamic rule would reach (glibc's
// mallopt(3), M_MMAP_THRESHOLD), fixed from the start: a block handed back and asked for again
// is faulted in and zeroed again, 2 MiB at a time. On the 175B job that took the huge-page
// faults from 522 to 505-507 and system time from 2.1-2.7 to 1.7-1.8 s (two pairs,
// docs/BENCHMARKS.md).
constexpr std::string_view kRestartTunables[] = {"glibc.malloc.hugetlb=1", "glibc.malloc.trim_threshold=1073741824",
                                                 "glibc.malloc.mmap_threshold=33554432"};

std::string env(const char* name) {
    const char* value = std::getenv(name);
    return value == nullptr ? std::string() : std::string(value);
}

std::string file_text(const char* path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool thp(const HugePageFacts& facts, std::string_view mode) {
    return facts.thp_enabled.find(mode) != std::string::npos;
}

}  // namespace

HugePageFacts huge_page_facts() {
    return {file_text("/sys/kernel/mm/transparent_hugepage/enabled"), env("GLIBC_TUNABLES"), env("LD_PRELOAD")};
}

bool want_malloc_huge_pages(const HugePageFacts& facts, Bytes estimate) {
    return thp(facts, "[madvise]") && facts.tunables.find(kTunable) == std::string::npos &&
           facts.ld_preload.find("vgpreload") == std::string::npos && estimate >= kHugePagesFrom;
}

bool malloc_huge_pages_on(const HugePageFacts& facts) {
    return thp(facts, "[always]") ||
           (thp(facts, "[madvise]") && facts.tunables.find(std::string(kTunable) + "=1") != std::string::npos);
}

std::string restart_tunables(const std::string& tunables) {
    std::string with = tunables;
    for (const std::string_view add : kRestartTunables)
        if (tunables.find(add.substr(0, add.find('='))) == std::string::npos) {
            if (!with.empty()) with += ':';
            with += add;
        }
    return with;
}

void restart_with_malloc_huge_pages(const std::atomic<int>& interrupted) {
    // The arguments as the kernel holds them: NUL-terminated, one after another.
    std::string cmdline = file_text("/proc/self/cmdline");
    if (cmdline.empty()) return;
    std::vector<char*> argv;
    for (std::size_t at = 0; at < cmdline.size(); at = cmdline.find('\0', at) + 1) {
        argv.push_back(cmdline.data() + at);
        if (cmdline.find('\0', at) == std::string::npos) return;  // cut short: do not guess
    }
    argv.push_back(nullptr);
    const std::string tunables = env("GLIBC_TUNABLES");
    if (setenv("GLIBC_TUNABLES", restart_tunables(tunables).c_str(), 1) != 0) return;
    sigset_t stop, before;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, &before);
    if (interrupted.load() == 0) execv("/proc/self/exe", argv.data());
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    // execv returned: it failed; go on without, and leave the environment as it was.
    if (tunables.empty())
        unsetenv("GLIBC_TUNABLES");
    else
        setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
}

}  // namespace fabricsim::cli
