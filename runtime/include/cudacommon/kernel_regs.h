// A kernel's register budget per GPU architecture (instrument/compile/register_budget.py):
// `__maxnreg__((::cctk::kernel_regs<D, A1, R1, A2, R2, ...>::value))` caps the kernel at Ri registers
// where it is compiled for __CUDA_ARCH__ == Ai, and at D for an architecture the list does not name
// (the register limit the compile has anyway). The host pass reads D; nothing there uses it.
#ifndef CCTK_KERNEL_REGS_H
#define CCTK_KERNEL_REGS_H

namespace cctk {
template <int Default, int... ArchRegs> struct kernel_regs;

template <int Default> struct kernel_regs<Default> {
  static constexpr int value = Default;
};

template <int Default, int Arch, int Regs, int... Rest> struct kernel_regs<Default, Arch, Regs, Rest...> {
#if defined(__CUDA_ARCH__)
  static constexpr int value = Arch == __CUDA_ARCH__ ? Regs : kernel_regs<Default, Rest...>::value;
#else
  static constexpr int value = Default;
#endif
};
}  // namespace cctk

#endif
