// cluster.server.gpudirect and cluster.server.host: which GPUDirect paths a server has, and the
// host side (sockets, their interconnect, memory-copy bandwidth, NCCL's staging) that carries
// the data where one is off (docs/models/gpudirect.md). Two key tables inside the server
// section, whose own table is in server_keys.cpp.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/key_table.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

namespace fabricsim::scenario {

const Table<GpuDirectSpec>& gpudirect_table();
const Table<HostSpec>& host_table();

}  // namespace fabricsim::scenario
