// The DCQCN fluid model's step on a CUDA device: the rules of dcqcn_fluid_rules.hpp, one
// thread per link (gather its arrivals, queue, marking, back-pressure), then one thread per
// flow (path marking, delayed feedback, DCQCN's equations, what it sends). The arrays stay on
// the device between run() calls; nothing crosses to the host per step. The links gather in
// the same order as the CPU loop; only the compiler's contraction of multiply-adds may round
// differently (tests/cuda: agreement to 1e-6 relative).
#include "core/errors.hpp"
#include "flow/cuda_device.hpp"
#include "flow/cuda_launch.cuh"
#include "flow/dcqcn_fluid_device.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

namespace fabricsim::flow {

namespace {

__global__ void link_step(FluidArrays a, double h) {
    for (std::size_t l = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; l < a.links;
         l += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        fluid_link_step(a, l, h);
}

__global__ void flow_step(FluidParams p, FluidArrays a, std::uint64_t step, double h) {
    for (std::size_t f = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; f < a.flows;
         f += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        fluid_flow_step(p, a, f, step, h);
}

// One device copy of a host array, freed with the device model.
struct Buffers {
    std::vector<void*> owned;
    template <class T>
    T* copy(const T* host, std::size_t n) {
        void* p = nullptr;
        cuda_check(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T)), "cudaMalloc");
        owned.push_back(p);
        if (n > 0) cuda_check(cudaMemcpy(p, host, n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy to device");
        return static_cast<T*>(p);
    }
    ~Buffers() {
        for (void* p : owned) cudaFree(p);
    }
};

template <class T>
void fetch(T* host, const T* device, std::size_t n) {
    if (n > 0) cuda_check(cudaMemcpy(host, device, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
}

class CudaFluid final : public FluidDevice {
public:
    void upload(const FluidArrays& h, const FluidParams& params, double step_seconds, std::uint64_t step) override {
        buffers_ = std::make_unique<Buffers>();
        Buffers& b = *buffers_;
        const std::size_t L = h.links, F = h.flows, U = h.first[F], H = F * h.depth;
        FluidArrays d = h;
        d.capacity = b.copy(h.capacity, L);
        d.kmin = b.copy(h.kmin, L);
        d.kmax = b.copy(h.kmax, L);
        d.pmax = b.copy(h.pmax, L);
        d.qmax = b.copy(h.qmax, L);
        d.link_first = b.copy(h.link_first, L + 1);
        d.use_of = b.copy(h.use_of, U);
        d.flow_of = b.copy(h.flow_of, U);
        d.first = b.copy(h.first, F + 1);
        d.link_of = b.copy(h.link_of, U);
        d.share = b.copy(h.share, U);
        d.line = b.copy(h.line, F);
        d.delay = b.copy(h.delay, F);
        d.queue = b.copy(h.queue, L);
        d.mark = b.copy(h.mark, L);
        d.throttle = b.copy(h.throttle, L);
        d.arrival = b.copy(h.arrival, L);
        d.rc = b.copy(h.rc, F);
        d.rt = b.copy(h.rt, F);
        d.alpha = b.copy(h.alpha, F);
        d.send = b.copy(h.send, F);
        d.left = b.copy(h.left, F);
        d.finished = b.copy(h.finished, F);
        d.hist_p = b.copy(h.hist_p, H);
        d.hist_rc = b.copy(h.hist_rc, H);
        device_ = d;
        params_ = params;
        h_ = step_seconds;
        step_ = step;
        ran_ = 0;
    }

    void run(std::uint64_t n) override {
        if (!buffers_) throw InternalError("CUDA fluid model: run() before upload()");
        for (std::uint64_t i = 0; i < n; ++i) {
            link_step<<<cuda_blocks(device_.links), kCudaThreads>>>(device_, h_);
            flow_step<<<cuda_blocks(device_.flows), kCudaThreads>>>(params_, device_, step_ + ran_, h_);
            ++ran_;
        }
        cuda_check(cudaGetLastError(), "kernel launch");
        cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }

    std::uint64_t download(const FluidArrays& h) override {
        if (!buffers_) throw InternalError("CUDA fluid model: download() before upload()");
        const std::size_t L = h.links, F = h.flows, H = F * h.depth;
        fetch(h.queue, device_.queue, L);
        fetch(h.mark, device_.mark, L);
        fetch(h.throttle, device_.throttle, L);
        fetch(h.arrival, device_.arrival, L);
        fetch(h.rc, device_.rc, F);
        fetch(h.rt, device_.rt, F);
        fetch(h.alpha, device_.alpha, F);
        fetch(h.send, device_.send, F);
        fetch(h.left, device_.left, F);
        fetch(h.finished, device_.finished, F);
        fetch(h.hist_p, device_.hist_p, H);
        fetch(h.hist_rc, device_.hist_rc, H);
        return ran_;
    }

private:
    std::unique_ptr<Buffers> buffers_;
    FluidArrays device_;
    FluidParams params_;
    double h_ = 0;
    std::uint64_t step_ = 0, ran_ = 0;
};

}  // namespace

std::unique_ptr<FluidDevice> make_cuda_fluid() {
    const CudaAvailability a = cuda_availability();
    if (!a.usable) throw ModelError(a.reason);
    return std::make_unique<CudaFluid>();
}

}  // namespace fabricsim::flow
