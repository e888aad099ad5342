// outputs.queues end to end: queues.csv and ports.csv's mean_queue_bytes from a run whose
// queue is known in closed form, and each bad input refused with exit 2 at its place
// (docs/SCENARIO.md, "Queue time series"; docs/models/packet.md).
#include <catch2/catch.hpp>

#include "cli_harness.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

using namespace fabricsim::test;

namespace {

// Three plain hosts on one 100G RoCE switch, PFC alone (nothing marks or paces); hosts 0 and 1
// each send `packets` 4 KiB packets to host 2 at once. `queues` is the outputs.queues mapping.
std::string incast_scenario(const std::string& queues, int packets = 16, const std::string& model = "packet") {
    return "name: queue-series\n"
           "simulation: { model: " +
           model +
           " }\n"
           "cluster:\n"
           "  servers: 3\n"
           "  server: { preset: host-1nic, nic: { preset: connectx-7, line_rate: 100Gbps } }\n"
           "  fabric: { topology: single-switch, mtu: 4KiB, switch: { preset: spectrum-4, port_speed: 100Gbps, radix: "
           "32 } }\n"
           "  roce: { ecn: { enabled: false }, dcqcn: { enabled: false } }\n"
           "workload:\n"
           "  - transfer: { from: 0, to: 2, size: " +
           std::to_string(packets * 4096) +
           "B }\n"
           "  - transfer: { from: 1, to: 2, size: " +
           std::to_string(packets * 4096) +
           "B }\n"
           "outputs:\n"
           "  queues: " +
           queues + "\n";
}

// The switch's name, from `fabricsim topo` would do as well; the single switch is the only
// node that is neither a host (s<i>.cpu) nor a NIC (s<i>.nic0): found from ports.csv.
std::string switch_name(const std::string& ports_csv) {
    for (const auto& f : csv_rows(ports_csv))
        if (f[1].rfind("s", 0) != 0 || f[1].find('.') == std::string::npos) return f[1];
    return "";
}

}  // namespace

// Each sender's packets reach the switch one per τ = (4096 + 82) x 8 / 100 Gb/s; the port to
// host 2 sends one per τ, so after the k-th pair it holds k frames of 4096 + 62 bytes (the 82
// on the wire less 20 of preamble and gap, which no buffer holds): the deepest n x 4158, and
// the j-th packet served waits ceil(j/2) τ, an integral of 4158 τ n² byte-seconds
// (tests/packet/test_queue_series.cpp derives both).
TEST_CASE("run writes queues.csv for the named port and ports.csv's time-average queue", "[cli][queues]") {
    TempDir dir("queue-series");
    const auto file = dir.path() / "q.yaml";
    // First find the switch's name with a top-1 run, then name its port to host 2.
    write_file(file, incast_scenario("{ top: 1, interval: 1us }"));
    auto r = run_fabricsim("run " + file.string() + " --quiet --out " + (dir.path() / "top").string());
    REQUIRE(r.exit_code == 0);
    const std::string sw = switch_name(read_file(dir.path() / "top" / "ports.csv"));
    REQUIRE_FALSE(sw.empty());
    const std::string port = sw + "->s2.nic0";
    // top: 1 chose the incast's port.
    const auto top_rows = csv_rows(read_file(dir.path() / "top" / "queues.csv"));
    REQUIRE_FALSE(top_rows.empty());
    for (const auto& f : top_rows) CHECK(f[1] == port);

    write_file(file, incast_scenario("{ ports: [\"" + port + "\"], interval: 1us }"));
    r = run_fabricsim("run " + file.string() + " --quiet --out " + (dir.path() / "named").string());
    REQUIRE(r.exit_code == 0);
    const std::string csv = read_file(dir.path() / "named" / "queues.csv");
    CHECK(csv.rfind("variant,port,time_s,queue_bytes,paused,credit_stalled\n", 0) == 0);
    const std::int64_t n = 16, frame = 4096 + 62, wire = 4096 + 82;
    std::int64_t deepest = 0;
    const auto rows = csv_rows(csv);
    REQUIRE(rows.size() > 5);
    for (const auto& f : rows) {
        REQUIRE(f.size() == 6);
        CHECK(f[1] == port);
        const std::int64_t q = std::stoll(f[3]);
        CHECK(q % frame == 0);  // whole packets with their headers
        CHECK(f[4] == "0");     // far below XOFF
        CHECK(f[5] == "0");     // RoCE fabric ports have no credits
        deepest = std::max(deepest, q);
    }
    // Samples every 1 us, longer than τ = 334.24 ns: one may miss the deepest instant, but not
    // by more than the packets τ-spaced arrivals add in 1 us.
    CHECK(deepest <= n * frame);
    CHECK(deepest >= (n - 3) * frame);

    const std::string ports = read_file(dir.path() / "named" / "ports.csv");
    CHECK(ports.rfind("variant,from,to,priority,bytes,busy_s,utilisation,max_queue_bytes,pauses_received,paused_s,"
                      "ecn_marks,mean_queue_bytes\n",
                      0) == 0);
    // makespan: the last transfer's end (transfers.csv).
    double makespan = 0;
    for (const auto& f : csv_rows(read_file(dir.path() / "named" / "transfers.csv")))
        makespan = std::max(makespan, std::stod(f[6]));
    REQUIRE(makespan > 0);
    const double tau = static_cast<double>(wire) * 8 / 100e9;
    bool found = false;
    for (const auto& f : csv_rows(ports)) {
        REQUIRE(f.size() == 12);
        if (f[1] != sw || f[2] != "s2.nic0") continue;
        found = true;
        CHECK(std::stoll(f[7]) == n * frame);  // max_queue_bytes
        CHECK(std::stod(f[11]) == Approx(static_cast<double>(frame * n * n) * tau / makespan).epsilon(1e-4));
    }
    CHECK(found);
}

TEST_CASE("outputs.queues: an unknown node, unjoined nodes and a malformed port are exit 2 at the entry",
          "[cli][queues]") {
    TempDir dir("queue-series-bad");
    const auto file = dir.path() / "q.yaml";
    // outputs.queues is on line 12 of the scenario.
    write_file(file, incast_scenario("{ ports: [\"s0.nic0->s1.cpu\"], interval: 10us }"));
    auto r = run_fabricsim("validate " + file.string());
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(file.string() + ":12:") != std::string::npos);
    CHECK(r.output.find("outputs.queues.ports[0]: \"s0.nic0->s1.cpu\": no link joins s0.nic0 and s1.cpu; expected two "
                        "nodes joined by a link") != std::string::npos);

    write_file(file, incast_scenario("{ ports: [\"s0.nic0->s0.cpu\", \"leaf9->s0.nic0\"], interval: 10us }"));
    r = run_fabricsim("run " + file.string() + " --quiet --out " + (dir.path() / "out").string());
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("outputs.queues.ports[1]: \"leaf9->s0.nic0\": no node is named \"leaf9\"; expected "
                        "\"from->to\"") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir.path() / "out" / "result.json"));  // refused before running

    write_file(file, incast_scenario("{ ports: [\"s0.nic0-s0.cpu\"] }"));
    r = run_fabricsim("validate " + file.string());
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("outputs.queues.ports[0]: \"s0.nic0-s0.cpu\" is not a port; expected \"from->to\"") !=
          std::string::npos);
}

TEST_CASE("outputs.queues: interval <= 0, top <= 0, both or neither of ports and top, and the ideal model are exit 2",
          "[cli][queues]") {
    TempDir dir("queue-series-keys");
    const auto file = dir.path() / "q.yaml";
    const auto refused = [&](const std::string& queues, const std::string& text, const std::string& model = "packet") {
        write_file(file, incast_scenario(queues, 16, model));
        const auto r = run_fabricsim("validate " + file.string());
        CAPTURE(queues, r.output);
        CHECK(r.exit_code == 2);
        CHECK(r.output.find(file.string() + ":12:") != std::string::npos);
        CHECK(r.output.find(text) != std::string::npos);
    };
    refused("{ top: 4, interval: 0s }", "outputs.queues.interval: expected a time");
    refused("{ top: 4, interval: -1us }", "outputs.queues.interval: \"-1us\" is negative");
    refused("{ top: 0 }", "outputs.queues.top: expected an integer >= 1, found 0");
    refused("{ top: -2, interval: 10us }", "outputs.queues.top: expected an integer >= 1, found -2");
    refused("{ interval: 10us }", "outputs.queues: names no ports; expected `ports: [\"from->to\", ...]` or `top: N`");
    refused("{ top: 2, ports: [\"s0.nic0->s0.cpu\"] }", "outputs.queues: has both ports and top; expected one of them");
    refused("{ ports: [] }", "outputs.queues.ports: expected a list of one or more ports");
    refused("{ top: 2 }", "outputs.queues: the ideal model has no queues to sample; expected simulation.model: packet",
            "ideal");
}
