// Drives the header's own update routine over traces written by hirace.modelcheck.
// usage: fsm_harness BLOCKS WARPS LANES traces.bin  -> int32 first-race index per trace on stdout
// Trace format (int32): length, then events (kind << 16 | thread); kinds 0..3 accesses, 4 bar, 5 syncwarp,
// 6 | mask << 4 a sync of the lanes in mask of the thread's warp.
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
  std::vector<unsigned> bclk(n), wclk(n), narrow(n), full(n);
  for (size_t i = 0; i < data.size();) {
    int len = data[i++];
    std::fill(bclk.begin(), bclk.end(), 0u);
    std::fill(wclk.begin(), wclk.end(), 0u);
    std::fill(narrow.begin(), narrow.end(), 0u);
    std::fill(full.begin(), full.end(), 0u);
    unsigned long long shadow = 0;
    int race_at = -1;
    for (int e = 0; e < len; ++e) {
      unsigned kind = unsigned(data[i + e]) >> 16, t = unsigned(data[i + e]) & 0xffff;
      if (kind == 4) {
        for (unsigned u = t / per_block * per_block; u < (t / per_block + 1) * per_block; ++u) ++bclk[u];
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
            if (n == 0) full[u] = joined + 1;
          }
      } else if (race_at < 0) {
        hirace::ThreadCtx c{t % per_block, t / per_block, bclk[t], hirace::WarpWord::make(wclk[t], full[t], narrow[t]), T};
        if (hirace::update(&shadow, c, hirace::fsm::Access(kind))) race_at = e;
      }
    }
    i += len;
    std::fwrite(&race_at, sizeof race_at, 1, stdout);
  }
  return 0;
}
