#include "workloads/ring_stream.hpp"

#include "core/errors.hpp"
#include "workloads/collective.hpp"
#include "workloads/collective_algorithms.hpp"
#include "workloads/rank_layout.hpp"
#include "workloads/send_chain.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::workloads {

namespace {
constexpr int kChannelShift = 40;  // local = channel << 40 | index in channel (as CollectiveProgram)
constexpr std::uint64_t kIndexMask = (std::uint64_t{1} << kChannelShift) - 1;
}  // namespace

RingStream::Track& RingStream::Window::at(std::uint64_t index) {
    if (index < base_) throw InternalError(fmt::format("ring stream: send {} is before the window ({})", index, base_));
    if (index - base_ >= slots_.size()) {
        std::size_t size = slots_.empty() ? 64 : slots_.size();
        while (size <= index - base_) size *= 2;
        std::vector<Track> next(size);
        for (std::uint64_t i = base_; i < end_; ++i) next[i & (size - 1)] = slots_[i & (slots_.size() - 1)];
        slots_ = std::move(next);
    }
    end_ = std::max(end_, index + 1);
    return slots_[index & (slots_.size() - 1)];
}

void RingStream::Window::retire(std::uint64_t index) {
    at(index).retired = true;
    const std::size_t mask = slots_.size() - 1;
    while (base_ < end_ && slots_[base_ & mask].retired) slots_[base_++ & mask] = Track{};
}

bool RingStream::streams(scenario::CollectiveOp op) {
    return op == scenario::CollectiveOp::all_reduce || op == scenario::CollectiveOp::reduce_scatter ||
           op == scenario::CollectiveOp::all_gather;
}

RingStream::RingStream(scenario::CollectiveOp op, const std::vector<RankId>& group, int channels, Bytes size,
                       Bytes message_bytes, const RankLayout& layout, bool coupled)
    : MemberStream(group) {
    if (!streams(op)) throw InternalError("ring stream: an operation the ring does not plan");
    if (group.size() > kMaxMembers) throw InternalError("ring stream: more members than it tracks");
    if (!std::is_sorted(group.begin(), group.end())) throw InternalError("ring stream: a group not in rank order");
    const auto n = static_cast<std::int64_t>(group.size());
    // ring.cpp's rounds per loop (collective.cpp's build_channel).
    steps_ = op == scenario::CollectiveOp::all_reduce ? 2 * (n - 1) : n - 1;
    rings_.resize(static_cast<std::size_t>(channels));
    for (int c = 0; c < channels; ++c) {
        Ring& r = rings_[static_cast<std::size_t>(c)];
        r.order = ring_order(group, layout, c);
        r.n = static_cast<std::int64_t>(r.order.size());
        r.bytes = share(size, channels, c);
        if (r.n < 2 || r.bytes <= Bytes::zero()) continue;
        const std::int64_t loop_bytes = r.n * message_bytes.count();
        r.loops = (r.bytes.count() + loop_bytes - 1) / loop_bytes;
        if (r.loops * steps_ * r.n >= std::int64_t{UINT32_MAX})
            throw InternalError("ring stream: more sends on a channel than it numbers in 32 bits");
        total_ += static_cast<std::uint64_t>(r.loops * steps_ * r.n);
        r.position.assign(group.size(), 0);
        r.member.reserve(static_cast<std::size_t>(r.n));
        r.rail.reserve(static_cast<std::size_t>(r.n));
        r.inside.reserve(static_cast<std::size_t>(r.n));
        for (std::int64_t i = 0; i < r.n; ++i) {
            const RankId src = r.order[static_cast<std::size_t>(i)];
            const RankId dst = r.order[static_cast<std::size_t>((i + 1) % r.n)];
            // Its index in the (sorted) group, by binary search: a linear search per rank and
            // channel cost n² per channel (a DP ring of 128 ranks on 16 channels: 262 k
            // comparisons per collective).
            const auto m =
                static_cast<std::uint32_t>(std::lower_bound(group.begin(), group.end(), src) - group.begin());
            r.member.push_back(m);
            r.position[m] = static_cast<std::uint32_t>(i);
            const bool inside = layout.same_server(src, dst);
            r.inside.push_back(inside);
            r.rail.push_back(inside ? std::int16_t{-1} : static_cast<std::int16_t>(c % layout.nics_per_server()));
        }
    }
    // Coupled: every channel one loop (one message per ring step), each channel one group op.
    coupled = coupled && std::all_of(rings_.begin(), rings_.end(), [](const Ring& r) { return r.loops <= 1; });
    if (coupled && total_ > 0) {
        total_ = 0;
        channel_ops_.resize(rings_.size());
        for (const Ring& r : rings_) {
            if (r.loops == 0) continue;
            channel_ops_[static_cast<std::size_t>(&r - rings_.data())] = ring_channel_group(r.order, r.bytes, steps_);
            ++total_;
        }
    }
    left_ = total_;
}

std::uint8_t RingStream::dependencies(std::int64_t p) const {
    // ring_rounds' dependencies (the block received in the round before, the same round of
    // the loop before, SendChain's window on the connection), and the gate for the first
    // kWindow sends of a connection.
    return static_cast<std::uint8_t>((p % steps_ > 0 ? 1 : 0) + (p / steps_ > 0 ? 1 : 0) + (p >= kWindow ? 1 : 0) +
                                     (p < kWindow ? 1 : 0));
}

void RingStream::offer(std::size_t channel, std::int64_t p, std::int64_t i, Time t, std::uint32_t by,
                       std::uint16_t root, ReadyOps& ready) {
    Ring& r = rings_[channel];
    const auto index = static_cast<std::uint64_t>(p * r.n + i);
    Track& track = r.window.at(index);
    if (track.waits == kUntouched) track.waits = dependencies(p);
    if (track.waits == 0) throw InternalError(fmt::format("ring stream: send {} released twice", index));
    track.offer(t, by, root);
    if (--track.waits == 0) ready.push_back((std::uint64_t(channel) << kChannelShift) | index);
}

void RingStream::open(std::uint32_t member, Time now, ReadyOps& ready) {
    if (coupled()) {
        // A channel waits for every member (its steps go round the whole ring); its root is
        // the member that opened last, ties the first to open then (a whole graph's gates).
        const std::uint32_t who = member == kAllMembers ? 0 : member;
        if (opened_ == 0 || now > latest_open_) {
            latest_open_ = now;
            latest_member_ = who;
        }
        opened_ = member == kAllMembers ? members().size() : opened_ + 1;
        if (opened_ < members().size()) return;
        for (std::size_t c = 0; c < rings_.size(); ++c)
            if (rings_[c].loops > 0) ready.push_back(std::uint64_t(c) << kChannelShift);
        return;
    }
    // The gate's successors in the order they were made: channel, then position on the
    // connection, then (every member at once) position in the ring.
    for (std::size_t c = 0; c < rings_.size(); ++c) {
        const Ring& r = rings_[c];
        if (r.loops == 0) continue;
        const std::int64_t first = std::min<std::int64_t>(kWindow, r.loops * steps_);
        for (std::int64_t p = 0; p < first; ++p) {
            if (member != kAllMembers) {
                offer(c, p, r.position[member], now, 0, static_cast<std::uint16_t>(member), ready);
                continue;
            }
            for (std::int64_t i = 0; i < r.n; ++i) offer(c, p, i, now, 0, 0, ready);
        }
    }
}

const GroupOp* RingStream::group(std::uint64_t local) const {
    return coupled() ? &channel_ops_[static_cast<std::size_t>(local >> kChannelShift)] : nullptr;
}

Op RingStream::op(std::uint64_t local) const {
    const auto c = static_cast<std::size_t>(local >> kChannelShift);
    const Ring& r = rings_[c];
    if (coupled())
        return ring_channel_op(r.order, r.bytes, static_cast<std::uint32_t>(c),
                               *std::max_element(r.rail.begin(), r.rail.end()));  // its crossings' rail
    const auto index = static_cast<std::int64_t>(local & kIndexMask);
    const std::int64_t i = index % r.n, p = index / r.n;
    const std::int64_t l = p / steps_, k = p % steps_;
    // As ring_rounds: rank i's round-k block is block (i − k) mod n of its loop.
    const Bytes loop_size = share(r.bytes, r.loops, l);
    Op o;
    o.kind = OpKind::send;
    o.src = r.order[static_cast<std::size_t>(i)];
    o.dst = r.order[static_cast<std::size_t>((i + 1) % r.n)];
    o.size = share(loop_size, r.n, (i - k + 2 * r.n * steps_) % r.n);
    o.flow_hint = static_cast<std::uint32_t>(c);
    o.rail = r.rail[static_cast<std::size_t>(i)];
    return o;
}

void RingStream::finished_channel(std::size_t channel, Time finish) {
    const Ring& r = rings_[channel];
    for (std::int64_t i = 0; i < r.n; ++i)
        count(r.member[static_cast<std::size_t>(i)], r.inside[static_cast<std::size_t>(i)],
              ring_sent_in_loop(r.bytes, r.n, steps_, i));
    last_.offer(finish, (std::uint64_t(channel) << kChannelShift) + 1, latest_member_);
    if (--left_ == 0) {
        rings_ = {};
        channel_ops_ = {};
    }
}

void RingStream::finished(std::uint64_t local, Time /*start*/, Time finish, ReadyOps& ready) {
    if (left_ == 0) throw InternalError("ring stream: a send finished after the last");
    const auto c = static_cast<std::size_t>(local >> kChannelShift);
    if (coupled()) return finished_channel(c, finish);
    const auto index = static_cast<std::int64_t>(local & kIndexMask);
    const Bytes size = op(local).size;
    Ring& r = rings_[c];
    const std::int64_t n = r.n;
    const std::int64_t i = index % n, p = index / n;
    const std::int64_t k = p % steps_, l = p / steps_;
    const std::int64_t end = r.loops * steps_;
    const std::uint16_t root = r.window.at(static_cast<std::uint64_t>(index)).root;
    const auto id = static_cast<std::uint32_t>(index + 1);  // 0 is the gate, made before every send
    count(r.member[static_cast<std::size_t>(i)], r.inside[static_cast<std::size_t>(i)], size);
    // Its successors in the order they were made (CollectiveProgram::ring_finished).
    if (k + 1 < steps_) offer(c, p + 1, (i + 1) % n, finish, id, root, ready);
    const bool window = p + kWindow < end, next_loop = l + 1 < r.loops;
    if (kWindow <= steps_) {
        if (window) offer(c, p + kWindow, i, finish, id, root, ready);
        if (next_loop) offer(c, p + steps_, i, finish, id, root, ready);
    } else {
        if (next_loop) offer(c, p + steps_, i, finish, id, root, ready);
        if (window) offer(c, p + kWindow, i, finish, id, root, ready);
    }
    r.window.retire(static_cast<std::uint64_t>(index));
    last_.offer(finish, local + 1, root);
    if (--left_ == 0) rings_ = {};  // its memory goes once done; the byte counts stay
}

}  // namespace fabricsim::workloads
