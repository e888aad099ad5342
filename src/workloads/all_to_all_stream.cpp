#include "workloads/all_to_all_stream.hpp"

#include "core/errors.hpp"
#include "workloads/collective_algorithms.hpp"
#include "workloads/rank_layout.hpp"
#include "workloads/send_chain.hpp"

#include <algorithm>

namespace fabricsim::workloads {

namespace {
constexpr int kChannelShift = 40;  // local = channel << 40 | (round − 1)·n + position
constexpr std::uint64_t kIndexMask = (std::uint64_t{1} << kChannelShift) - 1;
}  // namespace

AllToAllStream::AllToAllStream(const std::vector<RankId>& group, int channels, Bytes size, const RankLayout& layout)
    : MemberStream(group), n_(static_cast<std::int64_t>(group.size())) {
    if (n_ * n_ >= static_cast<std::int64_t>(kIndexMask)) throw InternalError("all-to-all stream: too many members");
    channels_.resize(static_cast<std::size_t>(channels));
    for (int c = 0; c < channels; ++c) {
        Channel& ch = channels_[static_cast<std::size_t>(c)];
        ch.bytes = share(size, channels, c);
        if (n_ < 2 || ch.bytes <= Bytes::zero()) continue;  // pairwise_all_to_all makes nothing
        ch.order = ring_order(group, layout, c);
        ch.position.assign(group.size(), 0);
        for (std::int64_t i = 0; i < n_; ++i) {
            const RankId r = ch.order[static_cast<std::size_t>(i)];
            const auto m = static_cast<std::uint32_t>(std::find(group.begin(), group.end(), r) - group.begin());
            ch.member.push_back(m);
            ch.position[m] = static_cast<std::uint32_t>(i);
            ch.server.push_back(layout.server(r));
        }
        total_ += static_cast<std::uint64_t>(n_ * (n_ - 1));
    }
    left_ = total_;
}

void AllToAllStream::open(std::uint32_t member, Time /*now*/, ReadyOps& ready) {
    // The gate's successors that it releases, in the order they were made: per channel, the
    // member's round-1 send (every member's, in position order, when one gate opens them all).
    for (std::size_t c = 0; c < channels_.size(); ++c) {
        const Channel& ch = channels_[c];
        if (ch.order.empty()) continue;
        if (member != kAllMembers) {
            ready.push_back((std::uint64_t{c} << kChannelShift) | ch.position[member]);
            continue;
        }
        for (std::int64_t i = 0; i < n_; ++i)
            ready.push_back((std::uint64_t{c} << kChannelShift) | static_cast<std::uint64_t>(i));
    }
}

Op AllToAllStream::op(std::uint64_t local) const {
    const Channel& ch = channels_[static_cast<std::size_t>(local >> kChannelShift)];
    const auto index = static_cast<std::int64_t>(local & kIndexMask);
    const std::int64_t i = index % n_, k = index / n_ + 1;
    const std::int64_t to = (i + k) % n_;
    Op o;
    o.kind = OpKind::send;
    o.src = ch.order[static_cast<std::size_t>(i)];
    o.dst = ch.order[static_cast<std::size_t>(to)];
    o.size = share(ch.bytes, n_, to);
    o.flow_hint = static_cast<std::uint32_t>(local >> kChannelShift);
    o.rail = -1;  // point-to-point schedules leave through each rank's own NIC (ChannelContext)
    return o;
}

void AllToAllStream::finished(std::uint64_t local, Time /*start*/, Time finish, ReadyOps& ready) {
    if (left_ == 0) throw InternalError("all-to-all stream: a send finished after the last");
    const Channel& ch = channels_[static_cast<std::size_t>(local >> kChannelShift)];
    const auto index = static_cast<std::int64_t>(local & kIndexMask);
    const std::int64_t i = index % n_, k = index / n_ + 1;
    const auto ui = static_cast<std::size_t>(i);
    count(ch.member[ui], ch.server[ui] == ch.server[static_cast<std::size_t>((i + k) % n_)], op(local).size);
    if (last_ == UINT64_MAX || finish > last_finish_ || (finish == last_finish_ && local < last_)) {
        last_finish_ = finish;
        last_ = local;
        root_ = ch.member[ui];
    }
    if (k + 1 < n_) ready.push_back(local + static_cast<std::uint64_t>(n_));  // its next round
    if (--left_ == 0) channels_ = {};  // its memory goes once done; the byte counts stay
}

}  // namespace fabricsim::workloads
