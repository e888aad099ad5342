// Strong integer ids: a RankId cannot be passed where a MessageId is expected.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace fabricsim {

template <class Tag, class Rep = std::uint32_t>
class Id {
public:
    using rep = Rep;
    constexpr Id() = default;
    constexpr explicit Id(Rep v) : v_(v) {}
    static constexpr Id invalid() { return Id{std::numeric_limits<Rep>::max()}; }
    constexpr Rep value() const { return v_; }
    constexpr bool valid() const { return v_ != std::numeric_limits<Rep>::max(); }
    constexpr auto operator<=>(const Id&) const = default;

private:
    Rep v_ = std::numeric_limits<Rep>::max();
};

using RankId = Id<struct RankTag>;
using ServerId = Id<struct ServerTag>;
using MessageId = Id<struct MessageTag, std::uint64_t>;
using OpId = Id<struct OpTag>;

}  // namespace fabricsim

template <class Tag, class Rep>
struct std::hash<fabricsim::Id<Tag, Rep>> {
    std::size_t operator()(fabricsim::Id<Tag, Rep> id) const noexcept { return std::hash<Rep>{}(id.value()); }
};
