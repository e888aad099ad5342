// What limits NVLS (NVLink SHARP) below the NVLink payload rate: the multimem path, as one
// efficiency per NVLink generation that both network models apply to the bytes an NVLS
// operation moves through a GPU's NVLink ports (docs/models/nvls.md).
//
// An NVLS all-reduce of S bytes moves S(1 + 1/n) through each GPU's ports each way: multimem
// ld_reduce pulls every GPU's part of the GPU's 1/n slice through the switch and returns it
// reduced, multimem st sends the result back to be multicast. Counted packet by packet as the
// ring is (128-B payloads, 16-B headers, a 16-B response per request, docs/models/links.md),
// that traffic costs 160 B of wire per 128 B both ways, the ring's 0.80: the packet format
// does not explain the loss. Measured, NVLS moves its bytes about 15 % slower than the ring:
//   - 8 × H100, nccl-tests all_reduce_perf: "peak busBw of ~480GB/s (algbw ~275GB/s)" with
//     NVLS against 370 GB/s with NCCL_ALGO=RING (NVIDIA, https://github.com/NVIDIA/nccl-tests/issues/212);
//     275 × (1 + 1/8) = 309 GB/s per GPU per direction, 0.84 of the ring's 370.
//   - the same from 5 to 8 GPUs (algbw 258, 265, 270, 273 GB/s, https://github.com/NVIDIA/nccl/issues/1455):
//     × (1 + 1/n) = 310, 309, 309, 307 GB/s. The rate per GPU port is constant as the group
//     grows, so the limit sits at each GPU's port (the multimem load/store path), not in
//     the switches' aggregate reduction throughput, which would bind harder with more GPUs.
//   - 8 × B300: NVLS busbw 845 against the ring's 695 GB/s (https://github.com/NVIDIA/nccl/issues/2140):
//     algbw 483 × (1 + 1/8) = 543 GB/s per GPU per direction, 0.78 of the ring's 695.
// NCCL's own cost model carries the same factor: nvlsEfficiency = 0.85 for Hopper and 0.74 for
// Blackwell, multiplying NVLink bandwidth for NVLS (NVIDIA/nccl src/tuning/nvls.cc,
// https://github.com/NVIDIA/nccl/blob/master/src/tuning/nvls.cc). We take NCCL's factors.
// The NVSwitch's reduction ALUs are not what binds: a float sum over 8 GPUs at 275 GB/s algbw
// is 7 × 275e9 / 4 = 481 GFLOP/s across the 4 NVSwitches, 120 each, under the 400 GFLOP/s FP32
// per switch quoted for third-generation NVSwitch (https://github.com/NVIDIA/nccl/issues/1455).
#pragma once

#include "core/units.hpp"

#include <cstdint>

namespace fabricsim::fabric {

// A fraction num/den, so that rates and byte counts scale in integers.
struct NvlsEfficiency {
    std::int64_t num = 1, den = 1;
};

// NCCL's nvlsEfficiency by NVLink generation (4: Hopper 0.85, 5: Blackwell 0.74); 1 for a
// generation without NVLS (the caller never offers NVLS there).
constexpr NvlsEfficiency nvls_efficiency(int nvlink_generation) {
    if (nvlink_generation == 4) return {17, 20};
    if (nvlink_generation >= 5) return {37, 50};
    return {1, 1};
}

// The rate NVLS moves payload through a port whose ring payload rate is `rate`. A 128-bit
// product: a test's "free" link is near the int64 limit, and rate × num would overflow there.
constexpr Bandwidth nvls_rate(Bandwidth rate, NvlsEfficiency e) {
    return Bandwidth::bps(static_cast<std::int64_t>(static_cast<__int128>(rate.bits_per_second()) * e.num / e.den));
}

// The wire bytes NVLS occupies a port with for `payload` bytes: payload / efficiency, rounded up.
constexpr Bytes nvls_wire_bytes(Bytes payload, NvlsEfficiency e) {
    return Bytes{(payload.count() * e.den + e.num - 1) / e.num};
}

}  // namespace fabricsim::fabric
