// Link classes: line rates and efficiencies from packet and header sizes (docs/models/links.md).
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "fabric/link_classes.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::fabric;
using scenario::Technology;

TEST_CASE("NVLink4 carries 25 GB/s per link and direction at 128/(128+16+16) = 80 % efficiency", "[links]") {
    const LinkClass c = nvlink_class("nvlink4");
    CHECK(c.name == "nvlink4");
    CHECK(c.type == LinkType::nvlink);
    CHECK(c.bandwidth == 25_GBps);
    CHECK(c.efficiency == 0.8);
    // 18 links: 450 GB/s line rate per direction, 360 GB/s of payload.
    CHECK(18 * c.bandwidth.bytes_per_second() * c.efficiency == Approx(360e9));
}

TEST_CASE("NVLink3 runs 25 GB/s and NVLink5 50 GB/s per link and direction - a given rate wins", "[links]") {
    CHECK(nvlink_class("nvlink3").bandwidth == 25_GBps);
    CHECK(nvlink_class("nvlink5").bandwidth == 50_GBps);
    CHECK(nvlink_class("nvlink4", 20_GBps).bandwidth == 20_GBps);
    CHECK(nvlink_class("nvlink5").efficiency == nvlink_class("nvlink3").efficiency);
}

TEST_CASE("an unknown NVLink generation is a ConfigError naming the choices", "[links]") {
    try {
        (void)nvlink_class("nvlink9");
        FAIL("no error");
    } catch (const ConfigError& e) {
        CHECK(e.issues().at(0).key_path == "cluster.server.nvlink.generation");
        CHECK(e.issues().at(0).message ==
              "unknown NVLink generation \"nvlink9\"; expected nvlink3, nvlink4 or nvlink5");
    }
}

TEST_CASE("PCIe x16 line rates per direction: 15.75 31.5 and 63 GB/s after 128b/130b - 128 GB/s for Gen6", "[links]") {
    CHECK(pcie_line_rate(3, 16).bytes_per_second() == Approx(15.7538e9).epsilon(1e-4));
    CHECK(pcie_line_rate(4, 16).bytes_per_second() == Approx(31.5077e9).epsilon(1e-4));
    CHECK(pcie_line_rate(5, 16).bytes_per_second() == Approx(63.0154e9).epsilon(1e-4));
    CHECK(pcie_line_rate(6, 16) == 128_GBps);
    CHECK(pcie_line_rate(5, 16) == Bandwidth::bps(504'123'076'923));  // 32 GT/s x 16 x 128/130, rounded down
    CHECK(pcie_line_rate(5, 8) == Bandwidth::bps(252'061'538'461));
    CHECK(pcie_class(5, 16).name == "pcie-gen5-x16");
}

TEST_CASE("PCIe efficiency: 256-byte TLPs with 24 bytes of framing - header and LCRC - Gen6 flits 236 of 256",
          "[links]") {
    CHECK(pcie_efficiency(3) == Approx(256.0 / 280.0));
    CHECK(pcie_efficiency(5) == Approx(256.0 / 280.0));
    CHECK(pcie_efficiency(4, Bytes{128}) == Approx(128.0 / 152.0));
    CHECK(pcie_efficiency(6) == Approx(236.0 / 256.0 * 256.0 / 272.0));
    CHECK(pcie_class(6, 16).efficiency < pcie_class(5, 16).efficiency);
}

TEST_CASE("PCIe generations and widths outside 3..6 and 1..32 lanes are ConfigErrors", "[links]") {
    CHECK_THROWS_AS(pcie_class(2, 16), ConfigError);
    CHECK_THROWS_AS(pcie_class(5, 12), ConfigError);
}

TEST_CASE("RoCEv2 at a 4 KiB MTU pays 82 bytes per packet on the wire: 4096/4178", "[links]") {
    CHECK(roce_efficiency(4_KiB) == Approx(4096.0 / 4178.0));
    CHECK(roce_efficiency(Bytes{1024}) == Approx(1024.0 / 1106.0));
    const LinkClass c = fabric_class(Technology::roce, 400_Gbps, 4_KiB);
    CHECK(c.name == "roce-400G");
    CHECK(c.bandwidth == 400_Gbps);
    CHECK(c.type == LinkType::fabric);
}

TEST_CASE("InfiniBand at a 4 KiB MTU pays LRH+BTH+ICRC+VCRC = 26 bytes: 4096/4122", "[links]") {
    CHECK(infiniband_efficiency(4_KiB) == Approx(4096.0 / 4122.0));
    CHECK(infiniband_efficiency(4_KiB) > roce_efficiency(4_KiB));
    CHECK(fabric_class(Technology::infiniband, 400_Gbps, 4_KiB).name == "ib-ndr");
    CHECK(fabric_class(Technology::infiniband, 200_Gbps, 4_KiB).name == "ib-hdr");
    CHECK(fabric_class(Technology::infiniband, 100_Gbps, 4_KiB).name == "ib-edr");
    CHECK(fabric_class(Technology::infiniband, 800_Gbps, 4_KiB, LinkType::storage_fabric).type ==
          LinkType::storage_fabric);
}

TEST_CASE("passive copper reaches 5 m at 100G and 3 m at 200G and 400G but 1 m with 200G lanes", "[links][cables]") {
    CHECK(passive_copper_reach(Technology::roce, 100_Gbps) == 5_m);
    CHECK(passive_copper_reach(Technology::roce, 200_Gbps) == 3_m);
    CHECK(passive_copper_reach(Technology::roce, 400_Gbps) == 3_m);
    CHECK(passive_copper_reach(Technology::roce, 800_Gbps) == 3_m);        // 8 x 100G lanes
    CHECK(passive_copper_reach(Technology::infiniband, 800_Gbps) == 1_m);  // XDR: 4 x 200G lanes
    CHECK(cable_medium(Technology::roce, 400_Gbps, 3_m) == Medium::copper);
    CHECK(cable_medium(Technology::roce, 400_Gbps, Length::mm(3001)) == Medium::optical);
    CHECK(cable_medium(Technology::infiniband, 100_Gbps, 5_m) == Medium::copper);
    CHECK(cable_medium(Technology::infiniband, 100_Gbps, 6_m) == Medium::optical);
}

TEST_CASE("PCIe switches forward in 150 ns (Gen3) and 105 ns (Gen4 and later)", "[links]") {
    CHECK(pcie_switch_latency(3) == 150_ns);
    CHECK(pcie_switch_latency(4) == 105_ns);
    CHECK(pcie_switch_latency(5) == 105_ns);
}
