// The bill of materials of one built cluster, for `fabricsim plan` (docs/PLANNING.md): what a
// buyer orders, counted from the Topology the models run on, so the plan and the simulation
// cannot disagree about the fabric.
//
//   servers, GPUs, NICs    from the topology's servers (compute and storage NICs apart)
//   switches               per fabric (compute, storage), tier and plane, with the ports each
//                          group uses and leaves spare at the fabric's link rate
//   cables                 per fabric link: tier, medium (passive copper or optical, as the
//                          builder chose from the passive-copper reach) and length class
//                          (copper: its length; optical: the reach of the optics it needs)
//   transceivers           two per optical cable, one at each end, by speed and reach class
//
// Reach classes of 100G-PAM4 optics (NVIDIA, "Transceivers and fiber details, 100G-PAM4",
// docs.nvidia.com/networking/display/400g100gpam4ovpub): SR multimode up to 50 m, DR
// single-mode up to 500 m, FR up to 2 km; LR beyond that.
#pragma once

#include "core/units.hpp"
#include "fabric/topology.hpp"
#include "scenario/spec.hpp"

#include <string>
#include <vector>

namespace fabricsim::report {

struct SwitchGroup {
    std::string fabric;  // "compute", "storage"
    std::string tier;    // "leaf", "spine", "core"
    int plane = 0;
    std::string preset;  // the switch preset ("" inline)
    int switches = 0;
    int ports = 0;  // ports of all switches of the group at the link rate
    int ports_used = 0;
    int ports_spare() const { return ports - ports_used; }
};

struct CableGroup {
    std::string tier;          // "nic-leaf", "leaf-spine", "spine-core", "storage-nic-leaf", ...
    std::string medium;        // "copper", "optical"
    std::string length_class;  // copper "3m"; optical "SR" | "DR" | "FR" | "LR"
    Bandwidth speed;
    Length longest;  // the longest cable of the group
    int count = 0;
};

struct TransceiverGroup {
    std::string tier;
    std::string reach;  // "SR", "DR", "FR", "LR"
    Bandwidth speed;
    int count = 0;
};

struct BillOfMaterials {
    int servers = 0, gpus = 0;
    std::string server_preset, gpu_model;
    int nics = 0, storage_nics = 0;  // in the servers
    std::string nic_preset, storage_nic_preset;
    int storage_nodes = 0, clients = 0;  // hosts on the fabrics besides the servers (not priced)
    int nvswitches = 0;                  // inside the servers (part of the server)
    std::vector<SwitchGroup> switches;
    std::vector<CableGroup> cables;
    std::vector<TransceiverGroup> transceivers;
    int switch_count() const;
    int cable_count() const;
    int transceiver_count() const;
};

// The reach class of optics for a cable of `length`.
std::string reach_class(Length length);

// `cluster` must be the spec `topology` was built from. Switch ports are counted at the link
// rate of their fabric (a 800G port split into two 400G ports counts two), as the fabric plan
// sized them (fabric_plan.hpp).
BillOfMaterials bill_of_materials(const fabric::Topology& topology, const scenario::ClusterSpec& cluster);

}  // namespace fabricsim::report
