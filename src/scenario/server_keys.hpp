// cluster.server: the GPUs, NVLink/NVSwitch, the PCIe tree and the NICs (spec.hpp), one
// declaration per key, and the checks that need the whole server: an NVLink split that adds up
// to the links of a GPU, and a switchless NVLink bridge only between exactly two GPUs.
#pragma once

#include "scenario/key_table.hpp"
#include "scenario/spec.hpp"

namespace fabricsim::scenario {

const Table<ServerSpec>& server_table();

}  // namespace fabricsim::scenario
