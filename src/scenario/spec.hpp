// ScenarioSpec: the plain structs a scenario file becomes. Every default lives here, in the
// member initialisers, and `fabricsim validate --print` shows them.
//
// Only keys whose models exist are part of the schema (DESIGN §5): the topology, packet,
// flow and workloads issues add their sections here and in the loader, nowhere else.
#pragma once

#include "core/errors.hpp"
#include "core/ids.hpp"
#include "core/units.hpp"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace fabricsim::scenario {

enum class NetworkModel { ideal };

// simulation.ideal: the analytical network. Each message takes latency + size / bandwidth of
// the slower endpoint NIC, with no contention (DESIGN §1).
struct IdealNetworkSpec {
    Time latency = Time::us(2);  // NIC-to-NIC one-way latency of a small RDMA write across a
                          // two-tier fabric, order of magnitude (docs/models/ideal.md)
    bool operator==(const IdealNetworkSpec&) const = default;
};

struct SimulationSpec {
    NetworkModel model = NetworkModel::ideal;
    Time stop_time = Time::max();  // "none" in YAML: run until idle
    IdealNetworkSpec ideal;
    bool operator==(const SimulationSpec&) const = default;
};

// A server as the foundation knows it: how many ranks it holds and its NICs. The topology
// issue adds NVLink, PCIe and NIC presets.
struct ServerSpec {
    std::string preset;            // name of the preset it came from, "" if inline
    int gpus = 0;                  // 0: a plain host, which is one rank
    int nics = 1;
    Bandwidth nic_speed = Bandwidth::Gbps(400);
    int ranks() const { return gpus == 0 ? 1 : gpus; }
    bool operator==(const ServerSpec&) const = default;
};

struct ClusterSpec {
    int servers = 1;
    ServerSpec server;
    int ranks() const { return servers * server.ranks(); }
    bool operator==(const ClusterSpec&) const = default;
};

// - transfer: { from: 0, to: 1, size: 1GiB, start: 0s }
struct TransferSpec {
    RankId from;
    RankId to;
    Bytes size;
    Time start = Time::zero();
    bool operator==(const TransferSpec&) const = default;
};

struct WorkloadEntry {
    std::string name;              // given or generated: "<kind><index>", e.g. "transfer0"
    std::string after;             // "" when the entry starts at once
    SourceLocation location;       // of the entry in the file, for errors found later
    std::variant<TransferSpec> kind;
    // Equal scenarios, wherever they were written: the location is not compared.
    bool operator==(const WorkloadEntry& o) const {
        return name == o.name && after == o.after && kind == o.kind;
    }
};

enum class OutputFormat { json, csv };

struct OutputsSpec {
    std::string dir;               // "" means results/<name>
    std::vector<OutputFormat> formats{OutputFormat::json, OutputFormat::csv};
    bool operator==(const OutputsSpec&) const = default;
};

struct ScenarioSpec {
    std::string name;
    std::string description;
    std::uint64_t seed = 1;
    SimulationSpec simulation;
    ClusterSpec cluster;
    std::vector<WorkloadEntry> workload;
    OutputsSpec outputs;
    bool operator==(const ScenarioSpec&) const = default;
};

}  // namespace fabricsim::scenario
