#include <catch2/catch.hpp>

#include "core/metrics.hpp"

using namespace fabricsim;

TEST_CASE("histogram percentiles are exact below 128 and within 1.6% above", "[metrics]") {
    Histogram h;
    for (int v = 1; v <= 100; ++v) h.record(v);
    CHECK(h.count() == 100);
    CHECK(h.min() == 1);
    CHECK(h.max() == 100);
    CHECK(h.mean() == Approx(50.5));
    CHECK(h.percentile(0.5) == 50);
    CHECK(h.percentile(0.99) == 99);
    CHECK(h.percentile(1.0) == 100);
    CHECK(h.percentile(0.0) == 1);

    Histogram big;
    for (std::int64_t v = 1; v <= 100'000; ++v) big.record(v * 1000);
    // Nearest rank p50 is 50'000'000, p99 is 99'000'000.
    CHECK(static_cast<double>(big.percentile(0.5)) == Approx(50'000'000).epsilon(0.016));
    CHECK(static_cast<double>(big.percentile(0.99)) == Approx(99'000'000).epsilon(0.016));
    CHECK(big.percentile(1.0) == 100'000'000);  // clamped to the exact max
}

TEST_CASE("an empty histogram reports zeros, and negative values are a bug", "[metrics]") {
    Histogram h;
    CHECK(h.percentile(0.5) == 0);
    CHECK(h.count() == 0);
    CHECK_THROWS(h.record(-1));
}

TEST_CASE("time series keep the last value per interval", "[metrics]") {
    TimeSeries s(Time::us(1));
    s.record(Time::ns(100), 1.0);
    s.record(Time::ns(900), 2.0);   // same microsecond: replaces
    s.record(Time::ns(1100), 3.0);  // next microsecond: appends
    REQUIRE(s.points().size() == 2);
    CHECK(s.points()[0].value == 2.0);
    CHECK(s.points()[0].time == Time::ns(900));
    CHECK(s.points()[1].value == 3.0);
}

TEST_CASE("the registry returns the same metric for the same name", "[metrics]") {
    MetricsRegistry m;
    m.counter("pauses").add(2);
    m.counter("pauses").add(3);
    CHECK(m.counter("pauses").value() == 5);
    Counter& c = m.counter("pauses");
    m.counter("other");  // adding names does not move existing metrics
    CHECK(&c == &m.counter("pauses"));
    CHECK(m.counters().size() == 2);
}
