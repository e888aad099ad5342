// Every scenario shipped in scenarios/ runs, in-process, and obeys the invariants every run
// must: all ops finish, bytes are conserved, no transfer beats the idle network, no lossless
// drop.
#include <catch2/catch.hpp>

#include "cli/commands.hpp"
#include "cli/run_variant.hpp"
#include "cli_harness.hpp"
#include "scenario/loader.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

using namespace fabricsim;

TEST_CASE("every shipped scenario runs and keeps the run invariants", "[scenarios]") {
    const std::filesystem::path dir = std::filesystem::path(FABRICSIM_SOURCE_DIR) / "scenarios";
    scenario::LoadOptions options;
    for (const auto& d : cli::config_dirs()) options.config_dirs.emplace_back(d);
    int scenarios = 0;
    for (const auto& file : std::filesystem::directory_iterator(dir)) {
        if (file.path().extension() != ".yaml") continue;
        ++scenarios;
        const auto loaded = scenario::load_scenario(file.path(), options);
        for (const auto& variant : loaded.variants) {
            INFO(file.path().filename().string() << " variant " << variant.name);
            const auto result = cli::run_variant(variant);
            for (const auto& problem : result.problems) FAIL_CHECK(problem);
            CHECK(result.complete());
            CHECK(result.unfinished_ops == 0);
            CHECK(result.fabric.lossless_drops == 0);
            std::int64_t asked = 0, delivered = 0;
            for (const auto& entry : variant.spec.workload)
                if (const auto* t = std::get_if<scenario::TransferSpec>(&entry.kind)) asked += t->size.count();
            std::set<std::string> transfer_entries;  // traffic entries' flows are transfers too
            for (const auto& entry : variant.spec.workload)
                if (std::holds_alternative<scenario::TransferSpec>(entry.kind)) transfer_entries.insert(entry.name);
            for (const auto& t : result.transfers) {
                CHECK(t.finished());
                if (!t.finished()) continue;
                if (transfer_entries.count(t.name) == 1) delivered += t.bytes.count();
                CHECK(t.fct() >= t.unloaded);
            }
            CHECK(delivered == asked);
        }
    }
    CHECK(scenarios >= 1);
}

TEST_CASE("faults-leaf-spine.yaml: each fault's damage in result.json, and the slowdown against --baseline",
          "[scenarios][faults]") {
    test::TempDir out("faults");
    const auto r = test::run_fabricsim("run scenarios/faults-leaf-spine.yaml --baseline --out " + out.path().string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("faults in variant uplink-down:") != std::string::npos);
    const auto j = nlohmann::json::parse(test::read_file(out.path() / "result.json"));
    REQUIRE(j["variants"].size() == 3);
    const auto& down = j["variants"][0];
    REQUIRE(down["faults"].size() == 1);
    const auto& f = down["faults"][0];
    CHECK(f["kind"] == "link_down");
    CHECK(f["target"] == "leaf0 - spine0");
    CHECK(f["at_s"].get<double>() == Approx(200e-6));
    CHECK(f["time_to_reconverge_s"].get<double>() == Approx(20e-6));  // the scenario's reconverge
    CHECK(f["packets_lost"].get<std::int64_t>() > 0);                 // the link carried traffic when it failed
    CHECK(down["fabric"]["retransmitted_packets"].get<std::int64_t>() > 0);
    CHECK(down["fabric"]["lossless_drops"] == 0);
    // From 200 us on, leaf0 has half its uplinks: the all-reduce's cross-leaf rounds take
    // twice as long, so it must be slower than without the fault (the bound is loose: the
    // failure comes after the first 200 us).
    const auto& rows = down["baseline"];
    REQUIRE(rows.size() == 2);
    CHECK(rows[0]["what"] == "collective ar 16MiB");
    CHECK(rows[0]["slowdown"].get<double>() > 1.2);
    CHECK(rows[1]["what"] == "makespan");
    const auto& flap = j["variants"][1];
    CHECK(flap["faults"][0]["times_down"] == 5);  // flaps at 50, 250, 450, 650, 850 us (±10 us)
    const auto& storm = j["variants"][2];
    CHECK(storm["fabric"]["pfc_watchdog_triggers"].get<std::int64_t>() > 0);
    CHECK(storm["fabric"]["lossless_drops"] == 0);
    CHECK(storm["unfinished_ops"] == 0);
}

TEST_CASE("custom-400g-uplink.yaml: the 8-to-1 incast shares host 9's 100G port, and the victim beside it, by hand",
          "[scenarios][custom]") {
    scenario::LoadOptions options;
    for (const auto& d : cli::config_dirs()) options.config_dirs.emplace_back(d);
    const auto loaded = scenario::load_scenario(
        std::filesystem::path(FABRICSIM_SOURCE_DIR) / "scenarios/custom-400g-uplink.yaml", options);
    REQUIRE(loaded.variants.size() == 3);
    const auto fct = [](const report::VariantResult& r, const std::string& name) {
        std::vector<double> out;
        for (const auto& t : r.transfers)
            if (t.name == name) out.push_back(t.fct().seconds());
        return out;
    };
    const auto port = [](const report::VariantResult& r, const std::string& from, const std::string& to) {
        for (const auto& p : r.ports)
            if (p.from == from && p.to == to) return p;
        FAIL("no port " << from << " -> " << to);
        return PortReport{};
    };
    // Payload efficiency at the 4 KiB MTU: RoCEv2 4096 / (4096 + 82), InfiniBand 4096 / (4096 + 26).
    const double roce_e = 4096.0 / 4178.0, ib_e = 4096.0 / 4122.0;
    const double mib_bits = 8.0 * 1024 * 1024;
    const double link = 100e9;
    // The incast: 8 flows of 4 MiB through host 9's one 100G port, 12.5 Gb/s of wire each:
    // all done after 32 MiB / (100G x e).
    const auto incast_time = [&](double e) { return 32 * mib_bits / (link * e); };
    // The victim alone: 16 MiB at its 100G line rate (the 400G link has room for it and the
    // incast's 100G).
    const auto victim_alone = [&](double e) { return 16 * mib_bits / (link * e); };

    const auto roce = cli::run_variant(loaded.variants[0]);
    const auto ib = cli::run_variant(loaded.variants[1]);
    const auto roce_ecn = cli::run_variant(loaded.variants[2]);
    for (const auto* r : {&roce, &ib, &roce_ecn}) {
        REQUIRE(r->complete());
        CHECK(r->fabric.lossless_drops == 0);
    }

    {
        INFO("InfiniBand: the incast at the receiver's line rate; the victim stuck behind it on the 400G link");
        // Each incast flow gets 1/8 of the port: every one finishes at 32 MiB / (100G x e).
        const auto incast = fct(ib, "incast-8-to-1");
        REQUIRE(incast.size() == 8);
        for (double t : incast) CHECK(t == Approx(incast_time(ib_e)).epsilon(0.01));
        // Credits for the sw0 -> sw1 link come back only as fast as sw1's input buffer drains,
        // which the incast holds at 100G; sw0 serves its 9 inputs in turn, so while the incast
        // lasts the victim gets one share in 9, as much as each incast flow (12.5 Gb/s of
        // wire): 4 MiB by the time the incast ends, then its last 12 MiB at 100G.
        // Together: (32 + 12) MiB / (100G x e) = 3.71 ms, against 1.35 ms alone.
        const auto victim = fct(ib, "victim");
        REQUIRE(victim.size() == 1);
        CHECK(victim[0] == Approx(44 * mib_bits / (link * ib_e)).epsilon(0.02));
        CHECK(ib.fabric.credit_stall_time > Time::zero());
    }

    {
        INFO("RoCE: no pause, the victim at most 1.5x slower than alone; the incast slowed by DCQCN");
        // XOFF is 1/8 of Spectrum-4's 160 MB of free buffer, 20 MB: no queue gets near it.
        CHECK(roce.fabric.pfc_pauses_sent == 0);
        CHECK(roce.fabric.max_queue < Bytes{20'000'000});
        const auto incast = fct(roce, "incast-8-to-1");
        REQUIRE(incast.size() == 8);
        const double last = *std::max_element(incast.begin(), incast.end());
        CHECK(last >= incast_time(roce_e));       // the receiver's port is the bound
        CHECK(last < 1.5 * incast_time(roce_e));  // DCQCN keeps it busy two thirds of the time or more
        // Without pauses nothing holds the victim behind the incast: it finishes far sooner than
        // on InfiniBand, though ECN marks at the shared 400G queue (and, after it, the bursts the
        // 400G link delivers into its 100G port) slow it below its line rate.
        const auto victim = fct(roce, "victim");
        REQUIRE(victim.size() == 1);
        CHECK(victim[0] >= victim_alone(roce_e));
        CHECK(victim[0] < 1.5 * victim_alone(roce_e));
        CHECK(victim[0] < fct(ib, "victim")[0]);
    }

    {
        INFO("ecn.port_classes: the 400G uplink marks from its class's kmin, not from the auto 1600 KB");
        // Default: auto kmin at 400G is 100 KB x 16 = 1600 KB; the uplink's queue passes it, and marks.
        const PortReport up = port(roce, "sw0", "sw1");
        CHECK(up.max_queue > Bytes{1'600'000});
        CHECK(up.ecn_marks > 0);
        // Class 400G: kmin 8 MB, above anything that queue reaches: no mark there at all.
        const PortReport up_class = port(roce_ecn, "sw0", "sw1");
        CHECK(up_class.max_queue < Bytes{8'000'000});
        CHECK(up_class.ecn_marks == 0);
    }
}

TEST_CASE("gpudirect-on-off.yaml: staging slows the PCIe servers' collectives, PXN speeds the HGX all-to-all",
          "[scenarios][gpudirect]") {
    scenario::LoadOptions options;
    for (const auto& d : cli::config_dirs()) options.config_dirs.emplace_back(d);
    const auto loaded = scenario::load_scenario(
        std::filesystem::path(FABRICSIM_SOURCE_DIR) / "scenarios/gpudirect-on-off.yaml", options);
    REQUIRE(loaded.variants.size() == 4);
    std::vector<report::VariantResult> runs;
    for (const auto& v : loaded.variants) runs.push_back(cli::run_variant(v));
    const auto seconds = [&](std::size_t variant, std::size_t entry) {
        REQUIRE(runs[variant].collectives.size() == 2);
        return runs[variant].collectives[entry].time.seconds();
    };
    // GDR off, a GPU's send and its NIC's receive both cross the PCIe switch's uplink to the CPU
    // in each direction: upwards 2 writes and 2 reads' requests, 2.28 PCIe bytes per byte, so the
    // Gen4 x16 uplink's 31.5 GB/s carries at most 13.8 GB/s of the switch NIC's 25 GB/s: the
    // cross-server part can no longer run at the NIC's rate, so both collectives take longer.
    CHECK(seconds(1, 0) > seconds(0, 0));
    CHECK(seconds(1, 1) > seconds(0, 1));
    // PXN keeps the all-to-all's cross-rail messages on their rail's leaf, off the 4:1 spines.
    CHECK(seconds(2, 1) < seconds(3, 1));
    // The ring all-reduce does not use it: a rail-aligned ring enters and leaves each server by
    // its own rail's NIC, so PXN on or off it runs the same messages on the same paths.
    CHECK(seconds(2, 0) == seconds(3, 0));
}
