// InfiniBand congestion control (IBA Vol. 1, Annex A10): the reaction at the source channel
// adapter, one IbCongestionControl per queue pair, and the FECN marking decision at a switch
// port (FecnMarker). The spec text is not public; what is used here and where it was checked
// (OpenSM and Mellanox's CC manager, which configure A10; Intel's Omni-Path fabric manager and
// the Linux hfi1 driver, which run its Omni-Path successor) is in docs/models/infiniband.md.
//
//   BECN at t (on_cnp):  CCTI = min(CCTI + CCTI_Increase, CCTI_Limit); the timer starts if idle
//   every CCTI_Timer:    CCTI = CCTI - 1 while CCTI > CCTI_Min; the timer stops at CCTI_Min
//   rate():              entry CCT[CCTI] = (shift, multiplier) is an inter-packet delay
//                        IPD = T_pkt * multiplier / 2^shift after a packet of transmission time
//                        T_pkt at line rate (OPA spec §17.3.12 as quoted in opa-fm; hfi1
//                        set_link_ipg), so rate = line * 2^shift / (2^shift + multiplier)
//   switch:              a packet of at least packet_size bytes leaving a port/VL whose queue is
//                        above threshold is eligible; one eligible packet is marked, then
//                        marking_rate are passed over (Marking_Rate: "packets between markings").
//                        A port/VL that had to wait for credits is a victim of congestion
//                        downstream, not its root: it marks only with victim_mask (IBA A10
//                        SwitchCongestionSetting Victim_Mask; OpenSM: "mark packets with FECN
//                        whether they are the source or victim of congestion")
//
// Numbers: integer only; a rate is floor(line * 2^shift / (2^shift + multiplier)) in 128 bits.
// The timer runs only while CCTI > CCTI_Min, so an idle QP costs no events. A QP starts at
// CCTI_Min (hfi1 starts at 0 but never decays below the minimum; starting at it makes the
// minimum hold from the first packet).
#pragma once

#include <cstdint>
#include <vector>

#include "congestion/congestion_control.hpp"
#include "core/units.hpp"

namespace fabricsim::congestion {

// One congestion control table entry: 2-bit CCT_Shift, 14-bit CCT_Multiplier (OpenSM packs it
// as shift << 14 | multiplier).
struct CctEntry {
    static constexpr int max_shift = 3;
    static constexpr int max_multiplier = 0x3fff;
    int shift = 0;
    int multiplier = 0;

    // IPD after a packet of transmission time `packet_time`, rounded down to a picosecond.
    Time delay(Time packet_time) const;
    // The injection rate this entry allows a sender at `line_rate`, rounded down.
    Bandwidth rate(Bandwidth line_rate) const;
    bool operator==(const CctEntry&) const = default;
};

struct IbCcParams {
    static constexpr int max_table_entries = 255 * 64;       // ControlTableCap: 8 bits of 64-entry blocks
    static constexpr Time timer_unit = Time::ps(1'024'000);  // CCTI_Timer counts 1.024 us
    static constexpr int max_timer_units = 0xffff;           // 16-bit field

    int ccti_increase = 1;              // Mellanox (NVIDIA) CC manager default
    int ccti_limit = 127;               // Intel OPA FM default (128 entries)
    int ccti_min = 0;                   // Mellanox CC manager and OPA FM default
    Time ccti_timer = timer_unit * 10;  // OPA FM default: 10 units = 10.24 us
    std::vector<CctEntry> table;        // CCT[0..]; at least ccti_limit + 1 entries

    // The defaults above with the OPA FM's table: delays rising linearly from 0 at index 0 to
    // max_delay (8 us) at ccti_limit, for MTU packets (plus IB headers) at line_rate.
    static IbCcParams defaults(Bandwidth line_rate, Bytes mtu);
    // That table for any limit: entry i = (s, floor(i * M / limit)) where M = the largest
    // multiplier that gives max_delay with the largest shift s <= 3 that fits 14 bits.
    static std::vector<CctEntry> linear_table(Time max_delay, Time packet_time, int limit);

    // Throws ConfigError (infiniband.congestion_control.<name>) for a value the model cannot run.
    void validate() const;
};

// The default table's top delay (OPA FM DesiredMaxDelay = 8000 ns).
inline constexpr Time kCctMaxDelay = Time::us(8);
// Transmission time of an MTU packet with its IB headers (LRH+BTH+ICRC+VCRC = 26 B,
// docs/models/links.md): the T_pkt of the default table.
Time cct_packet_time(Bandwidth line_rate, Bytes mtu);

class IbCongestionControl final : public CongestionControl {
public:
    // Validates params; throws ConfigError if line_rate is not positive.
    IbCongestionControl(const IbCcParams& params, Bandwidth line_rate);

    void on_ack(Time now, Bytes) override { advance(now); }
    void on_cnp(Time now) override;  // a BECN for this QP
    void on_sent(Time now, Bytes) override { advance(now); }
    void on_timer(Time now) override { advance(now); }
    Time next_timer() const override { return next_decrease_; }
    Bandwidth rate() const override { return rate_; }

    int ccti() const { return ccti_; }
    std::int32_t table_index() const override { return ccti_; }
    Bandwidth line_rate() const { return line_rate_; }
    const IbCcParams& params() const { return params_; }

private:
    void advance(Time now);
    void set_ccti(int ccti);

    IbCcParams params_;
    Bandwidth line_rate_;
    int ccti_ = 0;
    Bandwidth rate_;
    Time next_decrease_ = Time::max();
};

// Switch side (SwitchCongestionSetting), per port and VL.
struct FecnMarkerParams {
    Bytes threshold = Bytes{8 * 1024};  // queue on the port/VL above which it is congested
    int marking_rate = 10;              // Mellanox (NVIDIA) CC manager default 0xa
    Bytes packet_size = Bytes{512};     // smaller packets are never marked; Mellanox default 0x200
    bool victim_mask = false;           // victims mark too; OpenSM's default mask is all zero

    // Throws ConfigError (infiniband.congestion_control.<name>).
    void validate() const;
};

// The marker's memory for one port/VL: eligible packets still to pass over before the next mark.
struct FecnMarkState {
    std::uint32_t to_skip = 0;
};

class FecnMarker {
public:
    explicit FecnMarker(const FecnMarkerParams& params);

    // `victim`: the port/VL waited for credits before it could send this packet.
    bool eligible(Bytes queue, Bytes packet, bool victim = false) const {
        return queue > params_.threshold && packet >= params_.packet_size && (!victim || params_.victim_mask);
    }
    // Mark this packet with FECN? `queue`: bytes on its port/VL (the caller picks the moment, as
    // for RedMarker). Counts eligible packets in `state`; no allocation, no randomness.
    bool should_mark(Bytes queue, Bytes packet, FecnMarkState& state, bool victim = false) const {
        if (!eligible(queue, packet, victim)) return false;
        if (state.to_skip > 0) {
            --state.to_skip;
            return false;
        }
        state.to_skip = static_cast<std::uint32_t>(params_.marking_rate);
        return true;
    }
    const FecnMarkerParams& params() const { return params_; }

private:
    FecnMarkerParams params_;
};

}  // namespace fabricsim::congestion
