// The flow model's completion heap (src/flow/due_heap.hpp) against an ordered set of
// (time, flow) pairs: after any mix of inserts, moves earlier and later, and erases, its top
// is the set's first element, ties going to the lower flow id.
#include <catch2/catch.hpp>

#include "flow/due_heap.hpp"

#include <random>
#include <set>
#include <utility>

using fabricsim::Time;
using fabricsim::flow::DueHeap;

TEST_CASE("the completion heap pops in (time, flow) order through random sets, moves and erases", "[flow]") {
    std::mt19937_64 rng(11);
    DueHeap heap;
    std::set<std::pair<std::int64_t, std::uint32_t>> reference;
    std::vector<std::int64_t> at(200, -1);  // per flow: its time in the reference, or -1
    for (int step = 0; step < 20000; ++step) {
        const auto flow = static_cast<std::uint32_t>(rng() % at.size());
        const int op = static_cast<int>(rng() % 10);
        if (op < 6) {  // insert or move; few distinct times, so ties are common
            const auto t = static_cast<std::int64_t>(rng() % 50);
            if (at[flow] >= 0) reference.erase({at[flow], flow});
            at[flow] = t;
            reference.insert({t, flow});
            heap.set(flow, Time::ps(t));
        } else if (op < 8) {
            if (at[flow] >= 0) reference.erase({at[flow], flow});
            at[flow] = -1;
            heap.erase(flow);
        } else if (!reference.empty()) {
            const auto first = *reference.begin();
            REQUIRE(heap.top_time() == Time::ps(first.first));
            REQUIRE(heap.top_flow() == first.second);
            heap.pop();
            reference.erase(reference.begin());
            at[first.second] = -1;
        }
        REQUIRE(heap.empty() == reference.empty());
        REQUIRE(heap.contains(flow) == (at[flow] >= 0));
        if (!reference.empty()) {
            REQUIRE(heap.top_time() == Time::ps(reference.begin()->first));
            REQUIRE(heap.top_flow() == reference.begin()->second);
        }
    }
}
