// cudaemu: a CUDA thread is a fiber; the switch between two fibers (x86-64), and a fiber's state.
// Included by cudaemu.h; not meant to be included on its own.
#ifndef CUDAEMU_FIBER_H
#define CUDAEMU_FIBER_H

namespace cudaemu {
namespace detail {

// ---------------------------------------------------------------- fiber switch
#if defined(__x86_64__)
extern "C" void cudaemu_switch_ctx(void **save_sp, void *to_sp);
asm(R"(
.text
.weak cudaemu_switch_ctx
.type cudaemu_switch_ctx, @function
cudaemu_switch_ctx:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
.size cudaemu_switch_ctx, .-cudaemu_switch_ctx
)");
#else
#error "cudaemu: the cpu backend's fiber switch is written for x86-64 only"
#endif

enum FiberState : unsigned char { kRunnable, kAtBarrier, kAtWarp, kAtGather, kDone };

struct Fiber {
  void *sp = nullptr;
  char *stack = nullptr;   // the top of its stack while it has one (from its start to its end)
  uint3 tid{0, 0, 0};
  unsigned linear = 0;
  FiberState state = kRunnable;
  const char *wait_file = "";
  int wait_line = 0;
  unsigned gather = 0;   // coalesced_threads(): the lanes that reached the call together
};

}  // namespace detail
}  // namespace cudaemu

#endif  // CUDAEMU_FIBER_H
