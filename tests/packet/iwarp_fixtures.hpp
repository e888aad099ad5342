// Shared pieces of the iWARP tests: plain hosts on one lossy Ethernet switch whose NICs run
// the TCP offload engine, a queue probe, and Jain's fairness index.
#pragma once

#include "packet_fixtures.hpp"

#include <numeric>

namespace iwarp_test {

using namespace packet_test;

// `n` hosts at 100G on one switch with `buffer` bytes, iWARP segments of iw.mss.
inline scenario::ClusterSpec iwarp_hosts(int n, const scenario::IwarpSpec& iw, Bytes buffer = 16_MB) {
    scenario::ClusterSpec c = hosts(n);
    c.fabric.mtu = scenario::iwarp_segment_payload(iw);
    c.roce.header_bytes = scenario::kIwarpHeaderBytes;
    c.fabric.switch_spec.buffer = buffer;
    return c;
}

// Lossy Ethernet (no PFC, no DCQCN); ECN marks every packet above `k` wire bytes (kmin = kmax = K,
// DCTCP's step marking) when k is given.
inline fabric::PacketModelSpec iwarp_spec(const scenario::ClusterSpec& c, scenario::IwarpSpec iw,
                                          std::optional<Bytes> k = std::nullopt) {
    scenario::RoceSpec roce = pfc_only();
    roce.lossless = false;
    roce.pfc.enabled = false;
    roce.header_bytes = scenario::kIwarpHeaderBytes;
    if (k) {
        roce.ecn.enabled = true;
        roce.ecn.kmin = *k;
        roce.ecn.kmax = *k;
    }
    fabric::PacketModelSpec spec = model_spec(c, roce);
    iw.enabled = true;
    spec.iwarp = iw;
    return spec;
}

inline scenario::IwarpSpec with_cc(scenario::TcpCongestion cc, Time min_rto = 200_ms) {
    scenario::IwarpSpec iw;
    iw.congestion_control = cc;
    iw.min_rto = min_rto;
    return iw;
}

// Samples one port's queue (wire bytes) every `every` from `from` to `to`.
struct QueueProbe final : EventTarget {
    QueueProbe(const fabric::PacketNetwork& n, fabric::DirectedLink l, Time f, Time t, Time e)
        : net(n), link(l), from(f), to(t), every(e) {}
    void start(Simulator& sim) { sim.at(from, *this); }
    void on_event(Simulator& sim, std::uint64_t) override {
        samples.push_back(net.port_queue_state(link.index()).queued);
        if (sim.now() + every <= to) sim.after(every, *this);
    }
    const fabric::PacketNetwork& net;
    fabric::DirectedLink link;
    Time from, to, every;
    std::vector<Bytes> samples;
};

// Jain's index (sum x)^2 / (n sum x^2): 1 when all are equal, 1/n when one has everything.
inline double jain(const std::vector<double>& x) {
    const double sum = std::accumulate(x.begin(), x.end(), 0.0);
    double squares = 0;
    for (double v : x) squares += v * v;
    return sum * sum / (static_cast<double>(x.size()) * squares);
}

}  // namespace iwarp_test
