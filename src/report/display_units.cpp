#include "report/display_units.hpp"

#include <array>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace fabricsim::report {

std::string sig3(double v) {
    if (v == 0 || !std::isfinite(v)) return fmt::format("{}", v);
    const double mag = std::fabs(v);
    const int digits = static_cast<int>(std::floor(std::log10(mag)));
    const int decimals = std::max(0, 2 - digits);
    std::string s = fmt::format("{:.{}f}", v, decimals);
    // 999.6 rounds to "1000": still three significant figures in spirit, keep it.
    return s;
}

std::string si_count(double v) {
    static constexpr std::array<const char*, 4> prefixes{"k", "M", "G", "T"};
    if (!std::isfinite(v) || std::fabs(v) < 999.5) return sig3(v);
    double x = v;
    std::size_t i = 0;
    x /= 1e3;
    // 999.6 k prints as "1.00 M", not "1000 k".
    while (std::fabs(x) >= 999.5 && i + 1 < prefixes.size()) {
        x /= 1e3;
        ++i;
    }
    // Just under the next prefix (999.6 k = 0.9996 M): two decimals, as for 1.00 to 9.99.
    return fmt::format("{} {}", std::fabs(x) < 1 ? fmt::format("{:.2f}", x) : sig3(x), prefixes[i]);
}

std::string human(Bytes b) {
    const std::int64_t v = b.count();
    const double mag = std::fabs(static_cast<double>(v));
    static constexpr std::array<const char*, 5> units{"KiB", "MiB", "GiB", "TiB", "PiB"};
    if (mag < 1024) return fmt::format("{} B", v);
    double x = static_cast<double>(v);
    std::size_t i = 0;
    x /= 1024;
    while (std::fabs(x) >= 1024 && i + 1 < units.size()) {
        x /= 1024;
        ++i;
    }
    return fmt::format("{} {}", sig3(x), units[i]);
}

std::string human(Time t) {
    const std::int64_t ps = t.picoseconds();
    if (ps == 0) return "0 s";
    const double mag = std::fabs(static_cast<double>(ps));
    if (mag < 1e3) return fmt::format("{} ps", ps);
    if (mag < 1e6) return fmt::format("{} ns", sig3(static_cast<double>(ps) / 1e3));
    if (mag < 1e9) return fmt::format("{} µs", sig3(static_cast<double>(ps) / 1e6));
    if (mag < 1e12) return fmt::format("{} ms", sig3(static_cast<double>(ps) / 1e9));
    return fmt::format("{} s", sig3(static_cast<double>(ps) / 1e12));
}

std::string human(Bandwidth bw) {
    const double bps = static_cast<double>(bw.bits_per_second());
    if (bps >= 1e12) return fmt::format("{} Tb/s", sig3(bps / 1e12));
    if (bps >= 1e9) return fmt::format("{} Gb/s", sig3(bps / 1e9));
    if (bps >= 1e6) return fmt::format("{} Mb/s", sig3(bps / 1e6));
    return fmt::format("{} b/s", bw.bits_per_second());
}

std::string money(double amount, const std::string& currency) {
    const auto whole = static_cast<std::int64_t>(std::llround(amount));
    const std::string plain = std::to_string(std::llabs(whole));
    std::string digits;
    for (std::size_t i = 0; i < plain.size(); ++i) {
        if (i > 0 && (plain.size() - i) % 3 == 0) digits += ',';
        digits += plain[i];
    }
    const std::string sign = whole < 0 ? "-" : "";
    if (currency == "USD") return fmt::format("{}${}", sign, digits);
    return fmt::format("{}{} {}", sign, digits, currency);
}

std::string power(double watts) {
    if (watts >= 1e6) return fmt::format("{} MW", sig3(watts / 1e6));
    if (watts >= 1e3) return fmt::format("{} kW", sig3(watts / 1e3));
    return fmt::format("{} W", sig3(watts));
}

}  // namespace fabricsim::report
