// Drives the header's own update routine over traces written by hirace.modelcheck.
// usage: fsm_harness BLOCKS WARPS LANES traces.bin  -> int32 first-race index per trace on stdout
// Trace format (int32): length, then events (kind << 16 | thread); kinds 0..3 accesses, 4 bar, 5 syncwarp,
// 6 | mask << 4 a sync of the lanes in mask of the thread's warp; built with HIRACE_MEMORY_SYNC=1
// (synchronisation through memory, hirace/memory_sync.h): 7 | scope << 4 a fence (scope 0: block,
// 1: device), 8 | op << 4 | scope << 6 | flag << 7 a strong access of a flag (op 0: LD, 1: ST, 2: RMW;
// flag 1, 2, ...: the checked word's own atomics, 2 and 3, are read-modify-writes of flag 0).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "hirace/update.h"

int main(int argc, char **argv) {
  if (argc != 5) return 2;
  const unsigned B = std::atoi(argv[1]), W = std::atoi(argv[2]), T = std::atoi(argv[3]);
  const unsigned per_block = W * T, n = B * per_block;
  FILE *f = std::fopen(argv[4], "rb");
  if (!f) return 2;
  std::vector<int> data;
  int v;
  while (std::fread(&v, sizeof v, 1, f) == 1) data.push_back(v);
  std::fclose(f);
  std::vector<unsigned> bclk(n), wclk(n), narrow(n), full(n), marks(n);
#if HIRACE_MEMORY_SYNC
  constexpr unsigned kSlots = 4;   // flag 0 (the checked word) and the traces' flags
  constexpr unsigned kReaders = 4;   // the kept records of readers (the one checked word's)
  std::vector<hirace::memsync::Entry> record(hirace::memsync::record_items(B, per_block, kSlots, kReaders));
  const hirace::memsync::MemorySync mem = hirace::memsync::carve(record.data(), B, per_block, kSlots, kReaders);
#endif
  // the thread's context as the runtime gives it (marks: its fences since its last warp-level sync)
  auto ctx = [&](unsigned t) {
    unsigned warp = hirace::WarpWord::make(wclk[t], full[t], narrow[t]);
#if HIRACE_MEMORY_SYNC
    warp = hirace::WarpWord::with_marks(warp, marks[t]);
#endif
    return hirace::ThreadCtx{t % per_block, t / per_block, bclk[t], warp, T};
  };
  for (size_t i = 0; i < data.size();) {
    int len = data[i++];
    std::fill(bclk.begin(), bclk.end(), 0u);
    std::fill(wclk.begin(), wclk.end(), 0u);
    std::fill(narrow.begin(), narrow.end(), 0u);
    std::fill(full.begin(), full.end(), 0u);
    std::fill(marks.begin(), marks.end(), 0u);
#if HIRACE_MEMORY_SYNC
    std::fill(record.begin(), record.end(), hirace::memsync::Entry{});
#endif
    unsigned long long shadow = 0;
    int race_at = -1;
    for (int e = 0; e < len; ++e) {
      unsigned kind = unsigned(data[i + e]) >> 16, t = unsigned(data[i + e]) & 0xffff;
      if (kind == 4) {
        for (unsigned u = t / per_block * per_block; u < (t / per_block + 1) * per_block; ++u) {
#if HIRACE_MEMORY_SYNC   // the barrier completes each thread's acquire, and is a fence of block scope
          hirace::memsync::barrier(mem, hirace::memory_thread(ctx(u)), bclk[u] + 1);
#endif
          ++bclk[u];
        }
      } else if (kind == 5 || (kind & 15) == 6) {   // a sync of the lanes in mask (5: the whole warp)
        unsigned mask = kind == 5 ? (1u << T) - 1 : kind >> 4, log_t = 0, joined = 0, lanes = 0;
        while ((1u << (log_t + 1)) <= T) ++log_t;
        unsigned n = hirace::lane_narrowing(mask, t % T, T);
        for (unsigned u = t / T * T; u < (t / T + 1) * T; ++u)
          if (mask >> (u % T) & 1) {
            joined = wclk[u] > joined ? wclk[u] : joined;
            ++lanes;
          }
        bool tile = n < log_t || lanes == 1;   // lanes that are no tile: apart, nothing joined
        for (unsigned u = t / T * T; u < (t / T + 1) * T; ++u)
          if (mask >> (u % T) & 1) {
            wclk[u] = tile ? joined + 1 : wclk[u] + 1;
            narrow[u] = n;
            marks[u] = 0;   // (a warp-level sync's clock word starts without marks: after_lanes_barrier)
            if (n == 0) full[u] = joined + 1;
          }
      } else if ((kind & 15) == 7 || (kind & 15) == 8) {
#if HIRACE_MEMORY_SYNC
        namespace ms = hirace::memsync;
        const hirace::ThreadCtx c = ctx(t);
        if ((kind & 15) == 7) {   // a fence: its acquire, the warp clock's mark, its position
          const unsigned w = hirace::WarpWord::marked(c.warp);
          ms::fence(mem, hirace::memory_thread(c), hirace::WarpWord::count(w), kind >> 4 & 1);
          wclk[t] = hirace::WarpWord::count(w);
          marks[t] = hirace::WarpWord::marks(w);
        } else {
          if (kind >> 7 >= kSlots) return 3;
          ms::strong(mem, hirace::memory_thread(c), kind >> 4 & 3, kind >> 6 & 1, kind >> 7);
        }
#else
        std::fprintf(stderr, "fsm_harness: a memory event in a harness built without HIRACE_MEMORY_SYNC=1\n");
        return 3;
#endif
      } else if (race_at < 0) {
        const hirace::ThreadCtx c = ctx(t);
#if HIRACE_MEMORY_SYNC
        if (hirace::update(&shadow, c, hirace::fsm::Access(kind), nullptr, &mem, 0)) race_at = e;
        if (kind == hirace::fsm::kBlockAtomic || kind == hirace::fsm::kDeviceAtomic)   // a read-modify-write of flag 0
          hirace::memsync::strong(mem, hirace::memory_thread(c), hirace::memsync::kRmw,
                                  kind == hirace::fsm::kBlockAtomic ? hirace::memsync::kBlock : hirace::memsync::kDevice, 0);
#else
        if (hirace::update(&shadow, c, hirace::fsm::Access(kind))) race_at = e;
#endif
      }
    }
    i += len;
    std::fwrite(&race_at, sizeof race_at, 1, stdout);
  }
  return 0;
}
