// Scenarios built around a few lines under `cluster:` for the section tests
// (test_roce_keys.cpp, test_infiniband_spec.cpp): two single-NIC hosts and one transfer, the
// given lines starting at line 4 of "<name>.yaml", loaded with or without the shipped presets.
#pragma once

#include "core/errors.hpp"
#include "scenario/loader.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace cluster_text {

inline fabricsim::scenario::LoadOptions shipped_presets() {
    fabricsim::scenario::LoadOptions o;
    o.config_dirs = {std::filesystem::path(FABRICSIM_SOURCE_DIR) / "configs"};
    return o;
}

struct ClusterText {
    std::string name;  // the scenario's name; its file is name + ".yaml"

    // `cluster`: lines indented by two spaces, each ending in '\n'.
    std::string scenario(const std::string& cluster) const {
        return "name: " + name + "\ncluster:\n  servers: 2\n" + cluster +
               "workload: [{ transfer: { from: 0, to: 1, size: 1B } }]\n";
    }
    fabricsim::scenario::ClusterSpec cluster(const std::string& cluster) const {
        const auto loaded = fabricsim::scenario::load_scenario_text(scenario(cluster), name + ".yaml", {});
        REQUIRE(loaded.variants.size() == 1);
        return loaded.variants.front().spec.cluster;
    }
    // Each problem the loader reports, as printed; empty when it loads.
    std::vector<std::string> issues(const std::string& cluster) const {
        try {
            fabricsim::scenario::load_scenario_text(scenario(cluster), name + ".yaml", {});
        } catch (const fabricsim::ConfigError& e) {
            std::vector<std::string> out;
            for (const auto& i : e.issues()) out.push_back(i.str());
            return out;
        }
        return {};
    }
};

}  // namespace cluster_text
