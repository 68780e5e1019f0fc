// The GPU time of every kernel a process runs, summed, for programs that do not time themselves
// (bench/hirace_overhead's real programs): a CUPTI injection library.
//   CUDA_INJECTION64_PATH=libkernel_timer.so KERNEL_TIMER_OUT=file prog ...
// writes "kernels <n>\nkernel_ns <total>\n" to the file when the process exits, then a line
// "kernel <ns> <launches> <name>" for each kernel (its mangled name). Built on the GPU
// machine (run.py does it) with -DKERNEL_RECORD=<the newest CUpti_ActivityKernelN of its CUPTI>.
#include <cupti.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>

namespace {
unsigned long long g_kernels = 0, g_ns = 0;
std::map<std::string, std::pair<unsigned long long, unsigned long long>> g_by_name;   // ns, launches

void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  *size = 8 << 20;
  *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t *buffer, size_t, size_t valid) {
  CUpti_Activity *rec = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const KERNEL_RECORD *k = reinterpret_cast<const KERNEL_RECORD *>(rec);
      ++g_kernels;
      g_ns += k->end - k->start;
      auto &one = g_by_name[k->name ? k->name : "?"];
      one.first += k->end - k->start;
      ++one.second;
    }
  }
  std::free(buffer);
}

void report() {
  cuptiActivityFlushAll(1);
  const char *out = std::getenv("KERNEL_TIMER_OUT");
  if (std::FILE *f = out ? std::fopen(out, "w") : nullptr) {
    std::fprintf(f, "kernels %llu\nkernel_ns %llu\n", g_kernels, g_ns);
    for (const auto &[name, one] : g_by_name) std::fprintf(f, "kernel %llu %llu %s\n", one.first, one.second, name.c_str());
    std::fclose(f);
  }
}
}  // namespace

extern "C" int InitializeInjection() {
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) return 0;
  if (cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) return 0;
  std::atexit(report);
  return 1;
}
