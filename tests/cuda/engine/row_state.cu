// A program that prints what a new process starts with, then changes all of it: run as rows of
// one row host (instrument/compile/row_host.py), every row must print what the first printed.
// argv[1]: "return" (main returns 3), "exit" (exit(5) from a helper), "abort", "hang".
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

__device__ int launches = 0;
static int calls = 0;
static int initialised = std::atoi("7");   // dynamic initialisation of static data

__global__ void count(int *out) {
  atomicAdd(&launches, 1);
  __syncthreads();
  if (threadIdx.x == 0) *out = launches;
}

static void on_usr1(int) {}

static void leave(int code) { std::exit(code); }

int main(int argc, char **argv) {
  int *d = nullptr, seen = 0;
  cudaMalloc(&d, sizeof(int));
  count<<<1, 8>>>(d);
  cudaMemcpy(&seen, d, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  ++calls;
  char cwd[4096];
  const char *where = getcwd(cwd, sizeof cwd) ? std::strrchr(cwd, '/') + 1 : "?";
  mode_t mask = umask(077);
  struct sigaction sa {};
  sigaction(SIGUSR1, nullptr, &sa);
  const char *mark = std::getenv("ROW_MARK");
  std::printf("device %d calls %d init %d rand %d cwd %s umask %03o usr1 %s mark %s", seen, calls, initialised,
              std::rand() % 1000, where, unsigned(mask), sa.sa_handler == SIG_DFL ? "default" : "set",
              mark ? mark : "unset");
  std::cout << " pi " << 3.14159265 << std::endl;
  // everything a row may change that a new process would start without
  initialised = 0;
  std::signal(SIGUSR1, on_usr1);
  setenv("ROW_MARK", "left-behind", 1);
  if (chdir("/") != 0) return 9;
  std::cout.precision(2);
  std::cout << std::fixed;
  const char *how = argc > 1 ? argv[1] : "return";
  if (!std::strcmp(how, "exit")) leave(5);
  if (!std::strcmp(how, "abort")) std::abort();
  if (!std::strcmp(how, "hang")) for (;;) pause();
  return 3;
}
