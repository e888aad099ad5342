// SHARP on the packet model (src/fabric/packet/sharp.cpp, docs/models/sharp.md): when it is
// offered, the aggregation tree's bytes link by link, the completion time against its closed
// form, the rail the operation names, and an all-reduce through the collective layer.
#include <catch2/catch.hpp>

#include "packet_fixtures.hpp"

#include <algorithm>
#include <set>
#include <vector>

using fabricsim::fabric::DirectedLink;
using fabricsim::fabric::NodeKind;
using namespace packet_test;

namespace {

// InfiniBand with SHARP switches, the model told so.
scenario::ClusterSpec infiniband(scenario::ClusterSpec c) {
    c.fabric.technology = scenario::Technology::infiniband;
    c.fabric.switch_spec.technology = scenario::Technology::infiniband;
    c.fabric.switch_spec.sharp = true;
    return c;
}

fabric::PacketModelSpec sharp_spec(const scenario::ClusterSpec& c, bool sharp = true) {
    fabric::PacketModelSpec spec = model_spec(c, pfc_only());
    spec.sharp = sharp;
    return spec;
}

// Eight plain hosts on four leaves of two hosts, two spines, one cable from each leaf to each
// spine (4-port switches at 1:1), all at 100G: a tree edge is one link.
scenario::ClusterSpec two_tier() {
    scenario::ClusterSpec c = infiniband(hosts(8));
    c.fabric.topology = scenario::TopologyKind::leaf_spine;
    c.fabric.switch_spec.radix = 4;
    return c;
}

struct Done final : DeliveryListener {
    Time at = Time::max();
    int calls = 0;
    void on_delivered(Simulator& sim, MessageId) override {
        at = sim.now();
        ++calls;
    }
};

GroupOperation sharp_op(const std::vector<RankId>& ranks, Bytes egress, Bytes ingress, std::int16_t rail = -1) {
    GroupOperation op;
    op.id = MessageId{7};
    op.offload = Offload::switch_aggregation;
    op.ranks = ranks;
    op.size = egress;
    op.egress = egress;
    op.ingress = ingress;
    op.rail = rail;
    return op;
}

NodeKind kind_of(const Model& m, fabric::NodeId n) { return m.topology.node(n).kind; }

// The first hop of a plain host's rank r (host -> NIC, PCIe) and the second (NIC -> leaf).
DirectedLink host_hop(const Model& m, std::uint32_t r, int hop) {
    return m.routing.path(RankId{r}, RankId{r == 0 ? 1u : 0u})[static_cast<std::size_t>(hop)];
}
DirectedLink reverse(DirectedLink d) { return DirectedLink{d.link, !d.reverse}; }

}  // namespace

TEST_CASE("SHARP is offered on an InfiniBand fabric of SHARP switches for one rank per server only",
          "[packet][sharp]") {
    const std::vector<RankId> four = {RankId{0}, RankId{1}, RankId{2}, RankId{3}};
    {
        const auto c = infiniband(hosts(4));
        Model m(c, sharp_spec(c));
        CHECK(m.network.offers(Offload::switch_aggregation, four));
        CHECK(m.network.offers(Offload::switch_aggregation, std::vector<RankId>{RankId{0}, RankId{3}}));
        CHECK_FALSE(m.network.offers(Offload::switch_aggregation, std::vector<RankId>{RankId{0}}));
        CHECK_FALSE(m.network.offers(Offload::switch_aggregation, std::vector<RankId>{RankId{0}, RankId{9}}));
        CHECK_FALSE(m.network.offers(Offload::nvswitch_reduce, four));  // no NVSwitch here
    }
    {  // the same switches, the model not told they aggregate
        const auto c = infiniband(hosts(4));
        Model m(c, sharp_spec(c, false));
        CHECK_FALSE(m.network.offers(Offload::switch_aggregation, four));
    }
    {  // RoCE: no SHARP, whatever the spec says
        const auto c = hosts(4);
        Model m(c, sharp_spec(c));
        CHECK_FALSE(m.network.offers(Offload::switch_aggregation, four));
    }
    {  // HGX: one GPU of each server yes, two GPUs of one server no
        const auto c = infiniband(hgx(2));
        Model m(c, sharp_spec(c));
        CHECK(m.network.offers(Offload::switch_aggregation, std::vector<RankId>{RankId{0}, RankId{8}}));
        CHECK(m.network.offers(Offload::switch_aggregation, std::vector<RankId>{RankId{3}, RankId{12}}));
        CHECK_FALSE(m.network.offers(Offload::switch_aggregation, std::vector<RankId>{RankId{0}, RankId{1}}));
        CHECK_FALSE(
            m.network.offers(Offload::switch_aggregation, std::vector<RankId>{RankId{0}, RankId{1}, RankId{8}}));
    }
}

TEST_CASE("a SHARP tree on a leaf-spine fabric carries the egress bytes up and the ingress bytes down once per link",
          "[packet][sharp]") {
    const auto c = two_tier();
    Model m(c, sharp_spec(c));
    REQUIRE(m.topology.count(NodeKind::leaf) == 4);
    REQUIRE(m.topology.count(NodeKind::spine) == 2);
    // Hosts 0 and 1 share leaf 0; 2 is under leaf 1, 4 under leaf 2; leaf 3 has no member.
    const std::vector<RankId> members = {RankId{0}, RankId{1}, RankId{2}, RankId{4}};
    const Bytes up = 8_MiB, down = 6_MiB;  // different, so each direction is told apart
    Simulator sim(1);
    Done done;
    m.network.start_group(sim, sharp_op(members, up, down), done);
    sim.run();
    REQUIRE(done.calls == 1);
    CHECK(m.network.packets_in_flight() == 0);

    // Each member: host -> NIC and NIC -> leaf carry `up`, the reverse `down`.
    std::set<std::uint32_t> member_links;
    for (RankId r : members)
        for (int hop = 0; hop < 2; ++hop) {
            const DirectedLink d = host_hop(m, r.value(), hop);
            CHECK(m.network.bytes_sent(d) == up);
            CHECK(m.network.bytes_sent(reverse(d)) == down);
            member_links.insert(d.link.value());
        }
    // Leaf -> spine: leaves 0, 1 and 2 send `up` once each (leaf 0 once for hosts 0 and 1),
    // all to one spine, the root, which sends `down` back; nothing else moves.
    Bytes total = Bytes::zero();
    std::set<fabric::NodeId> spines_used;
    int uplinks_used = 0;
    for (std::uint32_t i = 0; i < m.topology.directed_link_count(); ++i) {
        const DirectedLink d = DirectedLink::from_index(i);
        const Bytes sent = m.network.bytes_sent(d);
        total += sent;
        if (sent == Bytes::zero() || member_links.count(d.link.value()) > 0) continue;
        const NodeKind from = kind_of(m, m.topology.source(d)), to = kind_of(m, m.topology.target(d));
        if (from == NodeKind::leaf && to == NodeKind::spine) {
            CHECK(sent == up);
            spines_used.insert(m.topology.target(d));
            ++uplinks_used;
        } else if (from == NodeKind::spine && to == NodeKind::leaf) {
            CHECK(sent == down);
            CHECK(m.network.bytes_sent(reverse(d)) == up);
        } else {
            FAIL_CHECK("bytes on a link off the tree: " << m.topology.node(m.topology.source(d)).name << " -> "
                                                        << m.topology.node(m.topology.target(d)).name);
        }
    }
    CHECK(uplinks_used == 3);
    CHECK(spines_used.size() == 1);
    // Every byte crossed each tree edge once per direction: 4 members x 2 hops + 3 leaf uplinks.
    CHECK(total == (up + down) * 11);
}

TEST_CASE("a large SHARP operation takes S over the link payload rate plus the tree path latency", "[packet][sharp]") {
    const auto c = two_tier();
    Model m(c, sharp_spec(c));
    const std::vector<RankId> members = {RankId{0}, RankId{2}, RankId{4}, RankId{6}};  // one per leaf
    const Bytes size = 64_MiB;
    Simulator sim(1);
    Done done;
    m.network.start_group(sim, sharp_op(members, size, size), done);
    sim.run();
    REQUIRE(done.calls == 1);

    // The tree: host -PCIe-> NIC -100G-> leaf -100G-> root spine and back. Its longest path,
    // member to root to member, is 2 x (PCIe, NIC-leaf, leaf-spine); its latency is the
    // hops' propagation and the next nodes' forwarding latencies, plus one store-and-forward
    // unit's serialisation per hop (an MTU packet on the fabric, a 64 KiB segment on PCIe).
    const Bandwidth fabric_rate = m.topology.link(host_hop(m, 0, 1).link).payload_bandwidth();
    Time latency = Time::zero(), model = Time::zero();
    const auto spine_of = [&] {
        for (std::uint32_t i = 0; i < m.topology.directed_link_count(); ++i) {
            const DirectedLink d = DirectedLink::from_index(i);
            if (kind_of(m, m.topology.target(d)) == NodeKind::spine && m.network.bytes_sent(d) > Bytes::zero())
                return d;
        }
        return DirectedLink{};
    };
    const DirectedLink leaf_up = spine_of();
    REQUIRE(kind_of(m, m.topology.source(leaf_up)) == NodeKind::leaf);
    const std::vector<DirectedLink> up_path = {host_hop(m, 0, 0), host_hop(m, 0, 1), leaf_up};
    for (DirectedLink d : up_path)
        for (DirectedLink e : {d, reverse(d)}) {
            const auto& l = m.topology.link(e.link);
            const Time hop = l.propagation + m.topology.node(m.topology.target(e)).forwarding_latency;
            const Bytes unit = l.type == fabric::LinkType::fabric ? c.fabric.mtu : 64_KiB;
            latency += hop + transmit_time(unit, l.payload_bandwidth());
            // The model's own form: every directed edge streams S at once; the last ends last.
            // Serialisation is rounded up to the picosecond per packet (or segment), so the
            // edge's time is its units' times summed, not S's time rounded once.
            const Time stream = transmit_time(unit, l.payload_bandwidth()) * (size / unit);
            model = std::max(model, stream + hop);
        }
    const double closed_form = (transmit_time(size, fabric_rate) + latency).seconds();
    CHECK(done.at.seconds() == Approx(closed_form).epsilon(0.02));
    CHECK(done.at.seconds() == Approx(model.seconds()).epsilon(1e-6));
    // The 100G fabric sets the pace: its payload rate, not PCIe's.
    CHECK(model - transmit_time(size, fabric_rate) < Time::us(1));
}

TEST_CASE("a SHARP operation on rail 3 enters the fabric by every server's NIC 3", "[packet][sharp]") {
    const auto c = infiniband(hgx(4));
    Model m(c, sharp_spec(c));
    const std::vector<RankId> members = {RankId{0}, RankId{8}, RankId{16}, RankId{24}};  // GPU 0 of each
    const Bytes size = 4_MiB;
    Simulator sim(1);
    Done done;
    m.network.start_group(sim, sharp_op(members, size, size, 3), done);
    sim.run();
    REQUIRE(done.calls == 1);
    CHECK(m.network.packets_in_flight() == 0);
    Bytes fabric_bytes = Bytes::zero();
    for (const auto& server : m.topology.servers())
        for (std::size_t k = 0; k < server.nics.size(); ++k) {
            const auto nic = server.nics[k];
            for (std::uint32_t p = 0; p < m.topology.node(nic).ports.size(); ++p) {
                const DirectedLink d = m.topology.egress(nic, p);
                if (m.topology.link(d.link).type != fabric::LinkType::fabric) continue;
                CHECK(m.network.bytes_sent(d) == (k == 3 ? size : Bytes::zero()));
                CHECK(m.network.bytes_sent(reverse(d)) == (k == 3 ? size : Bytes::zero()));
                fabric_bytes += m.network.bytes_sent(d) + m.network.bytes_sent(reverse(d));
            }
        }
    CHECK(fabric_bytes == size * 8);  // four NICs, S up and S down each
}

TEST_CASE("a SHARP all-reduce through the collective layer sends S over g up and down each NIC",
          "[packet][sharp][collective]") {
    const auto cluster = infiniband(hgx(4));
    Model m(cluster, sharp_spec(cluster));
    const Bytes size = 64_MiB;
    const auto run = run_all_reduce(m, cluster, scenario::CollectiveAlgorithm::sharp, size);
    REQUIRE(run.finished);
    CHECK(m.network.packets_in_flight() == 0);
    // Every NIC carries its rail's share of the inter-server step, S/8, once each way.
    for (const auto& server : m.topology.servers())
        for (const auto nic : server.nics)
            for (std::uint32_t p = 0; p < m.topology.node(nic).ports.size(); ++p) {
                const DirectedLink d = m.topology.egress(nic, p);
                if (m.topology.link(d.link).type != fabric::LinkType::fabric) continue;
                CHECK(m.network.bytes_sent(d) == size / 8);
                CHECK(m.network.bytes_sent(reverse(d)) == size / 8);
            }
    // The time: never below S/g at a NIC's payload rate, and below the ring's on the same
    // fabric (the ring moves 2(n-1)/n x S/g through every NIC each way, SHARP S/g). 64 MiB:
    // SHARP busbw 418 GB/s (NVLS at 0.85 of NVLink sets its pace, docs/models/nvls.md), ring
    // 314 GB/s (the pieces' joins keep it under the NICs' 397).
    const Bandwidth nic_rate = Bandwidth::bps(400'000'000'000LL * 4096 / 4122);
    CHECK(run.measured.time >= transmit_time(size / 8, nic_rate));
    Model ring_model(cluster, sharp_spec(cluster));
    const auto ring = run_all_reduce(ring_model, cluster, scenario::CollectiveAlgorithm::ring, size);
    REQUIRE(ring.finished);
    CHECK(run.measured.time < ring.measured.time);
}
