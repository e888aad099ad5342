// ECMP hashing: which of n equal-cost ports a flow (or, for spraying, a packet) takes.
//
// A switch hashes the flow's header fields with a seed of its own and takes the hash modulo
// the number of candidates. The mixer is the 64-bit finaliser of MurmurHash3 (Appleby,
// "fmix64"), whose every input bit flips every output bit with probability ~1/2, so the
// residues modulo small n are uniform. Each switch's seed is itself a hash of (routing seed,
// node id): with one seed everywhere, a flow that left a leaf on port i (h mod n == i) would
// find the same residue at the spine and every spine would use one uplink per ingress leaf
// ("hash polarisation"; see e.g. Cisco, "Hash polarization in ECMP", and Zhang et al.,
// "Hashing Linearity Enables Relative Path Control in Data Centers", ATC'21).
//
// Pure integer arithmetic, so the same seed gives the same choices on any machine (docs/ARCHITECTURE.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace fabricsim::fabric::ecmp {

constexpr std::uint64_t fmix64(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

inline constexpr std::uint64_t golden = 0x9e3779b97f4a7c15ULL;  // 2^64 / phi, odd

// The seed of one switch (or endpoint) under a routing seed: decorrelated across nodes.
constexpr std::uint64_t node_seed(std::uint64_t routing_seed, std::uint32_t node) {
    return fmix64(fmix64(routing_seed ^ 0x5ec0ded5eedULL) ^ (static_cast<std::uint64_t>(node) + 1) * golden);
}

// The hash of a flow's header fields at one node. RoCEv2: the 5-tuple reduces to the two
// endpoints and the QP's UDP source port; InfiniBand LMC: callers pass src = 0 (the path is a
// function of the destination LID only).
constexpr std::uint64_t flow_hash(std::uint64_t seed, std::uint32_t src, std::uint32_t dst, std::uint32_t qp) {
    std::uint64_t h = fmix64(seed ^ ((static_cast<std::uint64_t>(src) << 32) | dst));
    h ^= (static_cast<std::uint64_t>(qp) + 1) * golden;
    return fmix64(h);
}

// Per-packet spraying: the flow hash perturbed by the packet's sequence number.
constexpr std::uint64_t packet_hash(std::uint64_t flow_hash_value, std::uint64_t packet_seq) {
    return fmix64(flow_hash_value ^ fmix64(packet_seq * golden + 0x7f4a7c15ULL));
}

// One of n candidates (n > 0). The bias of h mod n is below n / 2^64.
constexpr std::uint32_t pick(std::uint64_t hash, std::size_t n) { return static_cast<std::uint32_t>(hash % n); }

}  // namespace fabricsim::fabric::ecmp
