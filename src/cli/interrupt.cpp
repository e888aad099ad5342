#include "cli/interrupt.hpp"

#include <csignal>

#include <pthread.h>

#include <fmt/format.h>

namespace fabricsim::cli {

namespace {

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler may only touch lock-free atomics");

extern "C" void on_signal(int signal) {
    int none = 0;
    // The first signal asks the run to stop; a second one is handled as if fabricsim had no
    // handler, which ends the process.
    if (!g_signal.compare_exchange_strong(none, signal)) {
        std::signal(signal, SIG_DFL);
        std::raise(signal);
    }
}

}  // namespace

void install_interrupt_handlers() {
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    // A run that started itself again (malloc_huge_pages.hpp) comes with both blocked, and one
    // of them may be pending: it reaches the handler now.
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_UNBLOCK, &stop, nullptr);
}

const std::atomic<int>& interrupt_flag() { return g_signal; }

std::string signal_name(int signal) {
    switch (signal) {
        case SIGINT: return "SIGINT";
        case SIGTERM: return "SIGTERM";
        default: return fmt::format("signal {}", signal);
    }
}

}  // namespace fabricsim::cli
