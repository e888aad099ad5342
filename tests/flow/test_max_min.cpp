// Max-min fair rates by progressive filling (src/flow/flow_rules.hpp) against closed forms
// derived by hand, and the incremental solver against a fresh solve of the whole system.
#include <catch2/catch.hpp>

#include "flow/incremental_max_min.hpp"
#include "flow/rate_backend.hpp"

#include <algorithm>
#include <random>

using namespace fabricsim::flow;

namespace {
std::vector<double> solve(const FlowSystem& s) {
    s.check();
    CpuMaxMin cpu;
    std::vector<double> rates;
    cpu.solve(s, rates);
    return rates;
}
// A fresh filling of every live flow (each with weight, cap and uses), in their order.
template <class Live>
std::vector<double> fresh_rates(const std::vector<double>& capacity, const std::vector<Live>& live) {
    FlowSystem s;
    for (double c : capacity) s.add_link(c);
    for (const Live& f : live) {
        s.begin_flow(f.weight, f.cap);
        for (const auto& u : f.uses) s.add_use(u.link, u.share);
        s.end_flow();
    }
    return solve(s);
}
// One solve() of the changes so far, against a fresh filling (to 1e-6 relative: the checks'
// slack, incremental_max_min.cpp); returns the flows live.
template <class Live>
std::size_t solve_as_fresh(IncrementalMaxMin& inc, const std::vector<double>& capacity, const std::vector<Live>& live) {
    inc.solve();
    const std::vector<double> fresh = fresh_rates(capacity, live);
    for (std::size_t i = 0; i < live.size(); ++i) REQUIRE(inc.rate(live[i].id) == Approx(fresh[i]).epsilon(1e-6));
    return live.size();
}
// A host's path up and a spine link: PCIe P (16 B/s), NIC up link U (12.5), leaf port L (14),
// spine link S (8). X crosses P, U and L; Y crosses them and S; Z crosses S alone.
namespace series {
constexpr std::uint32_t p = 0, u = 1, l = 2, s = 3;
const std::vector<double> capacity{16.0, 12.5, 14.0, 8.0};
const std::vector<LinkUse> x{{p, 1.0}, {u, 1.0}, {l, 1.0}}, y{{p, 1.0}, {u, 1.0}, {l, 1.0}, {s, 1.0}}, z{{s, 1.0}};
}  // namespace series
}  // namespace

TEST_CASE("n flows on one link each get C/n", "[flow][maxmin]") {
    for (int n = 1; n <= 7; ++n) {
        FlowSystem s;
        const auto l = s.add_link(12.5e9);
        for (int i = 0; i < n; ++i) s.add_flow(1, kUncapped, {{l, 1.0}});
        for (double r : solve(s)) CHECK(r == Approx(12.5e9 / n).epsilon(1e-12));
    }
}

TEST_CASE("the three-link example: the shared bottleneck first, then what is left", "[flow][maxmin]") {
    // Links L1 = 10, L2 = 4, L3 = 10. Flow a: L1 and L2; b: L1; c: L2 and L3; d: L3.
    // Levels at the start: L1 10/2 = 5, L2 4/2 = 2, L3 10/2 = 5. L2 binds: a = c = 2.
    // Then L1 has 10 - 2 = 8 for b alone and L3 10 - 2 = 8 for d alone: b = d = 8.
    FlowSystem s;
    const auto l1 = s.add_link(10), l2 = s.add_link(4), l3 = s.add_link(10);
    s.add_flow(1, kUncapped, {{l1, 1}, {l2, 1}});
    s.add_flow(1, kUncapped, {{l1, 1}});
    s.add_flow(1, kUncapped, {{l2, 1}, {l3, 1}});
    s.add_flow(1, kUncapped, {{l3, 1}});
    const auto r = solve(s);
    CHECK(r[0] == Approx(2));
    CHECK(r[1] == Approx(8));
    CHECK(r[2] == Approx(2));
    CHECK(r[3] == Approx(8));
}

TEST_CASE("a capped flow keeps its cap and the others share the rest", "[flow][maxmin]") {
    // Link 10 with three flows, one capped at 1: the cap binds first (1 < 10/3), then the
    // other two split 10 - 1 = 9: 4.5 each.
    FlowSystem s;
    const auto l = s.add_link(10);
    s.add_flow(1, 1.0, {{l, 1}});
    s.add_flow(1, kUncapped, {{l, 1}});
    s.add_flow(1, kUncapped, {{l, 1}});
    const auto r = solve(s);
    CHECK(r[0] == Approx(1));
    CHECK(r[1] == Approx(4.5));
    CHECK(r[2] == Approx(4.5));
}

TEST_CASE("weights share in proportion and a striped flow uses the sum of its links", "[flow][maxmin]") {
    // Weights 1 and 3 on a link of 8: 8·1/4 = 2 and 8·3/4 = 6.
    FlowSystem w;
    const auto l = w.add_link(8);
    w.add_flow(1, kUncapped, {{l, 1}});
    w.add_flow(3, kUncapped, {{l, 1}});
    const auto rw = solve(w);
    CHECK(rw[0] == Approx(2));
    CHECK(rw[1] == Approx(6));
    // One flow striped half and half over two links of 5: x/2 <= 5 on each, so x = 10.
    FlowSystem s;
    const auto a = s.add_link(5), b = s.add_link(5);
    s.add_flow(1, kUncapped, {{a, 0.5}, {b, 0.5}});
    CHECK(solve(s)[0] == Approx(10));
}

TEST_CASE("the solver never loads a link above capacity and saturates every flow's bottleneck, by scan and by heap",
          "[flow][maxmin]") {
    // Max-min's defining property (Bertsekas & Gallager §6.5.2): every flow crosses a
    // saturated link on which no flow has a higher rate (its bottleneck), or sits at its cap.
    // 30 links: the solver finds the lowest link by a scan; 400 (above CpuMaxMin's
    // kScanLinks, 256): by its heap. Both must give the max-min allocation.
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 24; ++trial) {
        FlowSystem s;
        const int links = trial % 4 == 3 ? 400 : 30;
        for (int l = 0; l < links; ++l) s.add_link(1.0 + static_cast<double>(rng() % 100));
        for (int f = 0; f < (links > 100 ? 1500 : 200); ++f) {
            s.begin_flow(1.0 + static_cast<double>(rng() % 3),
                         rng() % 5 == 0 ? 0.5 + static_cast<double>(rng() % 4) : kUncapped);
            const int hops = 1 + static_cast<int>(rng() % 4);
            for (int h = 0; h < hops; ++h) s.add_use(static_cast<std::uint32_t>(rng() % links), 1.0);
            s.end_flow();
        }
        const auto r = solve(s);
        std::vector<double> load(links, 0.0);
        for (std::uint32_t f = 0; f < s.flows(); ++f)
            for (auto k = s.first[f]; k < s.first[f + 1]; ++k) load[s.link_of[k]] += r[f];
        for (int l = 0; l < links; ++l) CHECK(load[l] <= s.capacity[l] * (1 + 1e-9));
        for (std::uint32_t f = 0; f < s.flows(); ++f) {
            bool bottlenecked = r[f] >= s.cap[f] * (1 - 1e-9);
            for (auto k = s.first[f]; k < s.first[f + 1] && !bottlenecked; ++k) {
                const auto l = s.link_of[k];
                if (load[l] < s.capacity[l] * (1 - 1e-9)) continue;
                bool highest = true;  // per unit weight, no flow on l does better
                for (std::uint32_t g = 0; g < s.flows(); ++g)
                    for (auto j = s.first[g]; j < s.first[g + 1]; ++j)
                        if (s.link_of[j] == l && r[g] / s.weight[g] > r[f] / s.weight[f] * (1 + 1e-9)) highest = false;
                bottlenecked = highest;
            }
            CHECK(bottlenecked);
        }
    }
}

TEST_CASE("incremental re-solves give the rates of a fresh solve and leave other components alone", "[flow][maxmin]") {
    std::mt19937_64 rng(11);
    const int links = 40;
    std::vector<double> capacity;
    for (int l = 0; l < links; ++l) capacity.push_back(1.0 + static_cast<double>(rng() % 50));
    CpuMaxMin cpu;
    IncrementalMaxMin inc(capacity, cpu);
    std::vector<std::vector<LinkUse>> paths;
    std::vector<std::uint32_t> live;
    for (int step = 0; step < 300; ++step) {
        if (!live.empty() && rng() % 3 == 0) {
            const std::size_t i = rng() % live.size();
            inc.remove(live[i]);
            live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
        } else {
            // Links 0..19 and 20..39 never meet: two components.
            const std::uint32_t base = rng() % 2 == 0 ? 0 : 20;
            std::vector<LinkUse> uses;
            for (int h = 0, n = 1 + static_cast<int>(rng() % 3); h < n; ++h)
                uses.push_back({base + static_cast<std::uint32_t>(rng() % 20), 1.0});
            const auto id = inc.add(1.0, kUncapped, uses);
            if (paths.size() <= id) paths.resize(id + 1);
            paths[id] = uses;
            live.push_back(id);
        }
        const auto before = live.empty() ? 0.0 : inc.rate(live.front());
        const auto& solved = inc.solve();
        // A flow outside every solved component kept its rate.
        if (!live.empty() && std::find(solved.begin(), solved.end(), live.front()) == solved.end())
            CHECK(inc.rate(live.front()) == before);
        // Fresh solve of everything live.
        FlowSystem s;
        for (double c : capacity) s.add_link(c);
        for (auto id : live) {
            s.begin_flow(1.0, kUncapped);
            for (const auto& u : paths[id]) s.add_use(u.link, u.share);
            s.end_flow();
        }
        std::vector<double> fresh;
        cpu.solve(s, fresh);
        for (std::size_t i = 0; i < live.size(); ++i) REQUIRE(inc.rate(live[i]) == Approx(fresh[i]).epsilon(1e-9));
    }
}

TEST_CASE("the local re-solve gives a fresh solve's rates on random arrivals and departures", "[flow][maxmin]") {
    // Weights, caps, striped shares, re-weighted flows and batches of changes at one instant, on one connected
    // network (every flow crosses one of 8 shared "spine" links), where the whole component
    // is every flow: solve() must still end at the unique max-min allocation, which a fresh
    // progressive filling of every live flow computes independently.
    std::mt19937_64 rng(23);
    for (int trial = 0; trial < 6; ++trial) {
        const std::uint32_t links = 60;
        std::vector<double> capacity;
        for (std::uint32_t l = 0; l < links; ++l) capacity.push_back(1.0 + static_cast<double>(rng() % 20));
        CpuMaxMin cpu;
        IncrementalMaxMin inc(capacity, cpu);
        struct Live {
            std::uint32_t id;
            double weight, cap;
            std::vector<LinkUse> uses;
        };
        std::vector<Live> live;
        std::uint64_t every_live = 0;  // Σ over steps of the flows live then
        for (int step = 0; step < 250; ++step) {
            for (int batch = 1 + static_cast<int>(rng() % 4); batch > 0; --batch) {
                if (!live.empty() && rng() % 5 < 2) {
                    const std::size_t i = rng() % live.size();
                    inc.remove(live[i].id);
                    live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
                    continue;
                }
                if (!live.empty() && rng() % 6 == 0) {
                    // A group of identical flows gains or loses members: weight and cap
                    // move together (flow_network.hpp).
                    Live& f = live[rng() % live.size()];
                    const double n = 1.0 + static_cast<double>(rng() % 4);
                    f.cap = f.cap / f.weight * n;
                    f.weight = n;
                    inc.reweight(f.id, f.weight, f.cap);
                    continue;
                }
                Live f;
                f.weight = 1.0 + static_cast<double>(rng() % 3);
                f.cap = rng() % 6 == 0 ? 0.5 + static_cast<double>(rng() % 5) : kUncapped;
                f.uses.push_back({static_cast<std::uint32_t>(rng() % 8), 1.0});  // a spine link
                // A striped part: k distinct links sharing 1/k each.
                const std::uint32_t k = 1 + static_cast<std::uint32_t>(rng() % 3);
                const std::uint32_t base = 8 + static_cast<std::uint32_t>(rng() % (links - 8 - k + 1));
                for (std::uint32_t j = 0; j < k; ++j) f.uses.push_back({base + j, 1.0 / k});
                f.id = inc.add(f.weight, f.cap, f.uses);
                live.push_back(std::move(f));
            }
            every_live += solve_as_fresh(inc, capacity, live);
        }
        // It re-solved fewer flows than re-solving every live flow at every step (what a
        // component-wide solve does once the spine links join them all): the point of
        // solving locally.
        CHECK(inc.flows_solved() > 0);
        CHECK(inc.flows_solved() < every_live);
    }
}

TEST_CASE("flows alone on their links get their own bottleneck, as a fresh filling gives it to the bit",
          "[flow][maxmin]") {
    // Links 0..2 of 10, 4 and 100 B/s. A (weight 3) crosses link 0 whole and half of its bytes
    // cross link 1: alone, its weight does not matter and its rate is min(10/1, 4/0.5) = 8.
    // B (cap 2) alone on link 2 of 100: its cap, 2. Neither shares a link, so the solve takes
    // each alone (incremental_max_min.hpp, isolated()). Then C (weight 1) joins link 0: link 0's
    // level is 10/(3+1) = 2.5, below link 1's 4/(0.5·3) = 8/3 for A, so A = 3·2.5 = 7.5 and
    // C = 2.5 (A puts 3.75 <= 4 on link 1). C leaves: A is alone again at 8.
    const std::vector<double> capacity{10.0, 4.0, 100.0};
    CpuMaxMin cpu;
    IncrementalMaxMin inc(capacity, cpu);
    const std::vector<LinkUse> a_uses{{0, 1.0}, {1, 0.5}}, b_uses{{2, 1.0}}, c_uses{{0, 1.0}};
    const auto a = inc.add(3.0, kUncapped, a_uses);
    const auto b = inc.add(1.0, 2.0, b_uses);
    CHECK(inc.solve().size() == 2);
    CHECK(inc.rate(a) == Approx(8.0).epsilon(1e-12));
    CHECK(inc.rate(b) == Approx(2.0).epsilon(1e-12));
    FlowSystem s;
    for (double c : capacity) s.add_link(c);
    s.add_flow(3.0, kUncapped, {{0, 1.0}, {1, 0.5}});
    s.add_flow(1.0, 2.0, {{2, 1.0}});
    const std::vector<double> fresh = solve(s);
    CHECK(inc.rate(a) == fresh[0]);  // the filling's arithmetic, not only its value
    CHECK(inc.rate(b) == fresh[1]);
    const auto c = inc.add(1.0, kUncapped, c_uses);
    inc.solve();
    CHECK(inc.rate(a) == Approx(7.5).epsilon(1e-12));
    CHECK(inc.rate(c) == Approx(2.5).epsilon(1e-12));
    CHECK(inc.rate(b) == Approx(2.0).epsilon(1e-12));
    inc.remove(c);
    inc.solve();
    CHECK(inc.rate(a) == Approx(8.0).epsilon(1e-12));
    CHECK(inc.link_rate(1) == Approx(4.0).epsilon(1e-12));  // A saturates link 1
}

namespace {
bool solved(const std::vector<std::uint32_t>& set, std::uint32_t flow) {
    return std::find(set.begin(), set.end(), flow) != set.end();
}
// Each flow's rate against its closed form (to 1e-12 relative: the filling's rounding).
void rates_are(const IncrementalMaxMin& inc, std::initializer_list<std::pair<std::uint32_t, double>> expected) {
    for (const auto& [flow, rate] : expected) {
        INFO("flow " << flow);
        CHECK(inc.rate(flow) == Approx(rate).epsilon(1e-12));
    }
}
}  // namespace

TEST_CASE("a departure moves every flow down a chain of bottlenecks, and a capped flow beside it is not re-solved",
          "[flow][maxmin]") {
    // Links 0..3 of 2, 3, 5 and 100 B/s. X0 on link 0; X1 on links 0 and 1; X2 on 1 and 2;
    // X3 on 2 and 3; K (cap 1) on link 3. Filling: link 0's level 2/2 = 1 is the lowest, so
    // X0 = X1 = 1; link 1 then has 3 - 1 = 2 for X2 alone (level 2), below link 2's 5/2, so
    // X2 = 2; link 2 has 5 - 2 = 3 for X3. K sits at its cap on link 3 (3 + 1 <= 100).
    // X0 leaves: link 0 has X1 alone (level 2), link 1's level is 3/2, so X1 = X2 = 1.5 and
    // X3 = 5 - 1.5 = 3.5: a change at link 0 moves X3, whose bottleneck (link 2) it does not
    // touch, through the chain of bottlenecks. K keeps its cap without being re-solved.
    const std::vector<double> capacity{2.0, 3.0, 5.0, 100.0};
    CpuMaxMin cpu;
    IncrementalMaxMin inc(capacity, cpu);
    const std::vector<LinkUse> u0{{0, 1.0}}, u1{{0, 1.0}, {1, 1.0}}, u2{{1, 1.0}, {2, 1.0}}, u3{{2, 1.0}, {3, 1.0}},
        uk{{3, 1.0}};
    const auto x0 = inc.add(1.0, kUncapped, u0), x1 = inc.add(1.0, kUncapped, u1), x2 = inc.add(1.0, kUncapped, u2),
               x3 = inc.add(1.0, kUncapped, u3), k = inc.add(1.0, 1.0, uk);
    inc.solve();
    rates_are(inc, {{x0, 1.0}, {x1, 1.0}, {x2, 2.0}, {x3, 3.0}, {k, 1.0}});
    inc.remove(x0);
    const std::vector<std::uint32_t> set = inc.solve();
    rates_are(inc, {{x1, 1.5}, {x2, 1.5}, {x3, 3.5}, {k, 1.0}});
    CHECK(solved(set, x1));
    CHECK(solved(set, x2));
    CHECK(solved(set, x3));
    CHECK_FALSE(solved(set, k));  // on a link X3's change loads, but at its cap below it
    CHECK(inc.refills() == 2);    // one re-fill per solve: the chain was taken in at once
}

TEST_CASE("a change that saturates a link under a capped flow moves it", "[flow][maxmin]") {
    // Link 0 of 3 B/s, link 1 of 10. K (cap 2) alone on link 0 runs at its cap; F on link 1.
    // Z arrives on link 0 and link 1: link 0's level is 3/2 = 1.5 < K's cap, so K and Z get
    // 1.5 each, and F takes 10 - 1.5 = 8.5. K was at its cap, held at no link, and still
    // must move: the checks find link 0 saturated with K above Z.
    const std::vector<double> capacity{3.0, 10.0};
    CpuMaxMin cpu;
    IncrementalMaxMin inc(capacity, cpu);
    const std::vector<LinkUse> uk{{0, 1.0}}, uf{{1, 1.0}}, uz{{0, 1.0}, {1, 1.0}};
    const auto k = inc.add(1.0, 2.0, uk), f = inc.add(1.0, kUncapped, uf);
    inc.solve();
    rates_are(inc, {{k, 2.0}, {f, 10.0}});
    const auto z = inc.add(1.0, kUncapped, uz);
    const std::vector<std::uint32_t> set = inc.solve();
    CHECK(solved(set, k));
    rates_are(inc, {{k, 1.5}, {z, 1.5}, {f, 8.5}});
    // Z leaves: link 0 has room again and K goes back to its cap.
    inc.remove(z);
    inc.solve();
    rates_are(inc, {{k, 2.0}, {f, 10.0}});
}

TEST_CASE("the local re-solve gives a fresh solve's rates on rings that each cross many links", "[flow][maxmin]") {
    // The shape of a fabric's DP rings on the flow model (flow_ring.cpp): each flow crosses
    // every link of n connections, host links of its own ranks (NIC up and down, shared by
    // the ring's channels and by point-to-point sends) and one of 8 spine links per
    // connection by hash, some capped at their ring's average, with short point-to-point
    // flows arriving and leaving between them. After every batch of changes, the rates must
    // be those of a fresh filling of every live flow; the flows re-solved are counted against
    // a re-solve of every live flow at every step.
    std::mt19937_64 rng(7);
    const std::uint32_t hosts = 32, spines = 8, links = 2 * hosts + spines;  // up, down, spine
    for (int trial = 0; trial < 4; ++trial) {
        std::vector<double> capacity;
        for (std::uint32_t l = 0; l < links; ++l)
            capacity.push_back(l < 2 * hosts ? 10.0 + static_cast<double>(rng() % 3)
                                             : 30.0 + static_cast<double>(rng() % 40));
        CpuMaxMin cpu;
        IncrementalMaxMin inc(capacity, cpu);
        struct Live {
            std::uint32_t id;
            double weight = 1, cap;
            std::vector<LinkUse> uses;
        };
        std::vector<Live> live;
        std::uint64_t every_live = 0;
        const auto ring = [&] {
            // n ranks in a row of hosts; connection i: up of rank i, one spine, down of i + 1.
            const std::uint32_t n = 3 + static_cast<std::uint32_t>(rng() % 6),
                                first = static_cast<std::uint32_t>(rng() % hosts);
            std::vector<double> share(links, 0.0);
            for (std::uint32_t i = 0; i < n; ++i) {
                const std::uint32_t a = (first + i) % hosts, b = (first + i + 1) % hosts;
                share[a] += 1.0;
                share[hosts + b] += 1.0;
                share[2 * hosts + rng() % spines] += 1.0;
            }
            Live f;
            f.cap = rng() % 4 == 0 ? 2.0 + static_cast<double>(rng() % 6) : kUncapped;
            for (std::uint32_t l = 0; l < links; ++l)
                if (share[l] > 0) f.uses.push_back({l, share[l]});
            return f;
        };
        const auto send = [&] {
            const std::uint32_t a = static_cast<std::uint32_t>(rng() % hosts),
                                b = (a + 1 + rng() % (hosts - 1)) % hosts;
            Live f;
            f.cap = kUncapped;
            f.uses = {{a, 1.0}, {2 * hosts + static_cast<std::uint32_t>(rng() % spines), 1.0}, {hosts + b, 1.0}};
            return f;
        };
        for (int step = 0; step < 200; ++step) {
            for (int batch = 1 + static_cast<int>(rng() % 3); batch > 0; --batch) {
                if (live.size() > 6 && rng() % 2 == 0) {
                    const std::size_t i = rng() % live.size();
                    inc.remove(live[i].id);
                    live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
                    continue;
                }
                Live f = rng() % 3 == 0 ? ring() : send();
                f.id = inc.add(1.0, f.cap, f.uses);
                live.push_back(std::move(f));
            }
            every_live += solve_as_fresh(inc, capacity, live);
            // Feasible: no link above its capacity (to the checks' slack).
            for (std::uint32_t l = 0; l < links; ++l) REQUIRE(inc.link_rate(l) <= capacity[l] * (1 + 1e-7));
        }
        CHECK(inc.flows_solved() < every_live);
    }
}

TEST_CASE("links with the same flows at other shares, or under a flow that names a link twice, are classes apart",
          "[flow][maxmin]") {
    CpuMaxMin cpu;
    SECTION("the same flows with other shares") {
        // A: X + Y <= 10 (level 5); B: X/2 + 3Y/2 <= 8 (level 8/2 = 4) binds first: X = Y = 4,
        // and A carries 8. One class of A and B (either one's constraint for both) would give 5
        // each (or other rates).
        const std::vector<double> c2{10.0, 8.0};
        IncrementalMaxMin two(c2, cpu);
        const std::vector<LinkUse> vx{{0, 1.0}, {1, 0.5}}, vy{{0, 1.0}, {1, 1.5}};
        const auto a = two.add(1.0, kUncapped, vx), b = two.add(1.0, kUncapped, vy);
        two.solve();
        CHECK(two.uses_dropped() == 0);
        rates_are(two, {{a, 4.0}, {b, 4.0}});
        CHECK(two.link_rate(0) == Approx(8.0).epsilon(1e-12));
    }
    SECTION("a flow that names a link twice") {
        // X puts half its bytes on A twice (X + Y <= 9 on A) and crosses B (X + Y <= 10):
        // A binds at 4.5 each. Each link of such a flow is a class of its own.
        const std::vector<double> c2{9.0, 10.0};
        IncrementalMaxMin two(c2, cpu);
        const std::vector<LinkUse> vx{{0, 0.5}, {0, 0.5}, {1, 1.0}}, vy{{0, 1.0}, {1, 1.0}};
        const auto a = two.add(1.0, kUncapped, vx), b = two.add(1.0, kUncapped, vy);
        two.solve();
        CHECK(two.uses_dropped() == 0);
        rates_are(two, {{a, 4.5}, {b, 4.5}});
    }
}

TEST_CASE("a flow on one link of a class splits it off, its departure joins it again, rates as a fresh filling",
          "[flow][maxmin]") {
    // The series path (namespace series): P (16), U (12.5), L (14) carry X and Y, S (8) carries
    // Y and Z; Y = Z = 4, X = 8.5, and P, U, L are one class (the same flows at the same shares).
    using series::p, series::u, series::l, series::capacity;
    CpuMaxMin cpu;
    IncrementalMaxMin inc(capacity, cpu);
    struct Live {
        std::uint32_t id;
        double weight, cap;
        std::vector<LinkUse> uses;
    };
    std::vector<Live> live{
        {0, 1.0, kUncapped, series::x}, {0, 1.0, kUncapped, series::y}, {0, 1.0, kUncapped, series::z}};
    for (Live& f : live) f.id = inc.add(f.weight, f.cap, f.uses);
    solve_as_fresh(inc, capacity, live);
    CHECK(inc.uses_dropped() == 4);  // X's and Y's uses of two of P, U, L
    rates_are(inc, {{live[0].id, 8.5}, {live[1].id, 4.0}, {live[2].id, 4.0}});

    // W arrives on L alone: L (X, Y, W) leaves the class, P and U stay one. S binds first at
    // 4 (Y = Z = 4); then L at (14 - 4) / 2 = 5 below U's 12.5 - 4 = 8.5: X = W = 5. W alone is
    // re-filled first (1.5, what L has left), fails its check under X and Y, and the second
    // re-fill of W, X, Y leaves out X's and Y's use of one of P, U: 2 uses.
    live.push_back({0, 1.0, kUncapped, {{l, 1.0}}});
    live.back().id = inc.add(1.0, kUncapped, live.back().uses);
    solve_as_fresh(inc, capacity, live);
    CHECK(inc.uses_dropped() == 4 + 2);
    rates_are(inc, {{live[0].id, 5.0}, {live[1].id, 4.0}, {live[2].id, 4.0}, {live[3].id, 5.0}});
    CHECK(inc.link_rate(p) == 9.0);
    CHECK(inc.link_rate(u) == 9.0);
    CHECK(inc.link_rate(l) == 14.0);

    // W leaves: P, U, L are one class again. X, held at L, is re-filled alone, once for the
    // class: its uses of two of the three are left out (2), and it takes U's 12.5 - 4 = 8.5.
    inc.remove(live.back().id);
    live.pop_back();
    solve_as_fresh(inc, capacity, live);
    CHECK(inc.uses_dropped() == 6 + 2);
    rates_are(inc, {{live[0].id, 8.5}, {live[1].id, 4.0}, {live[2].id, 4.0}});
    // One load for the class, to the bit.
    CHECK(inc.link_rate(p) == 12.5);
    CHECK(inc.link_rate(u) == 12.5);
    CHECK(inc.link_rate(l) == 12.5);
}

TEST_CASE("flows on the same route share its classes, each with its own cap", "[flow][maxmin]") {
    // X (cap 1) and Y cross links 0 (10 B/s) and 1 (6 B/s) in that order, Z crosses 1 and 0:
    // the same links, another route. One class {0, 1}; link 1 binds: X = 1 at its cap, Y and Z
    // share 6 - 1 = 5. Each flow names the class once: 3 of the 6 uses are left out.
    CpuMaxMin cpu;
    IncrementalMaxMin inc({10.0, 6.0}, cpu);
    const std::vector<LinkUse> forward{{0, 1.0}, {1, 1.0}}, backward{{1, 1.0}, {0, 1.0}};
    const auto x = inc.add(1.0, 1.0, forward), y = inc.add(1.0, kUncapped, forward),
               z = inc.add(1.0, kUncapped, backward);
    inc.solve();
    CHECK(inc.uses_dropped() == 3);
    rates_are(inc, {{x, 1.0}, {y, 2.5}, {z, 2.5}});
    CHECK(inc.link_rate(0) == 6.0);
    CHECK(inc.link_rate(1) == 6.0);
    // X's cap rises to 5, above the fair share: 6 / 3 = 2 each.
    inc.set_cap(x, 5.0);
    inc.solve();
    rates_are(inc, {{x, 2.0}, {y, 2.0}, {z, 2.0}});
    CHECK(inc.link_rate(0) == Approx(6.0).epsilon(1e-12));
    CHECK(inc.link_rate(1) == Approx(6.0).epsilon(1e-12));
}

TEST_CASE("flows on one route at one cap level are one flow of the re-fill's system, weighted", "[flow][maxmin]") {
    // A (10 B/s) and B (12 B/s). X (weight 1) and Y (weight 2) cross A then B, uncapped; Z
    // crosses B alone; W crosses A then B with cap 1. Progressive filling: W stops at its cap
    // (level 1); B then has 12 - 1 = 11 for weights 1 + 2 + 1 = 4, level 2.75, below A's
    // (10 - 1) / 3 = 3: X = Z = 2.75, Y = 5.5. Y joins X's system flow (same route, both
    // without a cap); W, at another cap level, stays apart: one flow merged.
    CpuMaxMin cpu;
    const std::vector<double> capacity{10.0, 12.0};
    IncrementalMaxMin inc(capacity, cpu);
    const std::vector<LinkUse> route{{0, 1.0}, {1, 1.0}}, b_only{{1, 1.0}};
    const auto x = inc.add(1.0, kUncapped, route), y = inc.add(2.0, kUncapped, route),
               z = inc.add(1.0, kUncapped, b_only), w = inc.add(1.0, 1.0, route);
    inc.solve();
    CHECK(inc.flows_merged() == 1);
    rates_are(inc, {{x, 2.75}, {y, 5.5}, {z, 2.75}, {w, 1.0}});
    CHECK(inc.link_rate(0) == Approx(9.25).epsilon(1e-12));
    CHECK(inc.link_rate(1) == Approx(12.0).epsilon(1e-12));
    // Y capped at 4 (level 2, below B's 2.75): Y = 4, then B has 12 - 1 - 4 = 7 for X and Z,
    // 3.5 each (A: 3.5 + 4 + 1 = 8.5). Y is the set's first flow on the route and X is at
    // another cap level: nothing merged.
    inc.set_cap(y, 4.0);
    inc.solve();
    CHECK(inc.flows_merged() == 1);
    rates_are(inc, {{x, 3.5}, {y, 4.0}, {z, 3.5}, {w, 1.0}});
    CHECK(inc.link_rate(0) == Approx(8.5).epsilon(1e-12));
    // Y's cap lifted: the first allocation again, X merged into Y's system flow.
    inc.set_cap(y, kUncapped);
    inc.solve();
    CHECK(inc.flows_merged() == 2);
    rates_are(inc, {{x, 2.75}, {y, 5.5}, {z, 2.75}, {w, 1.0}});
}

TEST_CASE("re-fills on link classes give a fresh filling of the full system on random fabrics", "[flow][maxmin]") {
    // Hosts with a path up (PCIe, NIC, leaf port) and down (the same three), 8 spines; a
    // message crosses its source's three up links, one spine (or half its bytes on each of
    // two) and its destination's three down links; a copy inside a host crosses only its PCIe
    // links, which splits them off the NIC's. Capacities draw ties and differences. After
    // every batch, a re-fill of every connected component (solve_components) against a fresh
    // filling of every live flow on the full system, to 1e-9 relative (the filling's rounding
    // of what other components leave), no link above its capacity; and the local solve on a
    // twin against the same, to the checks' 1e-6.
    std::mt19937_64 rng(11);
    const std::uint32_t hosts = 12, spines = 8, links = 6 * hosts + spines;
    for (int trial = 0; trial < 4; ++trial) {
        std::vector<double> capacity;
        for (std::uint32_t l = 0; l < links; ++l)
            capacity.push_back(l < 6 * hosts ? 10.0 + static_cast<double>(rng() % 4)
                                             : 20.0 + static_cast<double>(rng() % 30));
        CpuMaxMin cpu, cpu2;
        IncrementalMaxMin whole(capacity, cpu), local(capacity, cpu2);
        struct Live {
            std::uint32_t id, twin;
            double weight, cap;
            std::vector<LinkUse> uses;
        };
        std::vector<Live> live;
        const auto up = [](std::uint32_t h, std::uint32_t k) { return 3 * h + k; };
        const auto down = [&](std::uint32_t h, std::uint32_t k) { return 3 * hosts + 3 * h + k; };
        const auto spine = [&](std::uint32_t s) { return 6 * hosts + s; };
        for (int step = 0; step < 150; ++step) {
            for (int batch = 1 + static_cast<int>(rng() % 3); batch > 0; --batch) {
                if (live.size() > 8 && rng() % 2 == 0) {
                    const std::size_t i = rng() % live.size();
                    whole.remove(live[i].id);
                    local.remove(live[i].twin);
                    live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
                    continue;
                }
                const std::uint32_t a = static_cast<std::uint32_t>(rng() % hosts),
                                    b = (a + 1 + static_cast<std::uint32_t>(rng() % (hosts - 1))) % hosts;
                Live f;
                f.weight = 1.0 + static_cast<double>(rng() % 3);
                f.cap = rng() % 5 == 0 ? 1.0 + static_cast<double>(rng() % 8) : kUncapped;
                if (rng() % 4 == 0) {
                    f.uses = {{up(a, 0), 1.0}, {down(a, 0), 1.0}};  // a copy inside host a
                } else {
                    for (std::uint32_t k = 0; k < 3; ++k) f.uses.push_back({up(a, k), 1.0});
                    const std::uint32_t s = static_cast<std::uint32_t>(rng() % spines);
                    if (rng() % 3 == 0) {
                        f.uses.push_back({spine(s), 0.5});
                        f.uses.push_back({spine((s + 1) % spines), 0.5});
                    } else {
                        f.uses.push_back({spine(s), 1.0});
                    }
                    for (std::uint32_t k = 0; k < 3; ++k) f.uses.push_back({down(b, k), 1.0});
                }
                f.id = whole.add(f.weight, f.cap, f.uses);
                f.twin = local.add(f.weight, f.cap, f.uses);
                live.push_back(std::move(f));
            }
            whole.solve_components();
            local.solve();
            const std::vector<double> fresh = fresh_rates(capacity, live);
            for (std::size_t i = 0; i < live.size(); ++i) {
                REQUIRE(whole.rate(live[i].id) == Approx(fresh[i]).epsilon(1e-9));
                REQUIRE(local.rate(live[i].twin) == Approx(fresh[i]).epsilon(1e-6));
            }
            for (std::uint32_t l = 0; l < links; ++l) REQUIRE(whole.link_rate(l) <= capacity[l] * (1 + 1e-9));
        }
        CHECK(whole.uses_dropped() > 0);
        CHECK(local.uses_dropped() > 0);
    }
}

TEST_CASE("a solve reports the flows changed since the last first, and the links whose other flows moved",
          "[flow][maxmin]") {
    // Link 0 (10 B/s) carries A and B, link 1 (8 B/s) carries B only: link 0 binds, A = B = 5.
    const std::vector<double> capacity{10.0, 8.0};
    CpuMaxMin cpu;
    IncrementalMaxMin inc(capacity, cpu);
    const std::vector<LinkUse> ua{{0, 1.0}}, ub{{0, 1.0}, {1, 1.0}};
    const auto a = inc.add(1.0, kUncapped, ua), b = inc.add(1.0, kUncapped, ub);
    inc.solve();
    CHECK(inc.rate(a) == 5.0);
    CHECK(inc.rate(b) == 5.0);
    const auto moved = [&](std::uint32_t link) {
        const auto& t = inc.touched_links();
        const auto it = std::find(t.begin(), t.end(), link);
        REQUIRE(it != t.end());
        return inc.touched_moved()[static_cast<std::size_t>(it - t.begin())] != 0;
    };
    SECTION("a re-weight to the same weight moves nobody") {
        inc.reweight(a, 1.0, kUncapped);
        const auto& solved = inc.solve();
        REQUIRE(inc.changed_flows() == 1);
        CHECK(solved[0] == a);
        CHECK(std::find(solved.begin(), solved.end(), b) != solved.end());  // held at link 0
        CHECK(inc.rate(b) == 5.0);
        CHECK_FALSE(moved(0));
        CHECK_FALSE(moved(1));
    }
    SECTION("an arrival on link 0 moves B down to 10/3 on both its links") {
        const std::vector<LinkUse> uc{{0, 1.0}};
        const auto c = inc.add(1.0, kUncapped, uc);
        const auto& solved = inc.solve();
        REQUIRE(inc.changed_flows() == 1);
        CHECK(solved[0] == c);
        CHECK(inc.rate(b) == Approx(10.0 / 3));
        CHECK(moved(0));
        CHECK(moved(1));  // only B, which did not change, crosses it
    }
}

TEST_CASE("the links a solve reports moved are those of unchanged flows whose rate moved, on random fabrics",
          "[flow][maxmin]") {
    // Random arrivals, departures, re-weights and caps on hosts with three links up and down
    // and a few spines (as above). After each solve: its first changed_flows() flows are the
    // live flows changed since the solve before, and a touched link is reported moved exactly
    // when one of the other flows solved crosses it and ended at another rate than it had.
    std::mt19937_64 rng(23);
    const std::uint32_t hosts = 10, spines = 4, links = 6 * hosts + spines;
    std::vector<double> capacity;
    for (std::uint32_t l = 0; l < links; ++l) capacity.push_back(10.0 + static_cast<double>(rng() % 20));
    CpuMaxMin cpu;
    IncrementalMaxMin inc(capacity, cpu);
    std::vector<std::uint32_t> live;
    std::vector<double> before;
    std::size_t moved_links = 0;
    for (int step = 0; step < 400; ++step) {
        std::vector<std::uint32_t> changed;
        for (int batch = 1 + static_cast<int>(rng() % 3); batch > 0; --batch) {
            const auto pick = rng() % 4;
            if (live.size() > 8 && pick == 0) {
                const std::size_t i = rng() % live.size();
                inc.remove(live[i]);
                changed.erase(std::remove(changed.begin(), changed.end(), live[i]), changed.end());
                live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
            } else if (!live.empty() && pick == 1) {
                const std::uint32_t f = live[rng() % live.size()];
                inc.reweight(f, 1.0 + static_cast<double>(rng() % 3), kUncapped);
                changed.push_back(f);
            } else {
                const std::uint32_t a = static_cast<std::uint32_t>(rng() % hosts),
                                    b = (a + 1 + static_cast<std::uint32_t>(rng() % (hosts - 1))) % hosts;
                std::vector<LinkUse> uses;
                for (std::uint32_t k = 0; k < 3; ++k) uses.push_back({3 * a + k, 1.0});
                uses.push_back({6 * hosts + static_cast<std::uint32_t>(rng() % spines), 1.0});
                for (std::uint32_t k = 0; k < 3; ++k) uses.push_back({3 * hosts + 3 * b + k, 1.0});
                const double cap = rng() % 4 == 0 ? 2.0 + static_cast<double>(rng() % 6) : kUncapped;
                const std::uint32_t f = inc.add(1.0, cap, uses);
                live.push_back(f);
                changed.push_back(f);
            }
        }
        before.assign(*std::max_element(live.begin(), live.end()) + 1, -1.0);
        for (std::uint32_t f : live) before[f] = inc.rate(f);
        const std::vector<std::uint32_t> solved = inc.solve();
        std::sort(changed.begin(), changed.end());
        changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
        REQUIRE(inc.changed_flows() == changed.size());
        std::vector<std::uint32_t> first(solved.begin(), solved.begin() + static_cast<std::ptrdiff_t>(changed.size()));
        std::sort(first.begin(), first.end());
        REQUIRE(first == changed);
        const auto& touched = inc.touched_links();
        REQUIRE(inc.touched_moved().size() == touched.size());
        for (std::size_t i = 0; i < touched.size(); ++i) {
            bool expected = false;
            for (std::size_t k = changed.size(); k < solved.size(); ++k) {
                const std::uint32_t f = solved[k];
                if (inc.rate(f) == before.at(f)) continue;
                for (const LinkUse& u : inc.uses(f)) expected = expected || u.link == touched[i];
            }
            REQUIRE((inc.touched_moved()[i] != 0) == expected);
            moved_links += expected;
        }
    }
    CHECK(moved_links > 0);
}

TEST_CASE("a solve with more classes than the class table's first size, then a smaller one", "[flow][maxmin]") {
    // 700 flows, flow i on its own link i (capacity 1 + i) and on a shared link Z (1000 B/s):
    // 701 classes in one solve (link i carries flow i alone, Z all of them), more than the
    // 1,024-slot table holds at half load, so it grows. Filling: link 0 binds first at level 1
    // (flow 0 = 1); Z then has 999 for 699 flows, 999/699 = 1.43 below link 1's 2: flows 1..699
    // get 999/699. Flow 0 leaves: the next solve (its table emptied of the first one's
    // classes) gives them 1000/699.
    constexpr std::uint32_t n = 700, z = n;
    std::vector<double> capacity;
    for (std::uint32_t i = 0; i < n; ++i) capacity.push_back(1.0 + i);
    capacity.push_back(1000.0);
    CpuMaxMin cpu;
    IncrementalMaxMin inc(capacity, cpu);
    std::vector<std::uint32_t> id;
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::vector<LinkUse> uses{{i, 1.0}, {z, 1.0}};
        id.push_back(inc.add(1.0, kUncapped, uses));
    }
    inc.solve();
    CHECK(inc.rate(id[0]) == Approx(1.0).epsilon(1e-12));
    for (std::uint32_t i = 1; i < n; ++i) REQUIRE(inc.rate(id[i]) == Approx(999.0 / 699.0).epsilon(1e-12));
    CHECK(inc.link_rate(z) == Approx(1000.0).epsilon(1e-12));
    inc.remove(id[0]);
    inc.solve();
    for (std::uint32_t i = 1; i < n; ++i) REQUIRE(inc.rate(id[i]) == Approx(1000.0 / 699.0).epsilon(1e-12));
    CHECK(inc.link_rate(z) == Approx(1000.0).epsilon(1e-12));
    CHECK(inc.link_rate(0) == 0.0);
}

TEST_CASE("a solve's links are its own set's, not the last solve's", "[flow][maxmin]") {
    // Two parts apart: three flows on link A (9 B/s), one flow on link B (4 B/s) beside one on
    // B and C (C: 10 B/s). The first solve takes all: A's flows 9/3 = 3, B's two 4/2 = 2. A
    // flow leaving A re-solves A alone (its two others 9/2 = 4.5), and the next change, a
    // flow leaving B, B and C alone (the one left 4): each solve touches only its own links,
    // and the links of the solve before are not read as in its set.
    constexpr std::uint32_t a = 0, b = 1, c = 2;
    const std::vector<double> capacity{9.0, 4.0, 10.0};
    CpuMaxMin cpu;
    IncrementalMaxMin inc(capacity, cpu);
    const std::vector<LinkUse> on_a{{a, 1.0}}, on_b{{b, 1.0}}, on_bc{{b, 1.0}, {c, 1.0}};
    const std::uint32_t a0 = inc.add(1.0, kUncapped, on_a), a1 = inc.add(1.0, kUncapped, on_a),
                        a2 = inc.add(1.0, kUncapped, on_a), b0 = inc.add(1.0, kUncapped, on_b),
                        b1 = inc.add(1.0, kUncapped, on_bc);
    inc.solve();
    CHECK(inc.rate(a0) == Approx(3.0).epsilon(1e-12));
    CHECK(inc.rate(b1) == Approx(2.0).epsilon(1e-12));
    const auto touched = [&] {
        std::vector<std::uint32_t> links = inc.touched_links();
        std::sort(links.begin(), links.end());
        return links;
    };
    CHECK(touched() == std::vector<std::uint32_t>{a, b, c});
    inc.remove(a2);
    inc.solve();
    CHECK(touched() == std::vector<std::uint32_t>{a});
    CHECK(inc.rate(a0) == Approx(4.5).epsilon(1e-12));
    CHECK(inc.rate(a1) == Approx(4.5).epsilon(1e-12));
    CHECK(inc.rate(b0) == Approx(2.0).epsilon(1e-12));
    inc.remove(b0);
    inc.solve();
    CHECK(touched() == std::vector<std::uint32_t>{b, c});
    CHECK(inc.rate(b1) == Approx(4.0).epsilon(1e-12));
    CHECK(inc.rate(a0) == Approx(4.5).epsilon(1e-12));
    CHECK(inc.link_rate(a) == Approx(9.0).epsilon(1e-12));
    CHECK(inc.link_rate(c) == Approx(4.0).epsilon(1e-12));
}
