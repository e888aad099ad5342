// RcTransport (rc_transport.hpp) on its own: the receiver's ACKs and NAKs, the sender's
// acknowledged state and go-back range, the parts of a message over several QPs, and the
// retransmission timer with its retry count. Every figure follows from the rules in the header.
#include <catch2/catch.hpp>

#include "fabric/packet/rc_transport.hpp"

using fabricsim::Time;
using fabricsim::fabric::RcTransport;
using Reply = RcTransport::Reply;
using Timer = RcTransport::Timer;

namespace {

RcTransport transport(std::uint32_t ack_every, bool ooo = false, bool gives_up = false) {
    return RcTransport(RcTransport::Params{ack_every, Time::us(10), gives_up, ooo});
}

}  // namespace

TEST_CASE("RcTransport lossless: every packet placed in any order, an ACK per ack_every and the last",
          "[packet][transport][rc]") {
    RcTransport rc = transport(4);
    REQUIRE(rc.open(0, 10, 1, false) == 0);
    // Ten packets in reverse order: the 4th, 8th and 10th to arrive are acknowledged, each
    // naming the count in so far less one (3, 7, 9), whatever their own numbers.
    std::vector<std::uint64_t> acks;
    for (std::uint64_t seq = 10; seq-- > 0;) {
        const RcTransport::Received r = rc.on_data(0, seq);
        CHECK(r.placed);
        if (r.reply == Reply::ack) acks.push_back(r.seq);
        CHECK(r.reply != Reply::nak);
    }
    CHECK(acks == std::vector<std::uint64_t>{3, 7, 9});
}

TEST_CASE("RcTransport go-back-N: a gap is NAKed once, a duplicate is acknowledged again", "[packet][transport][rc]") {
    RcTransport rc = transport(1);
    rc.open(0, 8, 1, true);
    CHECK(rc.on_data(0, 0).reply == Reply::ack);
    const RcTransport::Received one = rc.on_data(0, 1);
    CHECK((one.placed && one.reply == Reply::ack && one.seq == 1));
    // Packet 2 lost: 3 is past the gap, dropped, and NAKs 2; 4 is dropped without a second NAK.
    const RcTransport::Received three = rc.on_data(0, 3);
    CHECK((!three.placed && three.reply == Reply::nak && three.seq == 2));
    const RcTransport::Received four = rc.on_data(0, 4);
    CHECK((!four.placed && four.reply == Reply::none));
    // The copy of 2 is placed and acknowledged; a late copy of 1 is dropped and ACKs 2 again.
    const RcTransport::Received two = rc.on_data(0, 2);
    CHECK((two.placed && two.reply == Reply::ack && two.seq == 2));
    const RcTransport::Received again = rc.on_data(0, 1);
    CHECK((!again.placed && again.reply == Reply::ack && again.seq == 2));
    // A new gap after the resend NAKs again (3 is missing now).
    CHECK(rc.on_data(0, 5).reply == Reply::nak);
}

TEST_CASE("RcTransport out-of-order placement: no NAK, an ACK when the in-order prefix grows",
          "[packet][transport][rc]") {
    RcTransport rc = transport(4, true);
    rc.open(0, 8, 1, true);
    // 1 and 2 before 0: kept, not acknowledged (nothing complete in order); 0 completes 0..2,
    // a jump of three, acknowledged at once though 3 is not a multiple of ack_every.
    CHECK(rc.on_data(0, 1).reply == Reply::none);
    CHECK(rc.on_data(0, 2).reply == Reply::none);
    const RcTransport::Received zero = rc.on_data(0, 0);
    CHECK((zero.placed && zero.reply == Reply::ack && zero.seq == 2));
    const RcTransport::Received dup = rc.on_data(0, 1);
    CHECK((!dup.placed && dup.reply == Reply::ack && dup.seq == 2));
    // 3 moves the prefix by one to 4 packets: 4 mod ack_every = 0, an ACK.
    CHECK(rc.on_data(0, 3).seq == 3);
    CHECK(rc.on_data(0, 5).reply == Reply::none);  // past a gap: kept, no NAK
}

TEST_CASE("RcTransport parts: 10 packets over 3 QPs are packets 0-3, 4-6 and 7-9, each acknowledged on its own",
          "[packet][transport][rc]") {
    RcTransport rc = transport(1);
    // Part j starts at ceil(j x 10 / 3): 0, 4, 7.
    REQUIRE(rc.open(0, 10, 3, false) == 0);
    CHECK(rc.parts(0) == 3);
    CHECK((rc.end(0, 0) == 4 && rc.end(0, 1) == 7 && rc.end(0, 2) == 10));
    CHECK((rc.part_of(0, 3) == 0 && rc.part_of(0, 4) == 1 && rc.part_of(0, 6) == 1 && rc.part_of(0, 7) == 2));
    // The sender: an ACK for 5 acknowledges 4 and 5 of part 1 (2 new); an older one for 4 none.
    const RcTransport::Acked a = rc.on_ack(0, 5, Time::zero());
    CHECK((a.part == 1 && a.newly == 2 && !a.part_done));
    CHECK(rc.on_ack(0, 4, Time::zero()).newly == 0);
    CHECK(rc.on_ack(0, 6, Time::zero()).part_done);
    CHECK(rc.acked(0, 1) == 7);
    // A NAK naming 8: 7 is in; going back from 8 ends at the part's end or at what was made.
    rc.on_nak(0, 8);
    CHECK(rc.acked(0, 2) == 8);
    CHECK(rc.go_back_end(0, 8, 10) == 10);
    CHECK(rc.go_back_end(0, 8, 9) == 9);
    CHECK(rc.go_back_end(0, 1, 10) == 4);
    // Two packets over three QPs: parts start at 0, ceil(2/3) = 1, ceil(4/3) = 2; the last is empty.
    CHECK(rc.open(1, 2, 3, false) == 1);
}

TEST_CASE("RcTransport timer: wait after progress, no timeout without packets out, give up after 7",
          "[packet][transport][rc]") {
    RcTransport rc = transport(1, false, true);
    rc.open(0, 4, 1, true);
    CHECK(rc.arm(0, Time::zero()));       // an event at 10 us
    CHECK_FALSE(rc.arm(0, Time::us(1)));  // pending: the deadline moves to 11 us only
    CHECK(rc.deadline(0) == Time::us(11));
    CHECK(rc.on_timer(0, Time::us(10), 4) == Timer::wait);
    // At 11 us: nothing made yet is no loss; with 4 made and none acknowledged, a timeout.
    CHECK(rc.on_timer(0, Time::us(11), 0) == Timer::rearm);
    for (int i = 1; i <= RcTransport::kRetryLimit; ++i) {
        CHECK(rc.arm(0, Time::us(20 * i)));
        CHECK(rc.on_timer(0, Time::us(20 * i + 10), 4) == Timer::go_back);
    }
    CHECK_FALSE(rc.gave_up(0));
    // The 8th timeout in a row spends the retry count (3 bits: 7 retries).
    CHECK(rc.arm(0, Time::us(200)));
    CHECK(rc.on_timer(0, Time::us(210), 4) == Timer::give_up);
    CHECK(rc.gave_up(0));
    // Progress resets the count; every part acknowledged, the timer has nothing to do.
    rc.on_ack(0, 3, Time::us(211));
    CHECK_FALSE(rc.gave_up(0));
    CHECK(rc.on_timer(0, Time::us(300), 4) == Timer::idle);
}

TEST_CASE("RcTransport without gives_up retries for ever", "[packet][transport][rc]") {
    RcTransport rc = transport(1);
    rc.open(0, 1, 1, true);
    for (int i = 0; i < 20; ++i) {
        CHECK(rc.arm(0, Time::us(20 * i)));
        CHECK(rc.on_timer(0, Time::us(20 * i + 10), 1) == Timer::go_back);
    }
}
