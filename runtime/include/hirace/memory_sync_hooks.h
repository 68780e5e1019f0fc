// Synchronisation through memory on the device (docs/memory-model.md; only in units built with
// HIRACE_MEMORY_SYNC=1, which the planner defines where a unit has fences or ordered atomics): the
// launch's record (g_memsync, set by the host at each launch: host_launch.h prepare_memory_sync), the
// calling thread as the record knows it, and the hooks the planner puts at fences (after_fence), before
// block barriers (before_block_barrier) and around strong accesses (the check's `how`: check.h).
#ifndef HIRACE_MEMORY_SYNC_HOOKS_H
#define HIRACE_MEMORY_SYNC_HOOKS_H

#include "clocks.h"
#include "memory_sync.h"

namespace hirace {

// The launch's record (all zero: not followed in this launch; each unit its own copy, as g_launch)
static CCTK_CONSTANT memsync::MemorySync g_memsync;

namespace memsync {

// What a hook does (hirace/planner.py MEMORY_HOW, the same values): the strong access (kOp bits:
// kLoad, kStore, kRmw, or kCas: a read-modify-write never taken for a release, as a compare-and-swap that
// may have failed is only a read), its scope, the fences an ordered libcu++ operation implies around it
// (release: one before that only releases; seq_cst: a full one before; acquire: one after that only
// acquires), kThenStore: a volatile compound assignment, a load and then a store; kVolatile: a volatile
// access (check.h vrd), which the state machine takes as a plain one in shared memory (volatile_kind);
// kHeld: a CUDA atomic's access, wrapped in strong_done, so that on the GPU the record's lock stays held
// from the access's part in the record until the atomic happened (strong_access).
enum How : unsigned {
  kOpMask = 3, kCas = 3, kDeviceScope = 4, kReleaseBefore = 8, kFullBefore = 16, kAcquireAfter = 32,
  kStrong = 64, kThenStore = 128, kVolatile = 256, kHeld = 512
};

}  // namespace memsync
inline namespace HIRACE_UNIT_CONFIG {   // (config.h: this unit's configuration's own)

// The state machine's access for a volatile one (docs/memory-model.md, "The device wiring"): in global
// memory a strong access (an atomic of device scope: strong accesses of one word do not race), in shared
// memory a plain read or write, as warp-synchronous code that relies on volatile alone is a race by this
// project's labels; a flag's load or store in the record either way
CCTK_D inline fsm::Access volatile_kind(fsm::Access kind, unsigned how, unsigned space, bool *then_write) {
  if (!(how & memsync::kVolatile) || space != kShared) return kind;
  *then_write = (how & memsync::kThenStore) != 0;
  return (how & memsync::kOpMask) == memsync::kStore ? fsm::kWrite : fsm::kRead;
}

// The calling thread as the record knows it (its block in the launch, its clocks), where the launch's
// record follows it: false where memory is not followed in this launch, or not for this thread's block
// (a grid past the blocks the record keeps: host_launch.h)
CCTK_D inline bool memory_thread_now(memsync::Thread *t) {
  const memsync::MemorySync &m = g_memsync;
  if (!g_launch.enabled || !m.stamp) return false;
  const unsigned bid = linear_bid();
  if (bid >= m.blocks) return false;
  const unsigned *clk = thread_clocks();
  *t = memsync::Thread{bid, linear_tid(), BlockWord::count(clk[0]), WarpWord::count(clk[1]), WarpWord::marks(clk[1])};
  return true;
}

// A fence of `scope` by t that releases (its position: the thread's warp clock marked first, where it
// made a plain access since its last mark; without one, the records since the last mark are those of
// strong accesses only, and the position at the current clock takes them as after the fence: fewer
// orderings, never more) and, where `acquire`, acquires its pending read. t's clocks move with the mark.
CCTK_D inline void fence_step(const memsync::MemorySync &m, memsync::Thread *t, unsigned scope, bool release,
                              bool acquire) {
  using namespace memsync;
  if (!release) {
    memsync::acquire(m, *t, scope);
    return;
  }
  ThreadSync &me = thread_sync(m, *t);
  unsigned wclk_after = t->wclk;
  if (me.accessed) {
    me.accessed = 0;
    after_fence_mark();
    const unsigned w = thread_clocks()[1];
    wclk_after = WarpWord::count(w);
  }
  if (acquire) {
    fence(m, *t, wclk_after, scope);
  } else {
    me.fence = ThreadSync::kFenced | (scope & 1u) << ThreadSync::kScopeShift | Point::make(t->tid, t->bclk, wclk_after);
  }
  t->wclk = wclk_after;
  t->marks = WarpWord::marks(thread_clocks()[1]);
}

// After a fence (__threadfence: kFullBefore | kDeviceScope; libcu++'s atomic_thread_fence by its order):
// hirace/planner.py wraps it as `(__threadfence(), ::hirace::after_fence(20u))`
CCTK_D inline void after_fence(unsigned how) {
  memsync::Thread t;
  if (!memory_thread_now(&t)) return;
  const memsync::MemorySync &m = g_memsync;
  memsync::Guard hold(m.lock);
  const unsigned scope = how & memsync::kDeviceScope ? memsync::kDevice : memsync::kBlock;
  fence_step(m, &t, scope, (how & (memsync::kFullBefore | memsync::kReleaseBefore)) != 0,
             (how & (memsync::kFullBefore | memsync::kAcquireAfter)) != 0);
}

// Before a barrier of the whole block (`(::hirace::before_block_barrier(), __syncthreads(), ...)`): the
// barrier completes the thread's acquire and is a fence of block scope (memsync::barrier). Done by each
// thread as it arrives, so that every thread's part is done before any thread leaves the barrier (the
// block's knowledge a thread learnt reaches the others as they pass it).
CCTK_D inline void before_block_barrier() {
  memsync::Thread t;
  if (!memory_thread_now(&t)) return;
  const memsync::MemorySync &m = g_memsync;
  memsync::Guard hold(m.lock);
  memsync::barrier(m, t, t.bclk < BlockWord::kWrapped ? t.bclk + 1 : t.bclk);
  memsync::thread_sync(m, t).accessed = 0;   // (the barrier's position is past every record of the thread)
}

// A plain access was checked: the thread's next releasing fence marks its warp clock
CCTK_D inline void note_plain_access() {
  memsync::Thread t;
  if (memory_thread_now(&t)) memsync::thread_sync(g_memsync, t).accessed = 1;
}

// Before a strong access is checked: the fence an ordered operation implies before it
CCTK_D inline void strong_before(unsigned how) {
  if (!(how & (memsync::kFullBefore | memsync::kReleaseBefore))) return;
  after_fence(how & (memsync::kDeviceScope | memsync::kFullBefore | memsync::kReleaseBefore));
}

// After a strong access of the word whose shadow is `word` was checked, right before it happens (nothing
// that may switch fibers comes between, on the cpu backend): the flag's part (memsync::strong), and the
// acquire an ordered operation implies after it. A word without a slot (the table full) orders nothing;
// a read of it still ends the thread's pending read.
// On the GPU, an access with kHeld keeps the lock until strong_done, after the access: a release's part
// in the record then comes before its write is seen, and a read's part after every release whose write
// it may see; without it, a release between a read's part and the read itself, seen by the read, is not
// acquired by the fence after it (a false alarm), or one recorded before but written after the read is
// (a missed race): the window docs/memory-model.md names for `volatile` flags and libcu++ atomics.
CCTK_D inline void strong_access(unsigned long long *word, unsigned how) {
  using namespace memsync;
  const MemorySync &m = g_memsync;
  if (!g_launch.enabled || !m.stamp) return;
  Guard hold(m.lock);
  if (how & kHeld) hold.keep();
  const unsigned slot = find_slot(m, (unsigned long long)word, true);
  Thread t;
  const bool followed = memory_thread_now(&t);
  const unsigned op = how & kOpMask, scope = how & kDeviceScope ? unsigned(kDevice) : unsigned(kBlock);
  const unsigned first = op == kCas ? unsigned(kLoad) : op;
  if (slot == kNoSlot) {
    if (followed && first != kStore) thread_sync(m, t).read = 0;
    return;
  }
  if (!followed) {
    strong_unfollowed(m, first, slot);
    if (how & kThenStore) strong_unfollowed(m, kStore, slot);
    return;
  }
  strong(m, t, first, scope, slot);
  if (how & kThenStore) strong(m, t, kStore, scope, slot);
  if ((how & kAcquireAfter) && first != kStore) memsync::acquire(m, t, scope);
}

// Around a CUDA atomic whose address strong_device/strong_block checked with kHeld
// (`::hirace::strong_done(atomicAdd(::hirace::strong_device(&f[i], 8u, 582u), 1))`): the atomic happened,
// the record's lock goes (where this thread holds it); its value passes through
template <class T> CCTK_D inline T strong_done(T value) {
  memsync::release(g_memsync.lock);
  return value;
}

}  // inline namespace HIRACE_UNIT_CONFIG
}  // namespace hirace

#endif  // HIRACE_MEMORY_SYNC_HOOKS_H
