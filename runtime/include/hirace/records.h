// hirace's records, shared by the device and the host: the monitored ranges (a buffer with its
// redzones, or hirace's own memory), a race and an out-of-bounds access as the device logs them, the
// entries of the logs, the prior-site slots each shadow word may keep and the site words in them,
// and the constants that size them (the pending launches, the sinks, the quiet candidates).
#ifndef HIRACE_RECORDS_H
#define HIRACE_RECORDS_H

#include "config.h"
#include "update.h"

#include "cudacommon/protocol.h"
#include "cudacommon/qualifiers.h"

namespace hirace {

// the memory space of an access (instrument/protocol.py Space)
using Space = ::cctk::Space;
using ::cctk::kGlobal;
using ::cctk::kShared;

// One monitored global range: a buffer of the program, [base, base + size), with the
// redzones hirace put around it, [base - redzone, base) and [base + size, base + size + redzone),
// or memory of hirace's own (kind kToolMemory: no access of the program belongs there).
enum RangeKind : unsigned { kUserBuffer = 0, kToolMemory = 1 };
struct Range {
  unsigned long long base, size, redzone;
  unsigned long long *shadow;
  unsigned *sites;  // kSiteSlots per word (only with prior_sites): see check()
  unsigned id;      // the host's buffer id, for reports
  unsigned kind;
  unsigned shift;   // its shadow word covers 1 << shift bytes (host_granularity.h)
};

// A race as the device records it; the host turns it into a report.
// Launches run without waiting for each other (see host_launch.h before_launch): up to kPendingLaunches
// of them log into one race log before the host reads it, each record naming its launch's slot.
constexpr unsigned kPendingLaunches = HIRACE_PENDING_LAUNCHES;   // (its default: cudacommon/protocol.h)

struct RaceRecord {
  unsigned site, prior_site, tid, bid, prior_tid, prior_bid, prior_state, access, space, buffer;
  unsigned long long offset;  // bytes from the buffer (or shared window) start (the device gives its word: host_readback.h)
  unsigned count;             // word-level races folded into this record (on the device: LogEntry::count)
  unsigned slot;              // the launch's pending slot (LaunchState::slot)
};

// An out-of-bounds access site as the device records it: the first access, and how many.
constexpr unsigned kNoBuffer = ~0u;  // outside every buffer, or a declared array (the site names it)
struct MemRecord {
  unsigned site, tid, bid, access, space, buffer;
  long long offset;          // bytes from the buffer's (array's) start; negative: before it
  unsigned long long limit;  // the buffer's (array's) bytes
  unsigned size, count;      // count: accesses folded into this record (on the device: LogEntry::count)
  unsigned slot;             // the pending slot of the launch that made the first access
};

// An entry of a log (see log_record).
template <class R> struct LogEntry {
  unsigned long long key;   // 0: empty
  unsigned count;           // accesses folded into the record
  unsigned seq;             // the record's number in the order they were made
  R r;
};

// With prior_sites, each word keeps its last access's site and thread, and the site and thread of
// the last access by another thread: a race found against a level several threads share (the
// shadow names this very thread) is then reported with the other thread's access.
// A slot's thread is (block << kSiteTidBits) | thread in block, its block numbered across launches
// from LaunchState::site_base as the shadow's are from block_base: a slot written by an earlier
// launch holds a block below site_base and reads as empty, so no launch clears the slots (the host
// clears them only when the numbering would reach kSiteBlocks). ~0u: empty.
constexpr unsigned kSiteSlots = 4;   // unsigneds per word: one SiteSlots
struct alignas(16) SiteSlots {
  unsigned last_site, last_thread, other_site, other_thread;
};
constexpr unsigned kSiteTidBits = 10;                                  // blocks hold at most 1024 threads
constexpr unsigned long long kSiteBlocks = (1ull << (32 - kSiteTidBits)) - 1;   // the top block would make ~0u

// A slot's site word: the site id, then the access's kind and the low bits of its thread's clocks.
// A race names an access from the slots only when that access can race with this one (another
// thread's, of a conflicting kind, in this barrier interval unless in another block): a slot the
// fast paths did not rewrite, or whose store came after the next access's (on the GPU a thread can
// run between another's shadow update and its slot store), is then not named, never misnamed.
constexpr unsigned kSiteIdBits = ::cctk::kSiteIdBits;
constexpr unsigned kSiteKindShift = kSiteIdBits, kSiteBclkShift = kSiteIdBits + 2, kSiteBclkBits = 6;
constexpr unsigned kSiteWclkShift = kSiteBclkShift + kSiteBclkBits, kSiteWclkBits = 32 - kSiteWclkShift;
static_assert(kSiteWclkBits >= 2, "a site word keeps a few bits of the __syncwarp clock");

CCTK_HD inline unsigned site_word(unsigned site, fsm::Access kind, const ThreadCtx &c) {
  return site | unsigned(kind) << kSiteKindShift | (c.bclk & ((1u << kSiteBclkBits) - 1)) << kSiteBclkShift |
         (c.wclk() & ((1u << kSiteWclkBits) - 1)) << kSiteWclkShift;
}
CCTK_HD inline unsigned site_id(unsigned word) { return word & ((1u << kSiteIdBits) - 1); }
CCTK_HD inline unsigned site_kind(unsigned word) { return (word >> kSiteKindShift) & 3u; }
// the clock bits of two site words are equal: the same barrier interval (modulo the bits kept)
CCTK_HD inline bool same_interval(unsigned a, unsigned b) { return (a >> kSiteBclkShift) == (b >> kSiteBclkShift); }

// May the access a slot names (thread `t`, site word `w`) race with this access (thread `me`, site
// word `mine`)? `first` is this launch's first slot thread.
CCTK_HD inline bool may_race(unsigned t, unsigned w, unsigned me, unsigned mine, unsigned first, unsigned warp_size) {
  if (t == ~0u || t < first || t == me) return false;
  unsigned a = site_kind(w), b = site_kind(mine);
  bool same_block = (t >> kSiteTidBits) == (me >> kSiteTidBits);
  if (a == fsm::kRead && b == fsm::kRead) return false;
  if (a >= fsm::kBlockAtomic && b >= fsm::kBlockAtomic && (same_block || (a == fsm::kDeviceAtomic && b == fsm::kDeviceAtomic)))
    return false;
  if (!same_block) return true;
  const unsigned lanes = (1u << kSiteTidBits) - 1;
  if ((t & lanes) / warp_size != (me & lanes) / warp_size)   // another warp: the __syncthreads clock
    return ((w ^ mine) >> kSiteBclkShift & ((1u << kSiteBclkBits) - 1)) == 0;
  return same_interval(w, mine);
}

// The bytes of a declared array that has none: the launch's dynamic shared memory
constexpr unsigned long long kDynamicShared = ~0ull;
// An access outside its buffer does not happen: a read reads kSinkBytes of zeros, a write or an
// atomic goes to a scratch area (larger accesses cannot be diverted and go ahead)
constexpr unsigned kSinkBytes = 1024;

// Kernel parameters whose accesses may be quiet in a launch, given the buffers its arguments point
// into (read-only and own parameters: instrument/readonly_params.py and host_quiet.h quiet_params): at
// most this many per kernel (instrument/protocol.py QUIET_PARAMS)
constexpr unsigned kQuietParams = ::cctk::kQuietParams;

}  // namespace hirace

#endif  // HIRACE_RECORDS_H
