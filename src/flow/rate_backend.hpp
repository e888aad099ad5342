// A rate backend solves one FlowSystem for its max-min fair rates (flow_rules.hpp). The CPU
// backend is always there; the CUDA one (max_min_cuda.cu) only in a CUDA build on a machine
// with a device. `simulation.flow_backend` picks one (docs/models/flow.md).
#pragma once

#include "flow/flow_system.hpp"

#include <memory>
#include <string_view>
#include <vector>

namespace fabricsim::flow {

class RateBackend {
public:
    virtual ~RateBackend() = default;
    virtual std::string_view name() const = 0;  // "cpu" | "cuda"
    // rates[f] for every flow of `system` (resized to system.flows()).
    virtual void solve(const FlowSystem& system, std::vector<double>& rates) = 0;
};

// Progressive filling on one core with a heap of link levels: O(uses · log links).
class CpuMaxMin final : public RateBackend {
public:
    std::string_view name() const override { return "cpu"; }
    void solve(const FlowSystem& system, std::vector<double>& rates) override;

private:
    // Scratch kept between solves so a warm solver allocates nothing.
    std::vector<double> remaining_, load_;
    std::vector<std::uint32_t> unfrozen_on_;
    std::vector<char> frozen_, changed_mark_;
    struct Entry {
        double level;
        std::uint32_t index;
    };
    std::vector<Entry> links_heap_, caps_heap_;
    std::vector<std::uint32_t> changed_;  // scan: links whose level moved in this round
    std::vector<double> level_;           // scan: per link
    static constexpr std::size_t kScanLinks = 256;
    // The heap's top entry, whose level rose, moved down to its place.
    static void sift_down(std::vector<Entry>& heap);
    LinkUses by_link_;
};

// The CUDA backend on device 0; throws ModelError with the reason when no device is usable
// (a build without CUDA, no device, or a runtime error from the device query).
std::unique_ptr<RateBackend> make_cuda_backend();

}  // namespace fabricsim::flow
