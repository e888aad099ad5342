#include "scenario/describe_iwarp.hpp"

#include "core/units_format.hpp"

namespace fabricsim::scenario {

Value describe_iwarp(const IwarpSpec& s) {
    const char* cc = s.congestion_control == TcpCongestion::dctcp   ? "dctcp"
                     : s.congestion_control == TcpCongestion::cubic ? "cubic"
                                                                    : "newreno";
    Value::Map m{
        {"congestion_control", Value{std::string(cc)}},
        {"mss", Value{std::int64_t{s.mss.count()}}},
    };
    if (s.min_rto) m.push_back({"min_rto", Value{to_string(*s.min_rto)}});
    m.push_back({"ack_every", Value{std::int64_t{s.ack_every}}});
    m.push_back({"delayed_ack", Value{to_string(s.delayed_ack)}});
    m.push_back({"initial_window", Value{std::int64_t{s.initial_window}}});
    m.push_back({"receive_window", Value{to_string(s.receive_window)}});
    m.push_back({"dupthresh", Value{std::int64_t{s.dupthresh}}});
    if (s.send_jitter) m.push_back({"send_jitter", Value{to_string(*s.send_jitter)}});
    return Value{std::move(m)};
}

}  // namespace fabricsim::scenario
