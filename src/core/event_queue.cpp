// The event queue's cold paths: loading buckets, re-spreading the overflow, purging stale
// entries, the chunk pool and the slot table. The per-event path (push, pop) is inline in the
// header.
#include "core/event_queue.hpp"

#include "core/errors.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <new>
#include <utility>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace fabricsim {

namespace {
using u128 = unsigned __int128;

constexpr std::size_t kTargetPerBucket = 8;  // fine buckets: the sort's size
constexpr std::size_t kCoarseTarget = 2048;  // coarse buckets
constexpr std::size_t kMaxCoarse = 4096;
constexpr std::size_t kInsertionMax = 16;  // larger runs: counting sort or key sort
constexpr std::size_t kMaxDistinct = 16;   // the counting sort's limit
// Times sampled from the overflow to estimate its density near the front.
constexpr std::size_t kSample = 128;
// The coarse window covers this many times the span the overflow would take at its front
// density: an exponential tail beyond it is e^-4 of the events, and a near-FIFO queue, which
// pushes just beyond its current span, pushes into buckets instead of the overflow for the
// first three quarters of the window.
constexpr std::uint64_t kWindowStretch = 4;
// Below this many stale entries a purge is not worth its scan.
constexpr std::size_t kPurgeMin = 1024;
// A coarse bucket this small becomes the run itself instead of being split.
constexpr std::size_t kSplitMin = 64;
constexpr unsigned kMaxFineBits = 16;
// Prefetch the generations of a bucket only when it is small enough for them to stay cached.
constexpr std::size_t kPrefetchMax = 256;
// Slabs double up to 2 MiB, the huge-page size: a queue of 10^6 events then costs the TLB a
// few dozen entries instead of thousands.
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}  // namespace

// ---- chunk pool ----------------------------------------------------------------------------

void EventQueue::ChunkPool::swap(ChunkPool& other) noexcept {
    free_.swap(other.free_);
    slabs_.swap(other.slabs_);
    std::swap(next_slab_chunks_, other.next_slab_chunks_);
}

EventQueue::ChunkPool::~ChunkPool() {
    for (void* slab : slabs_) std::free(slab);
}

void EventQueue::ChunkPool::grow() {
    const std::size_t bytes = next_slab_chunks_ * sizeof(Chunk);
    const std::size_t align = bytes >= kHugePage ? kHugePage : alignof(Chunk);
    void* slab = std::aligned_alloc(align, bytes);
    if (slab == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= kHugePage) madvise(slab, bytes, MADV_HUGEPAGE);  // advice only: ignore failure
#endif
    slabs_.push_back(slab);
    Chunk* chunks = static_cast<Chunk*>(slab);
    free_.reserve(free_.size() + next_slab_chunks_);
    for (std::size_t i = next_slab_chunks_; i-- > 0;) free_.push_back(&chunks[i]);
    if (bytes < kHugePage) next_slab_chunks_ *= 2;
}

void EventQueue::add_chunk(ChunkList& list) {
    Chunk* c = pool_.take();
    c->next = nullptr;
    if (list.tail != nullptr) {
        list.tail->next = c;
    } else {
        list.head = c;
    }
    list.tail = c;
    list.tail_fill = 0;
}

// A list's chunks lie anywhere in the pool, so the hardware prefetcher loses the stream at every
// chunk boundary (and a coarse bucket is usually out of cache when it is split): a walk asks for
// the next chunk while it reads the current one.
void EventQueue::prefetch_chunk(const Chunk* c) {
    if (c == nullptr) return;
    const char* bytes = reinterpret_cast<const char*>(c);
    for (std::size_t line = 0; line < sizeof(Chunk); line += 64) __builtin_prefetch(bytes + line);
}

template <class F>
void EventQueue::drain(ChunkList& list, F f) {
    const ChunkList old = std::exchange(list, ChunkList{});
    for (Chunk* c = old.head; c != nullptr;) {
        const std::uint32_t n = c == old.tail ? old.tail_fill : kChunkEntries;
        prefetch_chunk(c->next);
        for (std::uint32_t i = 0; i < n; ++i) f(c->entries[i]);
        Chunk* next = c->next;
        pool_.give(c);
        c = next;
    }
}

// ---- queue ---------------------------------------------------------------------------------

void EventQueue::place(const Entry& e) {
    if (e.time < base_) {
        late_push(e);
        return;
    }
    const std::uint64_t off = offset(e.time);
    const std::uint64_t coarse = off >> coarse_.shift;
    if (coarse >= coarse_.current) {
        if (coarse < coarse_.count) {
            append(coarse_.buckets[coarse], e);
        } else {
            append(overflow_, e);
        }
        return;
    }
    // In the coarse bucket being consumed (or an earlier one): a fine bucket or the late heap.
    if (off >= fine_start_) {
        const std::uint64_t fine = (off - fine_start_) >> fine_.shift;
        if (fine >= fine_.current) {
            fine_.buckets[fine].push_back(e);
            return;
        }
    }
    late_push(e);
}

EventQueue::EventQueue() = default;
EventQueue::~EventQueue() = default;

EventQueue::EventQueue(EventQueue&& other) noexcept { swap(other); }

EventQueue& EventQueue::operator=(EventQueue&& other) noexcept {
    EventQueue taken(std::move(other));
    swap(taken);
    return *this;
}

void EventQueue::swap(EventQueue& o) noexcept {
    using std::swap;
    swap(run_, o.run_);
    swap(run_end_, o.run_end_);
    swap(run_pos_, o.run_pos_);
    swap(late_, o.late_);
    swap(late_seq_, o.late_seq_);
    swap(sort_keys_, o.sort_keys_);
    swap(sort_scratch_, o.sort_scratch_);
    swap(sort_class_, o.sort_class_);
    swap(fine_, o.fine_);
    swap(coarse_, o.coarse_);
    swap(overflow_, o.overflow_);
    pool_.swap(o.pool_);
    swap(sample_, o.sample_);
    swap(base_, o.base_);
    swap(fine_start_, o.fine_start_);
    swap(generations_, o.generations_);
    swap(free_slots_, o.free_slots_);
    swap(live_, o.live_);
    swap(stale_, o.stale_);
}

std::uint32_t EventQueue::new_slot() {
    if (generations_.size() >= UINT32_MAX)  // UINT32_MAX: the invalid handle's slot, a posted entry's
        throw InternalError("EventQueue: more than 2^32 - 1 events pending at once");
    generations_.push_back(0);
    return static_cast<std::uint32_t>(generations_.size() - 1);
}

bool EventQueue::cancel(EventHandle handle) {
    if (handle.slot >= generations_.size()) return false;
    const std::uint32_t generation = generations_[handle.slot];
    if (generation != handle.generation || generation % 2 == 0) return false;
    // The slot is free for reuse at once: its entry is now stale (generation mismatch) and is
    // dropped when it surfaces, whatever event takes the slot next.
    release(handle.slot);
    --live_;
    ++stale_;
    if (live_ == 0 || (stale_ >= kPurgeMin && stale_ > live_)) purge();
    return true;
}

bool EventQueue::settle_slow() {
    for (;;) {
        const bool has_run = run_pos_ < run_end_;
        if (has_run || !late_.empty()) {
            const bool from_run = has_run && (late_.empty() || run_[run_pos_].time <= late_.front().entry.time);
            if (stale_ == 0 || !stale(from_run ? run_[run_pos_] : late_.front().entry)) return from_run;
            if (from_run) {
                ++run_pos_;
            } else {
                late_pop();
            }
            --stale_;
            continue;
        }
        run_end_ = 0;
        run_pos_ = 0;
        if (load_fine() || load_coarse()) continue;
        if (overflow_.size == 0) throw InternalError("EventQueue: next_time() or pop() on an empty queue");
        respread_overflow();
    }
}

// A bucket is in push order, so sorting it stably by time alone gives (time, push) order.
// Small buckets take an insertion sort, which is linear on the already sorted buckets that
// near-FIFO traffic produces. Larger ones usually hold a few distinct times, many times over:
// symmetric traffic (a permutation's flows at equal rates) finishes hops at the same
// picosecond, and a bucket of 64-255 entries then holds about three distinct times (the
// packet model's perm-128-h100). Those take a stable counting sort over their distinct
// times, two linear passes; a bucket with more distinct times sorts keys that carry the
// position, so no stable sort (and no allocation) is needed.
void EventQueue::start_run(std::vector<Entry>& bucket) {
    const std::size_t n = bucket.size();
    const std::size_t keep = run_end_ - run_pos_;  // a run extended before it is spent (extend_run)
    if (keep != 0 && run_pos_ != 0)
        std::copy(run_.begin() + static_cast<std::ptrdiff_t>(run_pos_),
                  run_.begin() + static_cast<std::ptrdiff_t>(run_end_), run_.begin());
    if (run_.size() < keep + n) run_.resize(keep + n);  // it only grows to its peak
    run_end_ = keep + n;
    run_pos_ = 0;
    const Entry* in = bucket.data();
    Entry* v = run_.data() + keep;
    if (n <= kInsertionMax) {
        for (std::size_t i = 0; i < n; ++i) {
            const Entry x = in[i];
            std::size_t j = i;
            for (; j > 0 && v[j - 1].time > x.time; --j) v[j] = v[j - 1];
            v[j] = x;
        }
    } else if (!counting_sort(in, n, v)) {
        sort_keys_.clear();
        for (std::size_t i = 0; i < n; ++i) sort_keys_.push_back(SortKey{in[i].time, i});
        std::sort(sort_keys_.begin(), sort_keys_.end(), [](const SortKey& a, const SortKey& b) {
            return a.time < b.time || (a.time == b.time && a.index < b.index);
        });
        for (std::size_t i = 0; i < n; ++i) v[i] = in[sort_keys_[i].index];
    }
    bucket.clear();
}

// Writes in[0, n) to out sorted stably by time if it holds at most kMaxDistinct distinct times
// (true); false otherwise. Pass 1 numbers each entry's time among the distinct ones seen so
// far (the last one matched is tried first: ties come in stretches); pass 2 places each entry
// at the next free position of its time's range.
bool EventQueue::counting_sort(const Entry* in, std::size_t n, Entry* out) {
    Time times[kMaxDistinct];
    std::uint32_t first[kMaxDistinct];  // per distinct time: its count, then its next position
    std::size_t distinct = 0;
    std::size_t last = 0;
    bool sorted = true;
    if (sort_class_.size() < n) sort_class_.resize(n);
    std::uint8_t* cls = sort_class_.data();
    for (std::size_t i = 0; i < n; ++i) {
        const Time t = in[i].time;
        if (distinct == 0 || t != times[last]) {
            sorted = sorted && (distinct == 0 || t > times[last]);
            std::size_t j = 0;
            while (j < distinct && times[j] != t) ++j;
            if (j == distinct) {
                if (distinct == kMaxDistinct) return false;
                times[distinct] = t;
                first[distinct++] = 0;
            }
            last = j;
        }
        ++first[last];
        cls[i] = static_cast<std::uint8_t>(last);
    }
    if (sorted) {
        std::copy(in, in + n, out);
        return true;
    }
    // Rank the distinct times (first-seen order to ascending), then each rank's start.
    std::uint8_t order[kMaxDistinct];
    for (std::size_t j = 0; j < distinct; ++j) {
        std::size_t k = j;
        for (; k > 0 && times[order[k - 1]] > times[j]; --k) order[k] = order[k - 1];
        order[k] = static_cast<std::uint8_t>(j);
    }
    std::uint32_t at = 0;
    for (std::size_t k = 0; k < distinct; ++k) {
        const std::uint32_t count = first[order[k]];
        first[order[k]] = at;
        at += count;
    }
    for (std::size_t i = 0; i < n; ++i) out[first[cls[i]]++] = in[i];
    return true;
}

// pop() reads each entry's generation, a random access into a table of one word per pending
// event; start those loads a bucket ahead so that they are cached when the bucket is popped.
void EventQueue::prefetch_generations(const std::vector<Entry>& bucket) const {
    if (bucket.size() > kPrefetchMax) return;
    for (const Entry& e : bucket)
        if (e.slot != kPosted) __builtin_prefetch(&generations_[e.slot]);
}

bool EventQueue::load_fine() {
    while (fine_.current < fine_.count) {
        std::vector<Entry>& bucket = fine_.buckets[fine_.current++];
        if (bucket.empty()) continue;
        start_run(bucket);
        if (fine_.current < fine_.count) prefetch_generations(fine_.buckets[fine_.current]);
        return true;
    }
    return false;
}

// The next non-empty coarse bucket, split into fine buckets of which the first is loaded (or
// loaded whole when small); false when none is left before the overflow.
// The empty buckets before it are passed over only when one is found: with none, they stay
// unspent, as the fine level still names the bucket before them (extend_run() asks while the
// run still holds that bucket's events, and the events they run may push into the empty ones).
bool EventQueue::load_coarse() {
    for (;;) {
        std::uint64_t index = coarse_.current;
        while (index < coarse_.count && coarse_.buckets[index].size == 0) ++index;
        if (index == coarse_.count) return false;
        coarse_.current = index + 1;
        ChunkList& bucket = coarse_.buckets[index];
        fine_start_ = index << coarse_.shift;
        if (bucket.size <= kSplitMin || coarse_.shift == 0) {
            fine_.shift = coarse_.shift;  // one spent fine bucket: pushes into it go to late_
            fine_.count = fine_.current = 1;
            drain(bucket, [this](const Entry& e) { sort_scratch_.push_back(e); });  // it was empty
            prefetch_generations(sort_scratch_);
            start_run(sort_scratch_);
            return true;
        }
        unsigned bits = static_cast<unsigned>(std::bit_width((bucket.size - 1) / kTargetPerBucket));
        bits = std::min({bits, coarse_.shift, kMaxFineBits});
        fine_.shift = coarse_.shift - bits;
        fine_.count = std::uint64_t{1} << bits;
        fine_.current = 0;
        while (fine_.buckets.size() < fine_.count) {
            fine_.buckets.emplace_back();
            fine_.buckets.back().reserve(4 * kTargetPerBucket);  // rarely outgrown: no allocation later
        }
        drain(bucket, [this](const Entry& e) {
            if (stale_ != 0 && stale(e)) {
                --stale_;
                return;
            }
            fine_.buckets[(offset(e.time) - fine_start_) >> fine_.shift].push_back(e);
        });
        if (load_fine()) return true;  // else every entry was stale
    }
}

// Every bucket's entries lie after the run's (buckets are consumed in time order), so the next
// one sorted onto the run's end keeps it in order. The overflow's re-spread waits until the run
// is spent: it moves the levels' base.
void EventQueue::extend_run() {
    if (!load_fine()) load_coarse();
}

// Called when everything but the overflow is spent. Picks a coarse width (a power of two) for
// about kCoarseTarget events per bucket at the density of the overflow's front quarter, and
// buckets for kWindowStretch times the span the overflow would take at that density; the rest
// waits for the next re-spread. Estimating from the front, not from the whole span, keeps a few
// far-future timers (or an exponential tail) from piling everything into the first bucket.
void EventQueue::respread_overflow() {
    // Pass 1: span and a strided sample of the live entries.
    const std::size_t stride = std::max<std::size_t>(1, overflow_.size / kSample);
    std::size_t n = 0;
    std::size_t until_sample = 0;
    std::int64_t lo = INT64_MAX;
    std::int64_t hi = INT64_MIN;
    sample_.clear();
    for (Chunk* c = overflow_.head; c != nullptr; c = c->next) {
        const std::uint32_t fill = c == overflow_.tail ? overflow_.tail_fill : kChunkEntries;
        prefetch_chunk(c->next);
        for (std::uint32_t i = 0; i < fill; ++i) {
            const Entry& e = c->entries[i];
            if (until_sample-- == 0) {
                sample_.push_back(e.time.picoseconds());
                until_sample = stride - 1;
            }
            if (stale_ != 0 && stale(e)) continue;
            ++n;
            lo = std::min(lo, e.time.picoseconds());
            hi = std::max(hi, e.time.picoseconds());
        }
    }
    coarse_.current = 0;
    coarse_.count = 0;
    if (n == 0) {  // only stale entries
        stale_ -= overflow_.size;
        drain(overflow_, [](const Entry&) {});
        return;
    }

    base_ = Time::ps(lo);
    const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    unsigned shift;
    std::uint64_t count;
    if (n <= kSplitMin) {
        shift = std::min(static_cast<unsigned>(std::bit_width(span)), 63U);  // one bucket (two at 2^63+)
        count = (span >> shift) + 1;
    } else {
        // Sampled times of stale entries are as good a density estimate as live ones, but a
        // stale one may lie before lo: clamp it.
        for (std::int64_t& t : sample_) t = static_cast<std::int64_t>(offset(Time::ps(std::max(t, lo))));
        const std::size_t samples = sample_.size();
        const std::size_t rank = samples / 4;
        std::nth_element(sample_.begin(), sample_.begin() + static_cast<std::ptrdiff_t>(rank), sample_.end(),
                         [](std::int64_t a, std::int64_t b) {
                             return static_cast<std::uint64_t>(a) < static_cast<std::uint64_t>(b);
                         });
        // About n*(rank+1)/samples events lie in [lo, lo + front); at that density all n would
        // take `stretch`. The window may reach beyond hi: that is where new events land.
        const u128 front = u128{static_cast<std::uint64_t>(sample_[rank])} + 1;
        const u128 stretch = front * samples / (rank + 1);
        const u128 window = stretch * kWindowStretch;
        u128 width = std::max(stretch * kCoarseTarget / n, window / kMaxCoarse);
        width = std::clamp(width, u128{1}, u128{1} << 63);
        shift = static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(width))) - 1;
        count = static_cast<std::uint64_t>(std::min<u128>((window >> shift) + 1, kMaxCoarse));
    }
    coarse_.shift = shift;
    coarse_.count = count;
    if (coarse_.buckets.size() < count) {
        coarse_.buckets.reserve(std::clamp<std::size_t>(2 * count, 64, kMaxCoarse));
        coarse_.buckets.resize(count);
    }

    // Pass 2: distribute; what lies beyond the last bucket goes back to the overflow, in order.
    drain(overflow_, [this, shift, count](const Entry& e) {
        if (stale_ != 0 && stale(e)) {
            --stale_;
            return;
        }
        const std::uint64_t index = offset(e.time) >> shift;
        if (index < count) {
            append(coarse_.buckets[index], e);
        } else {
            append(overflow_, e);
        }
    });
}

void EventQueue::purge() {
    const auto is_stale = [this](const Entry& e) { return stale(e); };
    run_.resize(run_end_);
    run_.erase(run_.begin(), run_.begin() + static_cast<std::ptrdiff_t>(run_pos_));
    run_pos_ = 0;
    std::erase_if(run_, is_stale);
    run_end_ = run_.size();
    std::erase_if(late_, [this](const LateEntry& e) { return stale(e.entry); });
    std::make_heap(late_.begin(), late_.end(), [](const LateEntry& a, const LateEntry& b) { return before(b, a); });
    for (std::uint64_t i = fine_.current; i < fine_.count; ++i) std::erase_if(fine_.buckets[i], is_stale);
    // Rebuilding a list in place is safe: drain reads a chunk before returning it to the pool.
    const auto rebuild = [this](ChunkList& list) {
        ChunkList kept;
        drain(list, [this, &kept](const Entry& e) {
            if (!stale(e)) append(kept, e);
        });
        list = kept;
    };
    for (std::uint64_t i = coarse_.current; i < coarse_.count; ++i) rebuild(coarse_.buckets[i]);
    rebuild(overflow_);
    stale_ = 0;
    if (live_ == 0) coarse_.current = coarse_.count = 0;  // all empty: later purges cost O(1)
}

}  // namespace fabricsim
