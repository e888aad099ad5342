// The pending-event set of the discrete-event engine.
//
// Order: ascending (time, insertion sequence); two events at the same picosecond run in the
// order they were scheduled, so a run is deterministic. Cancel is by handle (lazy: the slot's
// generation is bumped and the stale entry is skipped when it surfaces). An event posted
// without a handle (post) has no slot and cannot be cancelled.
//
// Structure (a calendar queue with lazily sorted buckets, after Brown, CACM 31(10) 1988, and
// the ladder queue's idea of sorting a bucket only when it becomes current, Tang et al., ACM
// TOMACS 15(3) 2005), from the front:
//   run      the bucket being consumed, sorted by time when it became current
//   late     a small binary heap for events pushed later into the range already loaded
//   fine     unsorted vectors splitting the current coarse bucket, ~kTargetPerBucket each
//   coarse   unsorted chunk lists, bucket i covering [base + i*width, base + (i+1)*width),
//            ~kCoarseTarget each at the front
//   overflow an unsorted chunk list of everything at or beyond the last coarse bucket
// push appends to one bucket (O(1), one cache line touched); pop takes the smaller of the
// run's head and the heap's top. When the run is down to its last few entries the next
// non-empty fine bucket is sorted onto its end (so that a prefetch hint sees a few events
// ahead across a bucket's end); when those are spent the next coarse bucket is split into fine ones; when the
// coarse buckets are spent the overflow is re-spread over new ones, with a width from the
// density at the front of its time span. Every event moves O(1) times, so a hold costs O(1)
// expected.
//
// Buckets keep push order (entries are only appended, and moved in order), so a stable sort by
// time alone yields (time, push) order and stored entries need no sequence number.
// Two levels (a two-rung ladder) rather than one: with one level, 10^6 events need ~30 000
// buckets and every push and re-spread writes to a random one of them, a cache and TLB miss
// each; the coarse level has a few thousand buckets whose tails stay cached, and a coarse
// bucket is split while its fine buckets (reused for every coarse bucket) are in L1/L2.
// Widths are powers of two so that a push finds its bucket with a shift.
#pragma once

#include "core/units.hpp"

#include <cstdint>
#include <vector>

namespace fabricsim {

class Simulator;

// Where an event will first touch memory that went cold while it waited (a packet record, the
// port it left), as data: the event loop reads it two events ahead and starts those loads, so
// they overlap the two events before, without a call. An event whose arg has (arg & kind_mask) ==
// kind touches, in each array i with a base, the element ((arg >> shift[i]) & mask[i]) of
// 2^log2_size[i] bytes. The default matches no event. (No member prefetches: GCC 12 drops the
// call of an inline function whose only effect is a prefetch; the loop prefetches itself.)
struct PrefetchHint {
    std::uint64_t kind_mask = 0;
    std::uint64_t kind = 1;
    const void* base[2] = {nullptr, nullptr};
    std::uint64_t mask[2] = {0, 0};
    std::uint8_t shift[2] = {0, 0};
    std::uint8_t log2_size[2] = {0, 0};

    // Array i: the event touches element ((arg >> shift) & mask), of 2^log2_size bytes, of `at`.
    void set_array(int i, const void* at, std::uint8_t shift_by, std::uint64_t index_mask, std::uint8_t log2) {
        base[i] = at;
        shift[i] = shift_by;
        mask[i] = index_mask;
        log2_size[i] = log2;
    }
    bool matches(std::uint64_t arg) const { return (arg & kind_mask) == kind; }
    // The element of array i that event `arg` touches (null: no array i). Precondition: matches(arg).
    const void* address(int i, std::uint64_t arg) const {
        if (base[i] == nullptr) return nullptr;
        return static_cast<const char*>(base[i]) + (((arg >> shift[i]) & mask[i]) << log2_size[i]);
    }
};

// Receives events. The only per-event indirection is this one virtual call; `arg` lets one
// target tell its events apart (a port index, a timer kind) without allocating.
class EventTarget {
public:
    virtual void on_event(Simulator& sim, std::uint64_t arg) = 0;
    // What the loop prefetches for this target's next event (PrefetchHint; by default nothing).
    const PrefetchHint& prefetch_hint() const { return hint_; }

protected:
    ~EventTarget() = default;
    PrefetchHint hint_;  // a target keeps its bases current (a pool that moves when it grows)
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
    ~EventQueue();
    // Movable (the moved-from queue is empty), not copyable: buckets point into a chunk pool.
    EventQueue(EventQueue&& other) noexcept;
    EventQueue& operator=(EventQueue&& other) noexcept;

    EventHandle push(Time time, EventTarget* target, std::uint64_t arg);
    // push() for an event that is never cancelled: it takes no slot, so neither push nor pop
    // touches the slot table or its free list (most of a packet model's events are such).
    void post(Time time, EventTarget* target, std::uint64_t arg) {
        ++live_;
        place_fast(Entry{time, target, arg, kPosted, 0});
    }
    // True if the event was pending and is now cancelled; false if it already ran, was
    // cancelled before, or the handle is invalid.
    bool cancel(EventHandle handle);

    bool empty() const { return live_ == 0; }
    std::size_t size() const { return live_; }
    // Time of the next event to pop. Precondition: !empty().
    Time next_time();
    // Removes and returns the earliest event. Precondition: !empty().
    Event pop();
    // pop() if the earliest event is at or before `stop` (true), else nothing (false): an event
    // loop's next_time() and pop() in one, settling the queue once. Precondition: !empty().
    bool pop_until(Time stop, Event& out);
    // The sorted run holds at least this many entries (when as many are pending before the
    // overflow): the next bucket is sorted onto its end when it runs shorter, so that upcoming()
    // sees across a bucket's end. Pushes into that bucket's time span then go to the late heap.
    static constexpr std::size_t kLookahead = 3;
    // The target (and in `arg` the argument) of the event most likely to pop next, read
    // without settling the queue (null when that would take work): the next live entry of
    // the sorted run, which a later push or a late entry may yet overtake. For prefetch
    // hints only.
    const EventTarget* upcoming(std::uint64_t& arg) const { return upcoming(0, arg); }
    // The same for the event `ahead` entries after that one in the sorted run (null past the
    // run's end or for a cancelled entry): a hint may start loads several events early.
    const EventTarget* upcoming(std::size_t ahead, std::uint64_t& arg) const {
        const std::size_t i = run_pos_ + ahead;
        if (i >= run_end_ || (stale_ != 0 && stale(run_[i]))) return nullptr;
        arg = run_[i].arg;
        return run_[i].target;
    }

private:
    // A stored event. Buckets and the overflow are always in push order (entries are only ever
    // appended, and moved between containers in order), so they need no sequence number: a
    // stable sort by time puts a bucket in (time, push) order, and an entry gets a sequence
    // number only if it goes to the late heap. The payload travels with the entry, so pop()
    // reads no side table but the generation.
    struct Entry {
        Time time;
        EventTarget* target;
        std::uint64_t arg;
        std::uint32_t slot;
        std::uint32_t generation;
    };
    struct LateEntry {
        std::uint64_t seq;
        Entry entry;
    };
    struct SortKey {
        Time time;
        std::uint64_t index;
    };

    // Coarse buckets and the overflow are lists of fixed-size chunks from a pool that only
    // grows: no reallocation, no copying on growth, no pages returned to the OS and faulted in
    // again, and a chunk freed by a drain is the next one appended to, while still cached.
    static constexpr std::uint32_t kChunkEntries = 63;
    struct alignas(64) Chunk {
        Entry entries[kChunkEntries];
        Chunk* next;
    };
    struct ChunkList {
        Chunk* head = nullptr;
        Chunk* tail = nullptr;
        std::uint32_t tail_fill = kChunkEntries;  // entries in *tail; full when there is none
        std::uint64_t size = 0;
    };
    class ChunkPool {
    public:
        ChunkPool() = default;
        ChunkPool(const ChunkPool&) = delete;
        ChunkPool& operator=(const ChunkPool&) = delete;
        ~ChunkPool();
        void swap(ChunkPool& other) noexcept;
        Chunk* take() {
            if (__builtin_expect(free_.empty(), 0)) grow();
            Chunk* c = free_.back();
            free_.pop_back();
            return c;
        }
        void give(Chunk* c) { free_.push_back(c); }

    private:
        void grow();
        std::vector<Chunk*> free_;
        std::vector<void*> slabs_;
        std::size_t next_slab_chunks_ = 32;
    };

    // Bucket i covers offsets [i << shift, (i+1) << shift) from the level's start; buckets
    // [0, current) are spent, [count, buckets.size()) unused. Spent and unused ones are empty.
    template <class Bucket>
    struct Level {
        std::vector<Bucket> buckets;
        std::uint64_t count = 0;
        std::uint64_t current = 0;
        unsigned shift = 0;
    };
    // The buckets' sizes and the sorts' limits are event_queue.cpp's (kTargetPerBucket, ...).

    // Strict (time, seq) order; seq is unique, so two entries are never equivalent.
    static bool before(const LateEntry& a, const LateEntry& b) {
        return a.entry.time < b.entry.time || (a.entry.time == b.entry.time && a.seq < b.seq);
    }
    // The slot of a posted entry: it has none, and is never stale.
    static constexpr std::uint32_t kPosted = UINT32_MAX;
    bool stale(const Entry& e) const { return e.slot != kPosted && generations_[e.slot] != e.generation; }
    std::uint64_t offset(Time t) const {  // from base_; exact for any t >= base_
        return static_cast<std::uint64_t>(t.picoseconds()) - static_cast<std::uint64_t>(base_.picoseconds());
    }

    void append(ChunkList& list, const Entry& e) {
        if (__builtin_expect(list.tail_fill == kChunkEntries, 0)) add_chunk(list);
        list.tail->entries[list.tail_fill++] = e;
        ++list.size;
    }
    void add_chunk(ChunkList& list);
    static void prefetch_chunk(const Chunk* c);
    // Calls f on every entry of list in order, returning each chunk to the pool once read
    // (f may append to another list); list is left empty.
    template <class F>
    void drain(ChunkList& list, F f);

    void place_fast(const Entry& e);
    [[gnu::noinline]] void place(const Entry& e);
    void late_push(const Entry& e);
    void late_pop();
    // Makes the next event live and present (precondition: live_ > 0); true if it is the run's
    // head, false if it is the late heap's top.
    bool settle() {
        if (__builtin_expect(late_.empty() && run_pos_ < run_end_ && (stale_ == 0 || !stale(run_[run_pos_])), 1))
            return true;
        return settle_slow();
    }
    bool settle_slow();
    void take(bool from_run, Event& out);  // removes the settled front
    // Moves bucket's entries, sorted, onto the run's end (its unspent entries, all earlier,
    // moved to the front of run_ first).
    void start_run(std::vector<Entry>& bucket);
    [[gnu::noinline]] void extend_run();  // the next bucket onto the run, if one is loaded that cheaply
    bool counting_sort(const Entry* in, std::size_t n, Entry* out);
    void prefetch_generations(const std::vector<Entry>& bucket) const;
    bool load_fine();    // false when the fine buckets are spent
    bool load_coarse();  // false when the coarse buckets are spent
    void respread_overflow();
    void purge();                           // drops every stale entry; amortised against the cancels
    void swap(EventQueue& other) noexcept;  // every member: keep it in step with the list below
    std::uint32_t new_slot();
    void release(std::uint32_t slot) {
        ++generations_[slot];  // even: free; handles and entries of the old event go stale
        free_slots_.push_back(slot);
    }

    // Offsets are unsigned distances from base_, so no bucket bound is ever formed that could
    // overflow near Time::max(). The fine level splits coarse bucket (coarse_.current - 1),
    // which starts at fine_start_; when that bucket went straight to the run the fine level is
    // one spent bucket as wide as it. Everything before the first unspent fine bucket (or
    // before base_) is in the run or the late heap.
    // run_[0, run_end_) is the bucket being consumed, copied from its vector and sorted;
    // [0, run_pos_) is spent. Every late_ entry was pushed after every run_ entry, so on equal
    // times the run goes first. run_'s size is its storage, grown to the largest run and never
    // cleared, so that a new run is not zero-filled before it is written.
    std::vector<Entry> run_;
    std::size_t run_end_ = 0;
    std::size_t run_pos_ = 0;
    std::vector<LateEntry> late_;           // binary min-heap on (time, seq)
    std::uint64_t late_seq_ = 0;            // push order of late_'s entries
    std::vector<SortKey> sort_keys_;        // for sorting large buckets, kept for capacity
    std::vector<Entry> sort_scratch_;       // a small coarse bucket on its way to the run
    std::vector<std::uint8_t> sort_class_;  // counting sort: each entry's distinct time
    Level<std::vector<Entry>> fine_;        // small and reused: stays in L1/L2
    Level<ChunkList> coarse_;
    ChunkList overflow_;  // coarse index >= coarse_.count
    ChunkPool pool_;
    std::vector<std::int64_t> sample_;  // re-spread's width estimate, kept for capacity
    Time base_ = Time::ps(INT64_MIN);   // offset 0 of the coarse level
    std::uint64_t fine_start_ = 0;      // offset of the fine level's bucket 0

    // A slot's generation is odd while its event is pending; 4 bytes a slot keep the table
    // cache-resident, since it is the one random access of a pop.
    std::vector<std::uint32_t> generations_;
    std::vector<std::uint32_t> free_slots_;  // LIFO: a pop's slot is the next push's
    std::size_t live_ = 0;
    std::size_t stale_ = 0;  // cancelled entries still stored somewhere
};

// The hot path is inline: a hold (pop + push) touches the run's head, one generation and one
// bucket's tail.

inline void EventQueue::late_push(const Entry& entry) {
    const LateEntry e{late_seq_++, entry};
    late_.push_back(e);
    LateEntry* h = late_.data();
    std::size_t hole = late_.size() - 1;
    while (hole > 0) {
        const std::size_t parent = (hole - 1) / 2;
        if (!before(e, h[parent])) break;
        h[hole] = h[parent];
        hole = parent;
    }
    h[hole] = e;
}

// Floyd's pop: walk the hole down to a leaf along the smaller children, then sift the last
// entry up from there (it usually belongs near the bottom, so this saves a compare per level).
inline void EventQueue::late_pop() {
    const LateEntry last = late_.back();
    late_.pop_back();
    const std::size_t n = late_.size();
    if (n == 0) return;
    LateEntry* h = late_.data();
    std::size_t hole = 0;
    std::size_t child = 1;
    while (child + 1 < n) {
        child += before(h[child + 1], h[child]) ? 1 : 0;
        h[hole] = h[child];
        hole = child;
        child = 2 * hole + 1;
    }
    if (child < n) {
        h[hole] = h[child];
        hole = child;
    }
    while (hole > 0) {
        const std::size_t parent = (hole - 1) / 2;
        if (!before(last, h[parent])) break;
        h[hole] = h[parent];
        hole = parent;
    }
    h[hole] = last;
}

// The common cases inline: a coarse bucket ahead of the one being consumed, with room in its
// last chunk, or a fine bucket of the one being consumed, with room in its vector. The rest
// (the late heap, the overflow, a new chunk) in place(), out of line, so that the inline path
// keeps few registers live.
inline void EventQueue::place_fast(const Entry& e) {
    if (__builtin_expect(e.time >= base_, 1)) {
        const std::uint64_t off = offset(e.time);
        const std::uint64_t coarse = off >> coarse_.shift;
        if (coarse >= coarse_.current) {
            if (coarse < coarse_.count) {
                ChunkList& list = coarse_.buckets[coarse];
                if (__builtin_expect(list.tail_fill != kChunkEntries, 1)) {
                    list.tail->entries[list.tail_fill++] = e;
                    ++list.size;
                    return;
                }
            }
        } else if (off >= fine_start_) {
            const std::uint64_t fine = (off - fine_start_) >> fine_.shift;
            if (fine >= fine_.current) {
                std::vector<Entry>& bucket = fine_.buckets[fine];
                if (__builtin_expect(bucket.size() != bucket.capacity(), 1)) {
                    bucket.push_back(e);
                    return;
                }
            }
        }
    }
    place(e);
}

inline EventHandle EventQueue::push(Time time, EventTarget* target, std::uint64_t arg) {
    std::uint32_t index;
    if (__builtin_expect(free_slots_.empty(), 0)) {
        index = new_slot();
    } else {
        index = free_slots_.back();
        free_slots_.pop_back();
    }
    const std::uint32_t generation = ++generations_[index];
    ++live_;
    place_fast(Entry{time, target, arg, index, generation});
    return EventHandle{index, generation};
}

inline Time EventQueue::next_time() { return settle() ? run_[run_pos_].time : late_.front().entry.time; }

inline void EventQueue::take(bool from_run, Event& out) {
    const Entry& top = from_run ? run_[run_pos_] : late_.front().entry;
    out = Event{top.time, top.target, top.arg};
    if (top.slot != kPosted) release(top.slot);
    if (__builtin_expect(from_run, 1)) {
        ++run_pos_;
        if (__builtin_expect(run_end_ - run_pos_ < kLookahead, 0)) extend_run();
    } else {
        late_pop();
    }
    --live_;
}

inline Event EventQueue::pop() {
    Event event;
    take(settle(), event);
    return event;
}

inline bool EventQueue::pop_until(Time stop, Event& out) {
    const bool from_run = settle();
    if ((from_run ? run_[run_pos_].time : late_.front().entry.time) > stop) return false;
    take(from_run, out);
    return true;
}

}  // namespace fabricsim
