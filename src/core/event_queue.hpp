// The pending-event set of the discrete-event engine.
//
// Order: ascending (time, insertion sequence); two events at the same picosecond run in the
// order they were scheduled, so a run is deterministic. Cancel is by handle (lazy: the slot's
// generation is bumped and the stale entry is skipped when it surfaces).
//
// Structure (a calendar queue with lazily sorted buckets, after Brown, CACM 31(10) 1988, and
// the ladder queue's idea of sorting a bucket only when it becomes current, Tang et al., ACM
// TOMACS 15(3) 2005):
//   near     a small binary heap holding every event with time < near_end
//   buckets  K unsorted vectors, bucket i covering [near_end + i*width, near_end + (i+1)*width)
//   overflow an unsorted vector of everything at or beyond the last bucket
// push appends to a vector (O(1), one cache line touched); pop takes the heap's top and, when
// the heap is empty, heapifies the next non-empty bucket; when the buckets are spent the
// overflow is re-spread over K ≈ n/kTargetPerBucket buckets whose width comes from its time
// span. Every event moves O(1) times, so a hold costs O(1) expected.
#pragma once

#include "core/units.hpp"

#include <cstdint>
#include <vector>

namespace fabricsim {

class Simulator;

// Receives events. The only per-event indirection is this one virtual call; `arg` lets one
// target tell its events apart (a port index, a timer kind) without allocating.
class EventTarget {
public:
    virtual void on_event(Simulator& sim, std::uint64_t arg) = 0;

protected:
    ~EventTarget() = default;
};

struct EventHandle {
    std::uint32_t slot = UINT32_MAX;
    std::uint32_t generation = 0;
    bool valid() const { return slot != UINT32_MAX; }
};

struct Event {
    Time time;
    EventTarget* target = nullptr;
    std::uint64_t arg = 0;
};

class EventQueue {
public:
    EventQueue();

    EventHandle push(Time time, EventTarget* target, std::uint64_t arg);
    // True if the event was pending and is now cancelled; false if it already ran, was
    // cancelled before, or the handle is invalid.
    bool cancel(EventHandle handle);

    bool empty() const { return live_ == 0; }
    std::size_t size() const { return live_; }
    // Time of the next event to pop. Precondition: !empty().
    Time next_time();
    // Removes and returns the earliest event. Precondition: !empty().
    Event pop();

private:
    struct Entry {
        Time time;
        std::uint64_t seq;
        std::uint32_t slot;
        std::uint32_t generation;
    };
    struct Slot {
        EventTarget* target;
        std::uint64_t arg;
        std::uint32_t generation;
        std::uint32_t next_free;
    };
    static constexpr std::size_t kTargetPerBucket = 32;

    void settle();              // makes near_ non-empty with a live top (precondition: live_ > 0)
    bool load_next_bucket();    // false when the buckets are spent
    void respread_overflow();
    void release(std::uint32_t slot);
    bool stale(const Entry& e) const { return slots_[e.slot].generation != e.generation; }

    std::vector<Entry> near_;                  // binary min-heap on (time, seq)
    std::vector<std::vector<Entry>> buckets_;
    std::vector<Entry> overflow_;
    std::size_t current_bucket_ = 0;           // buckets_[0..current_bucket_) are spent
    Time near_end_ = Time::zero();             // near_ holds every event with time < near_end_
    Time width_ = Time::ps(1);
    Time window_end_ = Time::zero();           // buckets hold [near_end_, window_end_)

    std::vector<Slot> slots_;
    std::uint32_t free_head_ = UINT32_MAX;
    std::uint64_t next_seq_ = 0;
    std::size_t live_ = 0;
};

}  // namespace fabricsim
