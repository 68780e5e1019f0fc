// What every tool's host runtime (hirace/host.h, cltc/coverage.h, mutate.h, schedule.h) needs:
// its options from the environment, a log written whole or not at all, one way to run code when
// the program ends (at exit, and before the cpu backend stops it with a fault), and one way to
// stop on a CUDA call that failed. The names of options and the records of logs come from the
// generated protocol.h. Included after the CUDA runtime (nvcc's, or cudaemu on the cpu backend).
#ifndef CCTK_HOST_RUNTIME_H
#define CCTK_HOST_RUNTIME_H

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol.h"

namespace cctk {
namespace host {

// The value of a runtime option (an environment variable of protocol.h), nullptr when unset or empty.
inline const char *option(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// A log of this process's own in `dir` (a tool's log directory, one log per process):
// PREFIX-PID-N.jsonl, the first N that names no file yet (a process of an earlier run with the same
// pid left its own): never over another process's log.
inline std::string log_in_dir(const std::string &dir, const char *prefix) {
  std::string base = dir + "/" + prefix + "-" + std::to_string(long(getpid())) + "-";
  for (unsigned n = 0;; ++n) {
    std::string path = base + std::to_string(n) + ".jsonl";
    struct stat st;
    bool free_name = stat(path.c_str(), &st) != 0 && stat((path + ".part").c_str(), &st) != 0;
    // (a directory that cannot be searched names no free file: the log's own open fails and says so)
    if (free_name || errno != ENOENT || n >= 100000) return path;
  }
}

// The command line of this process, for a log's process record.
inline std::string own_command() {
  std::string out;
  if (std::FILE *f = std::fopen("/proc/self/cmdline", "rb")) {
    int c;
    while ((c = std::fgetc(f)) != EOF) out += c ? char(c) : ' ';
    std::fclose(f);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// A log that appears whole or not at all: records go to PATH.part, which becomes PATH when the
// file closes cleanly. An empty path is no log (the tool was not asked for one).
class LogFile {
 public:
  explicit LogFile(const std::string &path) : path_(path), part_(path + ".part") {
    if (!path_.empty()) f_ = std::fopen(part_.c_str(), "w");
  }
  ~LogFile() {
    if (!f_) return;
    if (std::fclose(f_) == 0) std::rename(part_.c_str(), path_.c_str());
    else std::remove(part_.c_str());
  }
  LogFile(const LogFile &) = delete;
  LogFile &operator=(const LogFile &) = delete;
  explicit operator bool() const { return f_ != nullptr; }
  std::FILE *get() const { return f_; }

 private:
  std::string path_, part_;
  std::FILE *f_ = nullptr;
};

// Run `fn` when the program ends: at exit (registered after the CUDA runtime started, as tools
// register at their first allocation or launch, it runs before the runtime tears down) and, when
// `on_fault`, also when the cpu backend stops the program with a fault (which exits with _Exit):
// what was measured until then is saved. A host that ends otherwise (kernels loaded into Python)
// calls run_end_hooks() itself; the hooks tolerate running again at exit.
struct EndHook {
  void (*fn)();
  bool on_fault;
};
inline std::vector<EndHook> &end_hooks() {
  static std::vector<EndHook> hooks;
  return hooks;
}
inline void run_end_hooks(bool faulted = false) {   // the last registered first, as at exit
  for (size_t i = end_hooks().size(); i-- > 0;)
    if (!faulted || end_hooks()[i].on_fault) end_hooks()[i].fn();
}
inline void run_fault_hooks() { run_end_hooks(true); }
inline void at_end(void (*fn)(), bool on_fault = true) {
  std::atexit(fn);
  end_hooks().push_back(EndHook{fn, on_fault});
#if defined(CUDAEMU)
  if (on_fault) ::cudaemu::detail::g_fault_hook = run_fault_hooks;
#endif
}

// A hook that reads the device at the end: registered once the CUDA runtime is set up, since the
// runtime ends at exit too, in the reverse order of registration. A program whose first CUDA call is
// a launch would otherwise have its runtime torn down before the hook runs ("driver shutting down",
// found on an H100 with cuda-samples' simpleCooperativeGroups: its coverage was lost). An error of
// this setup is the program's too: its first CUDA call reports it. The first launch may come while the
// thread's stream captures a graph (cuda-samples' simpleCudaGraphs: its first `<<<...>>>` is captured),
// where `cudaFree` is a call the default (global) capture mode forbids: it would invalidate the
// program's capture. In relaxed mode, this thread's for the one call, it is allowed and changes nothing.
inline void at_end_reading_device(void (*fn)(), bool on_fault = true) {
#if defined(CUDAEMU)
  (void)cudaFree(nullptr);
#else
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  const bool swapped = cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess;
  (void)cudaFree(nullptr);
  if (swapped) (void)cudaThreadExchangeStreamCaptureMode(&mode);
#endif
  at_end(fn, on_fault);
}

// A CUDA call the runtime itself made failed: say which, and end with the runtime-failure status.
[[noreturn]] inline void fail(const char *tool, const char *what, cudaError_t e) {
  std::fprintf(stderr, "%s: %s failed: %s\n", tool, what, cudaGetErrorString(e));
  std::fflush(stderr);
  std::_Exit(::cctk::exit_code::kExitRuntimeFailure);
}

}  // namespace host
}  // namespace cctk

#endif  // CCTK_HOST_RUNTIME_H
