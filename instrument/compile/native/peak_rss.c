/* peak_rss: run a program and record its peak resident memory.
 *
 *   peak_rss OUT_FILE prog [args...]
 *
 * Forks, execs prog, waits for it with wait4 and writes its ru_maxrss (KiB) to OUT_FILE;
 * exits with prog's status, or dies by prog's signal. Measuring from this small process
 * rather than from Python matters: Linux charges a child the peak memory of the process it
 * was forked from, so a child of the Python driver would report the driver's size. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: peak_rss OUT_FILE prog [args...]\n");
    return 127;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("peak_rss: fork");
    return 127;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    fprintf(stderr, "peak_rss: cannot run %s: ", argv[2]);
    perror("");
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  while (wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) {
      perror("peak_rss: wait4");
      return 127;
    }
  }
  FILE *out = fopen(argv[1], "w");
  if (out) {
    fprintf(out, "%ld\n", (long)ru.ru_maxrss);
    fclose(out);
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    raise(sig);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}
