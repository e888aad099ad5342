// The CUDA rate backend: progressive filling (flow_rules.hpp) as data-parallel rounds on the
// device. Each round:
//
//   1. per link, the unfrozen load Σ share·weight     segmented sum over the link's uses (CUB)
//   2. per link, its level                             link_level()
//   3. per flow, its level: min over its links and its cap level      one thread per flow
//   4. the bottleneck λ*: the least flow level         device-wide min (CUB)
//   5. freeze every flow at λ* (freezes(), frozen_rate())
//   6. per link, what the new frozen flows use         segmented sum (CUB); after_use()
//
// The arrays stay on the device for the whole solve and the device buffers are kept between
// solves (grown, never shrunk); the host launches rounds in batches and reads one counter
// (flows still unfrozen) per batch, not per round. A round in which everything is frozen
// changes nothing (λ* is infinite), so a batch may overrun the last round harmlessly.
//
// The load is summed afresh each round rather than decremented, so the device and the CPU
// (which decrements) round differently; they agree to far better than the 1e-6 the tests ask.
#include "core/errors.hpp"
#include "flow/cuda_device.hpp"
#include "flow/cuda_launch.cuh"
#include "flow/flow_rules.hpp"
#include "flow/rate_backend.hpp"

#include <cuda_runtime.h>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <algorithm>
#include <string>

namespace fabricsim::flow {

namespace {

constexpr int kRoundsPerCheck = 16;  // rounds launched between reads of the unfrozen count

// A device array that keeps its allocation between solves.
template <class T>
struct DeviceArray {
    T* p = nullptr;
    std::size_t capacity = 0;
    void reserve(std::size_t n) {
        if (n <= capacity) return;
        if (p != nullptr) cudaFree(p);
        p = nullptr;
        cuda_check(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T)), "cudaMalloc");
        capacity = std::max<std::size_t>(n, 1);
    }
    void upload(const T* host, std::size_t n) {
        reserve(n);
        if (n > 0) cuda_check(cudaMemcpy(p, host, n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy to device");
    }
    ~DeviceArray() {
        if (p != nullptr) cudaFree(p);
    }
};

// contrib[j] for the j-th use in link order: share·weight of an unfrozen flow (mode 0), or
// share·rate of a flow frozen this round (mode 1), else 0.
__global__ void use_terms(std::size_t uses, const std::uint32_t* use_of, const std::uint32_t* flow_of,
                          const double* share, const double* weight, const double* rate, const unsigned char* frozen,
                          int mode, double* contrib) {
    for (std::size_t j = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; j < uses;
         j += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const std::uint32_t f = flow_of[j];
        const double s = share[use_of[j]];
        contrib[j] = mode == 0 ? (frozen[f] == 0 ? s * weight[f] : 0.0) : (frozen[f] == 2 ? s * rate[f] : 0.0);
    }
}

__global__ void link_levels(std::size_t links, const double* remaining, const double* load, double* level) {
    for (std::size_t l = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; l < links;
         l += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        level[l] = link_level(remaining[l], load[l]);
}

__global__ void flow_levels(std::size_t flows, const std::uint32_t* first, const std::uint32_t* link_of,
                            const double* weight, const double* cap, const double* level, const unsigned char* frozen,
                            double* flow_level) {
    for (std::size_t f = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; f < flows;
         f += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        if (frozen[f] != 0) {
            flow_level[f] = kInfiniteLevel;
            continue;
        }
        double lv = cap[f] < kInfiniteLevel ? cap_level(cap[f], weight[f]) : kInfiniteLevel;
        for (std::uint32_t k = first[f]; k < first[f + 1]; ++k) lv = min_level(lv, level[link_of[k]]);
        flow_level[f] = lv;
    }
}

__global__ void freeze_at(std::size_t flows, const double* flow_level, const double* bottleneck, const double* weight,
                          const double* cap, double* rate, unsigned char* frozen) {
    const double b = *bottleneck;
    for (std::size_t f = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; f < flows;
         f += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        if (frozen[f] == 0 && b < kInfiniteLevel && freezes(flow_level[f], b)) {
            rate[f] = frozen_rate(weight[f], b, cap[f]);
            frozen[f] = 2;
        }
}

__global__ void subtract(std::size_t links, const double* used, double* remaining) {
    for (std::size_t l = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; l < links;
         l += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        remaining[l] = after_use(remaining[l], used[l]);
}

__global__ void settle(std::size_t flows, unsigned char* frozen, unsigned long long* unfrozen) {
    unsigned long long local = 0;
    for (std::size_t f = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; f < flows;
         f += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        if (frozen[f] == 2) frozen[f] = 1;
        if (frozen[f] == 0) ++local;
    }
    if (unfrozen != nullptr && local > 0) atomicAdd(unfrozen, local);
}

class CudaMaxMin final : public RateBackend {
public:
    std::string_view name() const override { return "cuda"; }

    void solve(const FlowSystem& s, std::vector<double>& rates) override {
        const std::size_t links = s.links(), flows = s.flows(), uses = s.uses();
        rates.assign(flows, 0.0);
        if (flows == 0) return;
        const LinkUses t = link_uses(s);
        capacity_.upload(s.capacity.data(), links);
        remaining_.upload(s.capacity.data(), links);
        weight_.upload(s.weight.data(), flows);
        cap_.upload(s.cap.data(), flows);
        first_.upload(s.first.data(), flows + 1);
        link_of_.upload(s.link_of.data(), uses);
        share_.upload(s.share.data(), uses);
        link_first_.upload(t.first.data(), links + 1);
        use_of_.upload(t.use_of.data(), uses);
        flow_of_.upload(t.flow_of.data(), uses);
        load_.reserve(links);
        level_.reserve(links);
        used_.reserve(links);
        contrib_.reserve(uses);
        rate_.reserve(flows);
        flow_level_.reserve(flows);
        frozen_.reserve(flows);
        scalars_.reserve(1);
        counter_.reserve(1);
        cuda_check(cudaMemset(frozen_.p, 0, flows), "cudaMemset");
        cuda_check(cudaMemset(rate_.p, 0, flows * sizeof(double)), "cudaMemset");

        // CUB's scratch: the larger of the segmented sum's and the min's.
        std::size_t seg_bytes = 0, min_bytes = 0;
        cuda_check(cub::DeviceSegmentedReduce::Sum(nullptr, seg_bytes, contrib_.p, load_.p, static_cast<int>(links),
                                                   link_first_.p, link_first_.p + 1),
                   "cub segmented sum (size)");
        cuda_check(cub::DeviceReduce::Min(nullptr, min_bytes, flow_level_.p, scalars_.p, static_cast<int>(flows)),
                   "cub min (size)");
        scratch_.reserve(std::max(seg_bytes, min_bytes));
        std::size_t scratch_bytes = scratch_.capacity;

        unsigned long long unfrozen = flows;
        for (std::size_t round = 0; unfrozen > 0; round += kRoundsPerCheck) {
            if (round > flows + kRoundsPerCheck)
                throw InternalError("CUDA max-min solver: more rounds than flows (a round froze nothing)");
            for (int r = 0; r < kRoundsPerCheck; ++r) {
                use_terms<<<cuda_blocks(uses), kCudaThreads>>>(uses, use_of_.p, flow_of_.p, share_.p, weight_.p,
                                                               rate_.p, frozen_.p, 0, contrib_.p);
                scratch_bytes = scratch_.capacity;
                cuda_check(cub::DeviceSegmentedReduce::Sum(scratch_.p, scratch_bytes, contrib_.p, load_.p,
                                                           static_cast<int>(links), link_first_.p, link_first_.p + 1),
                           "cub segmented sum");
                link_levels<<<cuda_blocks(links), kCudaThreads>>>(links, remaining_.p, load_.p, level_.p);
                flow_levels<<<cuda_blocks(flows), kCudaThreads>>>(flows, first_.p, link_of_.p, weight_.p, cap_.p,
                                                                  level_.p, frozen_.p, flow_level_.p);
                scratch_bytes = scratch_.capacity;
                cuda_check(cub::DeviceReduce::Min(scratch_.p, scratch_bytes, flow_level_.p, scalars_.p,
                                                  static_cast<int>(flows)),
                           "cub min");
                freeze_at<<<cuda_blocks(flows), kCudaThreads>>>(flows, flow_level_.p, scalars_.p, weight_.p, cap_.p,
                                                                rate_.p, frozen_.p);
                use_terms<<<cuda_blocks(uses), kCudaThreads>>>(uses, use_of_.p, flow_of_.p, share_.p, weight_.p,
                                                               rate_.p, frozen_.p, 1, contrib_.p);
                scratch_bytes = scratch_.capacity;
                cuda_check(cub::DeviceSegmentedReduce::Sum(scratch_.p, scratch_bytes, contrib_.p, used_.p,
                                                           static_cast<int>(links), link_first_.p, link_first_.p + 1),
                           "cub segmented sum");
                subtract<<<cuda_blocks(links), kCudaThreads>>>(links, used_.p, remaining_.p);
                if (r + 1 < kRoundsPerCheck) {
                    settle<<<cuda_blocks(flows), kCudaThreads>>>(flows, frozen_.p, nullptr);
                } else {
                    cuda_check(cudaMemset(counter_.p, 0, sizeof(unsigned long long)), "cudaMemset");
                    settle<<<cuda_blocks(flows), kCudaThreads>>>(flows, frozen_.p, counter_.p);
                }
            }
            cuda_check(cudaGetLastError(), "kernel launch");
            cuda_check(cudaMemcpy(&unfrozen, counter_.p, sizeof(unfrozen), cudaMemcpyDeviceToHost),
                       "cudaMemcpy to host");
        }
        cuda_check(cudaMemcpy(rates.data(), rate_.p, flows * sizeof(double), cudaMemcpyDeviceToHost),
                   "cudaMemcpy to host");
    }

private:
    DeviceArray<double> capacity_, remaining_, weight_, cap_, share_, load_, level_, used_, contrib_, rate_,
        flow_level_, scalars_;
    DeviceArray<std::uint32_t> first_, link_of_, link_first_, use_of_, flow_of_;
    DeviceArray<unsigned char> frozen_, scratch_;
    DeviceArray<unsigned long long> counter_;
};

}  // namespace

std::unique_ptr<RateBackend> make_cuda_backend() {
    const CudaAvailability a = cuda_availability();
    if (!a.usable) throw ModelError(a.reason);
    return std::make_unique<CudaMaxMin>();
}

}  // namespace fabricsim::flow
