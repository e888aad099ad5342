// PFC deadlock (docs/models/packet.md): four switches in a ring, each host sending to the host
// two switches on, every flow routed clockwise. Each ring link carries a through flow and a
// local one, so every switch pauses the one before it: a cyclic buffer dependency. The
// watchdog must report the cycle, naming each switch, port and priority.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "fabric/packet/packet_network.hpp"

#include <optional>
#include <string>

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::fabric;

namespace {

struct Ring {
    Topology t;
    NodeId host[4], nic[4], sw[4];
};

Link link(LinkType type, Bandwidth bw) {
    Link l;
    l.type = type;
    l.bandwidth = bw;
    l.propagation = 50_ns;
    l.length = Length::m(10);
    return l;
}

Ring ring() {
    Ring r;
    for (std::uint32_t i = 0; i < 4; ++i) {
        Node h;
        h.kind = NodeKind::host;
        h.name = "host" + std::to_string(i);
        h.server = ServerId{i};
        r.host[i] = r.t.add_node(h);
        Node n;
        n.kind = NodeKind::nic;
        n.name = "nic" + std::to_string(i);
        n.server = ServerId{i};
        r.nic[i] = r.t.add_node(n);
        Node s;
        s.kind = NodeKind::leaf;
        s.name = "sw" + std::to_string(i);
        s.forwarding_latency = 500_ns;
        s.local_index = i;  // its ring position, for the router
        s.buffer = 2_MB;
        r.sw[i] = r.t.add_node(s);
    }
    for (std::uint32_t i = 0; i < 4; ++i) {
        r.t.add_link(r.host[i], r.nic[i], link(LinkType::pcie, 400_Gbps));  // port 0 of host, nic
        r.t.add_link(r.nic[i], r.sw[i], link(LinkType::fabric, 100_Gbps));  // nic port 1, sw port 0
    }
    for (std::uint32_t i = 0; i < 4; ++i)  // sw i port 1 -> sw i+1 (its port 2)
        r.t.add_link(r.sw[i], r.sw[(i + 1) % 4], link(LinkType::fabric, 100_Gbps));
    for (std::uint32_t i = 0; i < 4; ++i) {
        RankInfo info;
        info.rank = RankId{i};
        info.server = ServerId{i};
        info.gpu = r.host[i];
        info.nic = r.nic[i];
        r.t.ranks().push_back(info);
    }
    return r;
}

// Clockwise only: up from the host, around the ring, down at the destination's switch.
class Clockwise final : public Router {
public:
    explicit Clockwise(const Ring& r) : r_(r) {
        for (std::uint32_t i = 0; i < 4; ++i) {  // the port of switch i towards switch i+1
            const Node& n = r.t.node(r.sw[i]);
            while (n.ports[cw_[i]].peer != r.sw[(i + 1) % 4]) ++cw_[i];
        }
    }
    std::span<const std::uint32_t> candidates(NodeId at, const FlowKey& flow) const override {
        static const std::uint32_t kPort[2] = {0, 1};
        const Node& n = r_.t.node(at);
        const std::uint32_t dst = r_.t.node(flow.dst).server.value();
        if (at == flow.dst) return {};
        if (n.kind == NodeKind::host) return {&kPort[0], 1};
        if (n.kind == NodeKind::nic) return {&kPort[at == r_.nic[dst] ? 0 : 1], 1};
        return n.local_index == dst ? std::span<const std::uint32_t>(&kPort[0], 1)  // down to its NIC
                                    : std::span<const std::uint32_t>(&cw_[n.local_index], 1);
    }
    std::uint32_t next_port(NodeId at, const FlowKey& flow, std::uint64_t, const PortLoad* = nullptr) const override {
        return candidates(at, flow)[0];
    }
    std::vector<DirectedLink> path(const FlowKey& flow) const override {
        std::vector<DirectedLink> p;
        for (NodeId at = flow.src; at != flow.dst;) {
            const DirectedLink d = r_.t.egress(at, next_port(at, flow, 0));
            p.push_back(d);
            at = r_.t.target(d);
        }
        return p;
    }

private:
    const Ring& r_;
    std::uint32_t cw_[4] = {0, 0, 0, 0};
};

struct Sink final : DeliveryListener {
    int delivered = 0;
    void on_delivered(Simulator&, MessageId) override { ++delivered; }
};

// The ring with PFC alone (no ECN, no DCQCN), each host sending `size` to the host `hops`
// switches on; the run has not started.
struct RingRun {
    explicit RingRun(std::optional<Time> watchdog = std::nullopt,
                     scenario::Technology technology = scenario::Technology::roce)
        : r(ring()), router(r), net(r.t, router, spec_of(watchdog, technology)) {}
    static PacketModelSpec spec_of(std::optional<Time> watchdog, scenario::Technology technology) {
        PacketModelSpec spec;
        spec.technology = technology;
        spec.roce.ecn.enabled = false;
        spec.roce.dcqcn.enabled = false;
        spec.roce.pfc.watchdog = watchdog;
        spec.deadlock_timeout = 1_ms;
        return spec;
    }
    void send_all(std::uint32_t hops, Bytes size) {
        for (std::uint32_t i = 0; i < 4; ++i) {
            Message m;
            m.id = MessageId{i};
            m.src = RankId{i};
            m.dst = RankId{(i + hops) % 4};
            m.size = size;
            net.send(sim, m, sink);
        }
    }
    // Runs to the end; the model error it stopped with ("" when none).
    std::string run_to_error() {
        try {
            sim.run();
        } catch (const ModelError& e) {
            return e.what();
        }
        return {};
    }
    Ring r;
    Clockwise router;
    PacketNetwork net;
    Simulator sim{1};
    Sink sink;
};

}  // namespace

TEST_CASE("a cyclic buffer dependency on a 4-switch ring is detected and its paused ports named",
          "[packet][pfc][deadlock]") {
    RingRun run;
    run.send_all(2, 64_MiB);
    const std::string error = run.run_to_error();
    INFO(error);
    CHECK(error.rfind("PFC deadlock: no packet has moved for ", 0) == 0);
    // Switch i's port to switch i+1 is port 1 on sw0 (its first ring link) and port 2 on the
    // others (their first ring link goes back to switch i-1).
    CHECK(error.find("cycle of paused ports: sw0 port 1 (to sw1, priority 3) -> sw1 port 2 (to sw2, priority 3) -> "
                     "sw2 port 2 (to sw3, priority 3) -> sw3 port 2 (to sw0, priority 3) -> sw0") != std::string::npos);
}

TEST_CASE("an InfiniBand credit loop on the same ring is reported by the same detector",
          "[packet][infiniband][deadlock]") {
    RingRun run(std::nullopt, scenario::Technology::infiniband);
    run.send_all(2, 64_MiB);
    const std::string error = run.run_to_error();
    INFO(error);
    CHECK(error.rfind("credit deadlock: no packet has moved for ", 0) == 0);
    CHECK(error.find("cycle of ports waiting for credits: sw0 port 1 (to sw1, VL 0) -> sw1 port 2 (to sw2, VL 0) -> "
                     "sw2 port 2 (to sw3, VL 0) -> sw3 port 2 (to sw0, VL 0) -> sw0") != std::string::npos);
    CHECK(run.net.counters().drops == 0);  // credits never drop
}

TEST_CASE("the same ring with flows one switch apart drains: no dependency cycle and no report",
          "[packet][pfc][deadlock]") {
    RingRun run;
    run.send_all(1, 16_MiB);
    CHECK_NOTHROW(run.sim.run());
    CHECK(run.net.packets_in_flight() == 0);
}

TEST_CASE("the PFC watchdog breaks the ring's deadlock by dropping and says so, and RC sends the drops again",
          "[packet][pfc][deadlock]") {
    RingRun run(200_us);  // far below the 1 ms deadlock timeout
    run.send_all(2, 64_MiB);
    CHECK_NOTHROW(run.sim.run());  // no deadlock report: the watchdog let traffic move
    CHECK(run.net.watchdog_triggers() > 0);
    const FabricCounters c = run.net.counters();
    CHECK(c.watchdog_drops > 0);
    // With the watchdog on, RC recovers the lossless class (docs/models/faults.md): what it
    // dropped is sent again, so it is not a lossless loss and every message is delivered.
    CHECK(c.retransmitted > 0);
    CHECK(c.lossless_drops == 0);
    CHECK(c.messages_abandoned == 0);
    CHECK(run.sink.delivered == 4);
    CHECK(run.net.packets_in_flight() == 0);
    CHECK_NOTHROW(run.net.check_invariants(run.sim.now()));
}

TEST_CASE("with fast links the window stays the deadlock timeout and the ring's deadlock is still named",
          "[packet][pfc][deadlock]") {
    RingRun run;
    // 100G ring: 4 x (0.34 us + 550 ns) is far below the 1 ms timeout.
    CHECK(run.net.deadlock_window() == 1_ms);
}
