// iWARP through the command (docs/models/iwarp.md): an incast of 32 reports its drops,
// retransmissions and FCTs; an iWARP storage fabric (cluster.storage_fabric.technology:
// iwarp, "The storage fabric") carries TCP segments (mss - 20 bytes of data, 110 bytes of
// headers) in the packet and flow models, and the packet model, which runs it with the compute fabric's
// transport, runs iWARP there when the compute fabric is iWARP and refuses any other pairing.
#include <catch2/catch.hpp>

#include "cli_harness.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace fabricsim::test;

namespace {

// Two GPU-less hosts with one 100G storage NIC each on a storage fabric with one storage node,
// which sends 32 MiB to host 0 (a storage read). `compute` and `storage` are the two fabrics'
// extra keys.
std::string scenario(const std::string& model, const std::string& compute, const std::string& storage) {
    return "name: storage-iwarp\n"
           "simulation: { model: " +
           model +
           " }\n"
           "cluster:\n"
           "  servers: 2\n"
           "  server: { preset: host-1nic, storage_nics: 1, storage_nic: chelsio-t6 }\n"
           "  fabric: { " +
           compute +
           " }\n"
           "  storage_fabric: { storage_nodes: 1, storage_node_nic: chelsio-t6, " +
           storage +
           " }\n"
           "workload:\n"
           "  - traffic: storage\n"
           "    name: read\n"
           "    size: 32MiB\n"
           "    ranks: [0]\n";
}

// The storage read's FCT (transfers.csv) of a run of `text`.
double read_fct(const std::string& text, const std::string& name) {
    TempDir dir(name);
    const auto file = dir.path() / "s.yaml";
    write_file(file, text);
    const auto r = run_fabricsim("run " + file.string() + " --quiet --out " + (dir.path() / "out").string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const std::string csv = read_file(dir.path() / "out" / "transfers.csv");
    REQUIRE(csv.rfind("variant,name,from,to,bytes,start_s,end_s,fct_s,", 0) == 0);  // FCT: column 7
    const auto rows = csv_rows(csv);                                                // the rows below the header
    REQUIRE(rows.size() == 1);
    return std::stod(rows[0][7]);
}

// 32 MiB at 100G when every full packet of `payload` bytes carries `header` bytes beside it.
double line_time(double payload, double header) {
    return 32.0 * 1024 * 1024 * 8 / (100e9 * payload / (payload + header));
}

// 32 MiB read at iWARP's payload rate: no faster, and within 0.3 % of it.
void check_iwarp_rate(double fct) {
    const double iwarp = line_time(8928, 110);
    CHECK(fct >= iwarp);
    CHECK(fct <= iwarp * 1.003);
}

}  // namespace

TEST_CASE("packet model: an iWARP storage fabric beside an iWARP compute fabric carries TCP segments",
          "[cli][storage][iwarp]") {
    // Segments of 8948 - 20 = 8928 bytes of data with 110 of headers: 32 MiB takes 2.7175 ms at
    // 100G; RoCE's 4096 + 82 would take 2.7381 ms (0.76 % more). The idle path's latency and
    // TCP's first window (10 segments, longer than the round trip) add a few microseconds.
    const double fct = read_fct(scenario("packet", "technology: iwarp", "technology: iwarp"), "storage-iwarp-packet");
    check_iwarp_rate(fct);
    CHECK(fct < line_time(4096, 82));
}

TEST_CASE("flow model: an iWARP storage fabric's links have iWARP's efficiency beside a RoCE compute fabric",
          "[cli][storage][iwarp]") {
    // The fluid rate is the links' payload rate: 100G x 8928 / 9038 (RoCE's would be 4096 / 4178).
    check_iwarp_rate(read_fct(scenario("flow", "technology: roce", "technology: iwarp"), "storage-iwarp-flow"));
}

TEST_CASE("packet model: an iWARP storage fabric beside another compute fabric, or its MTU, is a located input error",
          "[cli][storage][iwarp]") {
    TempDir dir("storage-iwarp-bad");
    const auto check = [&](const std::string& text, const std::string& message) {
        const auto file = dir.path() / "s.yaml";
        write_file(file, text);
        const auto r = run_fabricsim("validate " + file.string());
        INFO(r.output);
        CHECK(r.exit_code == 2);
        CHECK(r.output.find(file.string() + ":7:") != std::string::npos);
        CHECK(r.output.find(message) != std::string::npos);
    };
    check(scenario("packet", "technology: roce", "technology: iwarp"),
          "cluster.storage_fabric.technology: \"iwarp\"; the packet model runs the storage fabric with the compute "
          "fabric's technology (roce)");
    check(scenario("packet", "technology: iwarp", "technology: roce"),
          "cluster.storage_fabric.technology: \"roce\"; the packet model runs the storage fabric with the compute "
          "fabric's technology (iwarp)");
    check(scenario("flow", "technology: roce", "technology: iwarp, mtu: 4KiB"),
          "cluster.storage_fabric.mtu: an iWARP fabric's packet is a TCP segment; expected no storage_fabric.mtu");
}

TEST_CASE("iwarp: an incast of 32 reports drops, retransmissions and every flow's FCT, and no lossless invariant fails",
          "[cli][iwarp]") {
    TempDir out("iwarp-incast");
    const auto r =
        run_fabricsim("run scenarios/incast-roce-vs-ib.yaml --variant iwarp --quiet --out " + out.path().string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);  // drops on a lossy fabric are no lossless drop
    const auto j = nlohmann::json::parse(read_file(out.path() / "result.json"));
    REQUIRE(j["variants"].size() == 1);
    const auto& v = j["variants"][0];
    CHECK(v["complete"] == true);
    const auto& f = v["fabric"];
    // 32 initial windows of 10 segments at 400G into one port: the receiver's egress queue
    // overflows its dynamic threshold, and every drop is sent again.
    CHECK(f["drops"].get<std::int64_t>() > 0);
    CHECK(f["lossless_drops"] == 0);
    CHECK(f["pfc_pauses_sent"] == 0);
    CHECK(f["retransmitted_packets"].get<std::int64_t>() >= f["drops"].get<std::int64_t>());
    REQUIRE(v["transfers"].size() == 32);
    // Each FCT at least the 32 x 4 MiB the receiver's 400G link must carry (8928 of 9038 bytes data).
    const double floor = 32.0 * 4 * 1024 * 1024 * 8 / (400e9 * 8928 / 9038);
    double last = 0;
    for (const auto& t : v["transfers"]) last = std::max(last, t["fct_s"].get<double>());
    CHECK(last >= floor);
}

TEST_CASE("iwarp-vs-roce: PFC pauses and slows the victim, iWARP drops instead and keeps the victim's pace",
          "[cli][iwarp]") {
    TempDir out("iwarp-vs-roce");
    const auto r = run_fabricsim("run scenarios/iwarp-vs-roce.yaml --quiet --out " + out.path().string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(read_file(out.path() / "result.json"));
    REQUIRE(j["variants"].size() == 3);
    const auto victim_slowdown = [](const nlohmann::json& v) {
        for (const auto& t : v["transfers"])
            if (t["to"] == 17) return t["slowdown"].get<double>();
        FAIL("no victim transfer");
        return 0.0;
    };
    const auto& roce = j["variants"][0];
    REQUIRE(roce["name"] == "roce-pfc");
    // RoCE: lossless; PFC pauses host 1's uplink, which the victim shares with an incast flow.
    CHECK(roce["fabric"]["drops"] == 0);
    CHECK(roce["fabric"]["pfc_pauses_sent"].get<std::int64_t>() > 0);
    for (std::size_t i = 1; i < 3; ++i) {
        const auto& v = j["variants"][i];
        INFO(v["name"].get<std::string>());
        CHECK(v["complete"] == true);
        CHECK(v["fabric"]["pfc_pauses_sent"] == 0);
        // Never paused and never dropped (its egress port is idle), the victim only shares host
        // 1's 100G uplink, with one incast flow at most: below 2x, and below RoCE's.
        CHECK(victim_slowdown(v) < 2.0);
        CHECK(victim_slowdown(v) < victim_slowdown(roce));
    }
    // NewReno overflows host 0's egress queue and drops; DCTCP's marks keep it below its share.
    CHECK(j["variants"][1]["fabric"]["drops"].get<std::int64_t>() > 0);
    CHECK(j["variants"][2]["fabric"]["drops"] == 0);
    CHECK(j["variants"][2]["fabric"]["ecn_marks"].get<std::int64_t>() > 0);
}
