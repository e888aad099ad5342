// SIGINT and SIGTERM during a run: the handler only records the signal; every simulator of the
// run watches the flag (Simulator::watch_interrupt) and stops before its next event, and the
// run then writes what it measured, marked "complete": false, and exits 128 + the signal
// (130 for SIGINT, 143 for SIGTERM, as a shell reports a process the signal killed).
//
// The one process-wide mutable state of fabricsim: a signal handler has nowhere else to write
// (POSIX allows it a lock-free atomic). A second signal while the run winds down restores the
// default action, so a stuck process still dies on a second Ctrl-C.
#pragma once

#include <atomic>
#include <string>

namespace fabricsim::cli {

// Installs the handlers for SIGINT and SIGTERM.
void install_interrupt_handlers();

// 0, or the number of the first signal received.
const std::atomic<int>& interrupt_flag();

// "SIGINT", "SIGTERM", "signal 10".
std::string signal_name(int signal);

}  // namespace fabricsim::cli
