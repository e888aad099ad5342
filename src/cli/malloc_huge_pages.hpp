// malloc's heap on transparent huge pages for large runs.
//
// A large flow-model run spends much of its time on TLB misses in the heap's small blocks: the
// 175B job on 16,384 GPUs (900+ MiB) takes 6-17 % less user CPU with glibc's
// `glibc.malloc.hugetlb=1` tunable (malloc then asks for transparent huge pages with
// madvise(MADV_HUGEPAGE) on every heap it grows; glibc 2.35 release notes, "tunables"), figures in
// docs/BENCHMARKS.md. Huge pages in the program's own large arrays alone gain nothing. A small
// run loses: the kernel zeroes 2 MiB per fault, and the 70B job on 2,048 GPUs (130 MiB) pays
// 0.3 s of system time for no user-time gain. glibc reads its tunables once, before main, so the
// program can only have them by starting itself again with the tunable set: `run` does that
// once it has loaded the scenario and estimated its memory (docs/models/flow.md, "Large runs: huge pages for malloc").
#pragma once

#include "core/units.hpp"

#include <atomic>
#include <string>

namespace fabricsim::cli {

// What the decision reads from the process and the kernel.
struct HugePageFacts {
    std::string thp_enabled;  // /sys/kernel/mm/transparent_hugepage/enabled, e.g. "always [madvise] never"
    std::string tunables;     // $GLIBC_TUNABLES
    std::string ld_preload;   // $LD_PRELOAD
};

HugePageFacts huge_page_facts();

// The estimated memory from which huge pages pay, a round figure above the measured break-even:
// the 70B job's estimate (295 MiB) loses, the 175B job cut to 8,192 GPUs (365 MiB) breaks even
// in wall time, the whole 175B job (1.2 GiB) gains; docs/BENCHMARKS.md has the three.
inline constexpr Bytes kHugePagesFrom{std::int64_t{512} << 20};

// True when `run` should start itself again with malloc's huge pages: the kernel gives them
// only to memory that asks (THP "[madvise]"; with "[always]" every heap has them already, with
// "[never]" none can), the user has not set the tunable either way (GLIBC_TUNABLES with
// glibc.malloc.hugetlb=0 turns this off), the process does not run under valgrind (whose
// malloc ignores the tunable, and whose tools would not follow the new start), and the run is
// estimated at kHugePagesFrom or more.
bool want_malloc_huge_pages(const HugePageFacts& facts, Bytes estimate);

// True when this process's malloc asks for huge pages: THP "[always]", or "[madvise]" with
// glibc.malloc.hugetlb=1 in its tunables (result.json's cost.malloc_huge_pages).
bool malloc_huge_pages_on(const HugePageFacts& facts);

// GLIBC_TUNABLES for the restart: `tunables` with what the restart adds (the .cpp says what
// and why), each only where `tunables` does not name it already.
std::string restart_tunables(const std::string& tunables);

// Starts this program again (/proc/self/exe, the same arguments from /proc/self/cmdline) with
// glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES, and malloc's trim and mmap thresholds set so
// that freed memory is not faulted in again (the .cpp says why). Returns only when that could
// not be done, and the run then goes on as it is. SIGINT and SIGTERM are blocked across the
// restart, so one that comes meanwhile stays pending for the new start's handler
// (install_interrupt_handlers unblocks them); after one has come (`interrupted` set) there is
// no restart.
void restart_with_malloc_huge_pages(const std::atomic<int>& interrupted);

}  // namespace fabricsim::cli
