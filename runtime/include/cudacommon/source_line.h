// The source line of a code address, for messages that name where host code was: cudaemu's fault
// messages (cudaemu/scheduler.h) and hirace's host accesses of managed and pinned memory
// (hirace/host_access.h), on either backend. Not for a signal handler: it runs addr2line.
#ifndef CCTK_SOURCE_LINE_H
#define CCTK_SOURCE_LINE_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <unistd.h>

namespace cctk {

// Whether `file` is a system or toolkit header (libc's fortified printf, libstdc++, CUDA's headers): a line
// there that was inlined into the program's code is named by the program's line that inlined it.
inline bool system_file(const char *file) {
  static const char *const kPrefixes[] = {"/usr/include/", "/usr/lib/", "/usr/local/include/", "/usr/local/cuda"};
  for (const char *p : kPrefixes)
    if (std::strncmp(file, p, std::strlen(p)) == 0) return true;
  return std::strstr(file, "/include/c++/") || std::strstr(file, "/targets/x86_64-linux/include/");
}

// addr2line on the executable or library that holds `pc` (built with -g or -g1; the rewritten copies'
// #line directives name the user's files): "file:line", or "" when unknown. Of the inlining chain
// (addr2line -i: innermost first), the innermost line outside system headers; the outermost if all are.
inline void source_line(const void *pc, char *buf, size_t n) {
  buf[0] = 0;
  Dl_info info;
  if (!pc || !dladdr(pc, &info) || !info.dli_fbase) return;
  const auto *elf = static_cast<const Elf64_Ehdr *>(info.dli_fbase);
  uintptr_t addr = uintptr_t(pc) - (elf->e_type == ET_DYN ? uintptr_t(info.dli_fbase) : 0);
  // a library loaded by path names itself; the main program may be named relative to another
  // directory (argv[0]): its path is read from /proc/self/exe (here, not in addr2line's process)
  char exe[800] = "";
  const char *file = info.dli_fname;
  if (!file || file[0] != '/') {
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) return;
    exe[k] = 0;
    file = exe;
  }
  if (std::strchr(file, '\'')) return;   // (the path goes into a shell command, quoted)
  char cmd[1200];
  std::snprintf(cmd, sizeof cmd, "addr2line -i -e '%s' 0x%lx 2>/dev/null", file, static_cast<unsigned long>(addr));
  FILE *p = popen(cmd, "r");
  if (!p) return;
  char line[1024];
  bool chosen = false;
  while (std::fgets(line, int(sizeof line), p)) {
    line[std::strcspn(line, " \n")] = 0;   // "file:line (discriminator 2)" -> "file:line"
    if (chosen || std::strchr(line, '?')) continue;   // ("??:0", "file:?": not known)
    std::snprintf(buf, n, "%s", line);
    chosen = !system_file(line);
  }
  pclose(p);
}

}  // namespace cctk

#endif  // CCTK_SOURCE_LINE_H
