// The ideal network: an analytical model for tests and quick estimates (DESIGN §1,
// `simulation.model: ideal`).
//
//   delivery time = latency + size / min(B_src, B_dst)
//
// where B_r is rank r's share of its server's NIC bandwidth (nics × nic.line_rate / ranks per
// server). No contention: messages never slow each other down, so results are closed forms.
// It offers no in-network operation.
#pragma once

#include "core/event_queue.hpp"
#include "core/network.hpp"
#include "scenario/spec.hpp"

#include <vector>

namespace fabricsim::fabric {

class IdealNetwork final : public Network, private EventTarget {
public:
    IdealNetwork(const scenario::ClusterSpec& cluster, const scenario::IdealNetworkSpec& spec);

    std::string_view model_name() const override { return "ideal"; }
    void send(Simulator& sim, const Message& message, DeliveryListener& listener) override;
    Time unloaded_time(const Message& message) const override;

    Bandwidth rank_bandwidth() const { return rank_bandwidth_; }

private:
    void on_event(Simulator& sim, std::uint64_t slot) override;

    struct InFlight {
        MessageId id;
        DeliveryListener* listener;
    };
    int ranks_;
    Bandwidth rank_bandwidth_;
    Time latency_;
    std::vector<InFlight> in_flight_;      // indexed by slot
    std::vector<std::uint32_t> free_slots_;
};

}  // namespace fabricsim::fabric
