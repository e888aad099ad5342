// cluster.server.gpudirect and cluster.server.host: which GPUDirect paths a server has, and the
// host side (sockets, their interconnect, memory-copy bandwidth, NCCL's staging) that carries
// the data where one is off (docs/models/gpudirect.md). Two key tables inside the server
// section, whose own table is in server_keys.cpp.
#include "scenario/validate.hpp"

#include "scenario/key_types.hpp"

namespace fabricsim::scenario {

const Table<GpuDirectSpec>& gpudirect_table() {
    using G = GpuDirectSpec;
    static const Table<G> t{
        "cluster.server.gpudirect",
        {
            key("rdma", &G::rdma, boolean(), kAllModels,
                "GPUDirect RDMA: the NIC reads and writes GPU memory. `false`: a message between a GPU and a NIC is "
                "staged in host memory in chunks (GPU → root port → DRAM → root port → NIC), as NCCL's proxy does "
                "without GDR ([models/gpudirect.md](models/gpudirect.md))."),
            key("p2p", &G::p2p, boolean(), kAllModels,
                "GPUDirect P2P: GPUs of a server read and write each other's memory (PCIe switch, root complex or "
                "NVLink). `false`: GPU-to-GPU messages go through host memory, as NCCL's SHM transport."),
            key("storage", &G::storage, boolean(), kAllModels,
                "GPUDirect Storage: storage reads land in GPU memory. `false`: they land in host memory and are "
                "copied to the GPU (checkpoint writes the other way)."),
            key("pxn", &G::pxn, boolean(), kAllModels,
                "NCCL PXN: a message to a GPU on another rail leaves by this server's NIC of that rail, reached over "
                "NVLink through the GPU it serves, so a rail-optimised fabric keeps it on one rail. Only between "
                "NVLink-joined GPUs with GPUDirect RDMA (`NCCL_PXN_DISABLE=1` is `false`)."),
        }};
    return t;
}

const Table<HostSpec>& host_table() {
    using H = HostSpec;
    static const Table<H> t{
        "cluster.server.host",
        {
            key("sockets", &H::sockets, integer(1, 2), kAllModels,
                "CPU sockets. The PCIe switches (or, without switches, the devices on root ports) are spread "
                "evenly over them; with 2, paths between devices under different sockets cross `socket_link`."),
            key("socket_link", &H::socket_link, rate(), kAllModels,
                "Bandwidth per direction of the interconnect between the two sockets (Intel UPI, AMD Infinity "
                "Fabric)."),
            key("memory_copy", &H::memory_copy, rate(), kAllModels,
                "Per socket: the rate at which host memory takes a staged byte in and gives it out again (DRAM "
                "bandwidth available to the bounce buffers when a GPUDirect path is off)."),
            key("staging_latency", &H::staging_latency, delay(Zero::allowed), kAllModels,
                "Time a staged chunk waits in host memory before the next device takes it (NCCL's proxy thread "
                "noticing the chunk and posting the next transfer), once per side that stages."),
            key("staging_chunk", &H::staging_chunk, size(Zero::rejected), kAllModels,
                "Size of the chunks a staged message moves in, so the copy overlaps the send: NCCL's "
                "`NCCL_BUFFSIZE` (4 MiB) ÷ `NCCL_STEPS` (8)."),
        }};
    return t;
}

}  // namespace fabricsim::scenario
