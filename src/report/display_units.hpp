// Numbers for people: sizes in binary units with three significant digits ("61.0 MiB", not
// "62500KiB"), times in µs/ms/s ("2.73 µs"), rates in Gb/s or Tb/s, money with thousands
// separators, power in W/kW/MW. Used by the console, Markdown and HTML reports; the machine
// outputs (JSON, CSV) keep exact SI numbers and core's exact to_string() stays the text that
// parses back.
#pragma once

#include "core/units.hpp"

#include <string>

namespace fabricsim::report {

std::string human(Bytes b);                                     // "512 B", "4.00 KiB", "61.0 MiB", "1.50 GiB"
std::string human(Time t);                                      // "0 s", "830 ps", "2.73 µs", "21.5 ms", "1.20 s"
std::string human(Bandwidth bw);                                // "400 Gb/s", "51.2 Tb/s"
std::string money(double amount, const std::string& currency);  // "$1,234,567" / "1,234 EUR"
std::string power(double watts);                                // "850 W", "12.3 kW", "1.05 MW"
// Three significant digits, no exponent: 0.000123 -> "0.000123", 1234 -> "1234", 12.34 -> "12.3".
std::string sig3(double v);
// A count or rate with an SI prefix and three digits: 830 -> "830", 140000 -> "140 k",
// 30289732 -> "30.3 M" (events/s, calls/s: "1.4e+05" reads badly).
std::string si_count(double v);

}  // namespace fabricsim::report
