/* row_host: run programs built as shared libraries one after another in this one process.
 *
 * A campaign that only wants verdicts (indigo-bench sweep --share-context) runs thousands of short
 * programs; on a GPU, each process of its own pays for a CUDA context, and the driver makes them
 * one at a time (about 5 a second on an H100 machine). Here the context is made once: every row
 * is its program built as a shared library (instrument/compile/row_host.py), loaded with dlopen, its
 * `main` called, and unloaded with dlclose. Loading the library again gives the program fresh
 * static data and, through the CUDA runtime's module registration, fresh __device__ variables,
 * as a new process would. What a new process would also start afresh and lives outside the library
 * is put back before or after each row: the working directory, the environment (each row starts
 * from the host's, with the variables its request sets), signal handlers, mask and stack, umask, locale, file descriptors 0-2, the C library's
 * random number generators (rand, random, drand48) and getopt, the standard C++ streams' format,
 * and on a GPU the current device. Where a row changed what cannot be put back (device limits and
 * flags, a library that would not unload, threads it left running, a CUDA error, leaked memory),
 * the host runs no further row. A row that calls exit() returns here (exit is defined below and
 * exported, so the libraries bind to it); one that calls _Exit or abort, or crashes, ends this
 * process, and the driver reads its status as the row's.
 *
 * Protocol (the driver writes requests on our stdin, we answer on our stdout; the row's own
 * stdin, stdout and stderr are files the request names):
 *   request: NUL-terminated fields: library, cwd, stdin path ("" = /dev/null), stdout path,
 *            stderr path, argv[0], the argument count, the arguments, the count of KEY=VALUE
 *            environment settings, the settings.
 *   answer:  "ran STATUS HOW WALL_US PEAK_KIB RETIRE\n" (HOW: return or exit; PEAK_KIB 0 when
 *            unknown; RETIRE 1 when this process should not run another row: the library did
 *            not unload, the CUDA context holds an error, or memory was left behind), or
 *            "fail MESSAGE\n" when the row could not start (no such library, no main).
 * The process ends when its stdin closes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <clocale>
#include <iostream>
#include <string>
#ifdef ROW_HOST_CUDA
#include <cuda_runtime.h>
#endif

#define RETIRE_RSS_KIB (512L * 1024)            /* resident memory a row may leave behind */
#define RETIRE_DEVICE_BYTES (512ULL << 20)       /* device memory a row may leave behind */

static jmp_buf row_exit;
static volatile int in_row = 0;      /* main is running */
static volatile int row_loaded = 0;  /* a row's library is loaded */
static volatile int exit_status = 0;
static pthread_t row_thread;

/* The libraries' exit(): inside a row, on the row's thread, back to main's loop; else the real one. */
extern "C" void exit(int status) noexcept {
  if (in_row && pthread_equal(pthread_self(), row_thread)) {
    in_row = 0;
    exit_status = status;
    longjmp(row_exit, 1);
  }
  void (*real)(int) = reinterpret_cast<void (*)(int)>(dlsym(RTLD_NEXT, "exit"));
  real(status);
  _exit(status); /* not reached */
}

#ifdef ROW_HOST_CUDA
/* The libraries' cudaDeviceReset(): inside a row, the context stays (destroying it would make
   the next row make a new one, the cost this host exists to avoid). What a program sees of a
   reset at its end, where programs call it, is that its work is finished: synchronise. Memory
   it left allocated is counted after the row (the host retires if it is much). */
extern "C" cudaError_t cudaDeviceReset(void) {
  if (row_loaded) return cudaDeviceSynchronize();
  cudaError_t (*real)(void) = reinterpret_cast<cudaError_t (*)(void)>(dlsym(RTLD_NEXT, "cudaDeviceReset"));
  return real ? real() : cudaErrorUnknown;
}
#endif

static FILE *requests, *answers;

static char *field(void) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t n = getdelim(&line, &cap, '\0', requests);
  if (n <= 0) {
    free(line);
    return NULL;
  }
  return line;
}

static long status_kib(const char *key) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  long v = 0;
  size_t k = strlen(key);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, key, k) == 0 && line[k] == ':') {
      v = strtol(line + k + 1, NULL, 10);
      break;
    }
  fclose(f);
  return v;
}

static int reset_peak(void) {
  int fd = open("/proc/self/clear_refs", O_WRONLY);
  if (fd < 0) return 0;
  int ok = write(fd, "5", 1) == 1;
  close(fd);
  return ok;
}

static int redirect(int target, const char *path, int flags) {
  int fd = open(path && *path ? path : "/dev/null", flags, 0644);
  if (fd < 0) return -1;
  if (fd != target) {
    dup2(fd, target);
    close(fd);
  }
  return 0;
}

/* The environment the host started with: every row starts from it. */
static void restore_environment(char **start) {
  clearenv();
  for (char **e = start; *e; ++e) {
    char *eq = strchr(*e, '=');
    if (!eq) continue;
    std::string key(*e, size_t(eq - *e));
    setenv(key.c_str(), eq + 1, 1);
  }
}

static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  while (readdir(d)) ++n;
  closedir(d);
  return n;
}

/* The standard streams' format, which lives in the C++ library and so outlasts the row. */
struct stream_format {
  std::ios_base::fmtflags flags;
  std::streamsize precision, width;
  char fill;
  void save(std::ios &s) { flags = s.flags(), precision = s.precision(), width = s.width(), fill = s.fill(); }
  void restore(std::ios &s) {
    s.clear();
    s.flags(flags), s.precision(precision), s.width(width), s.fill(fill);
  }
};

/* What a process starts with and a row may have changed in the C library: put back before each row. */
static void fresh_libc(void) {
  srand(1); /* rand() and random() share one state in glibc */
  unsigned short zero[3] = {0, 0, 0};
  seed48(zero); /* drand48's state as at start */
  optind = 1, opterr = 1, optopt = '?';
  setlocale(LC_ALL, "C");
  errno = 0;
}

int main(void) {
  /* our own channel: the pipes we were started with, moved off 0 and 1, closed in the rows' children */
  int req = fcntl(0, F_DUPFD_CLOEXEC, 10), ans = fcntl(1, F_DUPFD_CLOEXEC, 10);
  int saved_err = fcntl(2, F_DUPFD_CLOEXEC, 10);
  if (req < 0 || ans < 0 || saved_err < 0) return 127;
  requests = fdopen(req, "r");
  answers = fdopen(ans, "w");
  redirect(0, NULL, O_RDONLY);
  redirect(1, NULL, O_WRONLY);
  int nstart = 0;
  while (environ[nstart]) ++nstart;
  char **start_env = static_cast<char **>(calloc(size_t(nstart) + 1, sizeof(char *)));
  for (int i = 0; i < nstart; ++i) start_env[i] = strdup(environ[i]);
  char home[4096];
  if (!getcwd(home, sizeof home)) strcpy(home, "/");
  long rss0 = 0;
  int threads0 = 0, fds0 = 0;
  mode_t mask0 = umask(022);
  umask(mask0);
  sigset_t sigmask0;
  sigprocmask(SIG_SETMASK, NULL, &sigmask0);
  stream_format formats[4];
  std::ios *streams[4] = {&std::cout, &std::cerr, &std::clog, &std::cin};
  for (int i = 0; i < 4; ++i) formats[i].save(*streams[i]);
#ifdef ROW_HOST_CUDA
  size_t free0 = 0, total = 0;
  int device0 = 0;
  unsigned flags0 = 0;
  const cudaLimit limits[] = {cudaLimitStackSize, cudaLimitPrintfFifoSize, cudaLimitMallocHeapSize,
                              cudaLimitDevRuntimeSyncDepth, cudaLimitDevRuntimePendingLaunchCount,
                              cudaLimitMaxL2FetchGranularity, cudaLimitPersistingL2CacheSize};
  const int nlimits = sizeof limits / sizeof limits[0];
  size_t limit0[nlimits];
  cudaFuncCache cache0;
  if (cudaFree(0) != cudaSuccess || cudaMemGetInfo(&free0, &total) != cudaSuccess ||
      cudaGetDevice(&device0) != cudaSuccess || cudaGetDeviceFlags(&flags0) != cudaSuccess ||
      cudaDeviceGetCacheConfig(&cache0) != cudaSuccess) {
    dprintf(saved_err, "row_host: no CUDA device could be used\n");
    return 127;
  }
  for (int i = 0; i < nlimits; ++i)
    if (cudaDeviceGetLimit(&limit0[i], limits[i]) != cudaSuccess) limit0[i] = ~size_t(0);
  cudaGetLastError();
#endif
  for (;;) {
    char *lib = field();
    if (!lib) break;
    char *cwd = field(), *in = field(), *out = field(), *err = field(), *argv0 = field(), *nargs = field();
    if (!nargs) return 127;
    int argc = 1 + atoi(nargs);
    char **argv = static_cast<char **>(calloc(size_t(argc) + 1, sizeof *argv));
    argv[0] = argv0;
    for (int i = 1; i < argc; ++i)
      if (!(argv[i] = field())) return 127;
    char *nenv = field();
    if (!nenv) return 127;
    int envc = atoi(nenv);
    for (int i = 0; i < envc; ++i) {
      char *kv = field();
      if (!kv) return 127;
      char *eq = strchr(kv, '=');
      if (eq) {
        *eq = '\0';
        setenv(kv, eq + 1, 1);
      }
      free(kv);
    }

    struct sigaction handlers[NSIG];
    for (int s = 1; s < NSIG; ++s) sigaction(s, NULL, &handlers[s]);
    stack_t altstack;
    sigaltstack(NULL, &altstack);
    volatile int retire = 0;
    char why[512] = "";
    void *volatile h = NULL;
    if (chdir(cwd) != 0) snprintf(why, sizeof why, "cannot enter %s: %s", cwd, strerror(errno));
    else if ((row_loaded = 1, !(h = dlopen(lib, RTLD_NOW | RTLD_LOCAL))))
      snprintf(why, sizeof why, "cannot load %s: %s", lib, dlerror());
    int (*volatile entry)(int, char **, char **) = NULL;
    if (h && !(entry = reinterpret_cast<int (*)(int, char **, char **)>(dlsym(h, "main"))))
      snprintf(why, sizeof why, "%s has no main", lib);
    volatile int status = 0, by_exit = 0;
    long wall_us = 0, peak = 0;
    if (entry) {
      fflush(NULL);
      fresh_libc();
      if (!threads0) threads0 = int(status_kib("Threads")), fds0 = count_entries("/proc/self/fd");
      redirect(0, in, O_RDONLY);
      redirect(1, out, O_WRONLY | O_CREAT | O_TRUNC);
      redirect(2, err, O_WRONLY | O_CREAT | O_TRUNC);
      int measured = reset_peak();
      if (!rss0) rss0 = status_kib("VmRSS");
      struct timespec t0, t1;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      row_thread = pthread_self();
      if (setjmp(row_exit) == 0) {
        in_row = 1;
        status = entry(argc, argv, environ);
        in_row = 0;
      } else {
        status = exit_status;
        by_exit = 1;
      }
      /* what exit() does after the program's own code: its atexit handlers and static
         destructors (they run at dlclose, as registered by the library), then stdio flushed;
         a thread the row left running may still run its code: then it stays loaded */
      if (status_kib("Threads") > threads0) retire = 1;
      else dlclose(h);
      h = NULL;
      row_loaded = 0;
      std::cout.flush(), std::cerr.flush(), std::clog.flush();
      fflush(NULL);
      clock_gettime(CLOCK_MONOTONIC, &t1);
      wall_us = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;
      peak = measured ? status_kib("VmHWM") : 0;
      redirect(0, NULL, O_RDONLY);
      redirect(1, NULL, O_WRONLY);
      dup2(saved_err, 2);
      void *still = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
      if (still) { /* NODELETE (a unique symbol): a second load would not start afresh */
        dlclose(still);
        retire = 1;
      }
      if (status_kib("VmRSS") > rss0 + RETIRE_RSS_KIB || count_entries("/proc/self/fd") > fds0 + 64) retire = 1;
#ifdef ROW_HOST_CUDA
      size_t free1 = 0;
      int device = 0;
      unsigned flags = 0;
      cudaFuncCache cache;
      if (cudaGetDevice(&device) != cudaSuccess || device != device0) retire = 1;
      if (cudaSetDevice(device0) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess ||
          cudaGetLastError() != cudaSuccess || cudaMemGetInfo(&free1, &total) != cudaSuccess ||
          free1 + RETIRE_DEVICE_BYTES < free0 || cudaGetDeviceFlags(&flags) != cudaSuccess || flags != flags0 ||
          cudaDeviceGetCacheConfig(&cache) != cudaSuccess || cache != cache0)
        retire = 1;
      for (int i = 0; i < nlimits; ++i) {
        size_t v = ~size_t(0);
        if (cudaDeviceGetLimit(&v, limits[i]) != cudaSuccess) v = ~size_t(0);
        if (v != limit0[i]) retire = 1;
      }
      cudaGetLastError();
#endif
    } else if (h) {
      dlclose(h);
    }
    row_loaded = 0;
    for (int s = 1; s < NSIG; ++s) sigaction(s, &handlers[s], NULL);
    sigprocmask(SIG_SETMASK, &sigmask0, NULL);
    umask(mask0);
    for (int i = 0; i < 4; ++i) formats[i].restore(*streams[i]);
    if (!(altstack.ss_flags & SS_ONSTACK)) {
      if (altstack.ss_sp == NULL) altstack.ss_flags = SS_DISABLE;
      sigaltstack(&altstack, NULL);
    }
    restore_environment(start_env);
    if (chdir(home) != 0) retire = 1;
    if (entry)
      fprintf(answers, "ran %d %s %ld %ld %d\n", status & 0xff, by_exit ? "exit" : "return", wall_us, peak, retire);
    else
      fprintf(answers, "fail %s\n", why);
    fflush(answers);
    for (int i = 1; i < argc; ++i) free(argv[i]);
    free(argv);
    free(lib), free(cwd), free(in), free(out), free(err), free(argv0), free(nargs), free(nenv);
    if (retire) break;
  }
  return 0;
}
