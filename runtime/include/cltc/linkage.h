// Linkage of the tools' device variables. In a program they are per translation unit
// (static; the host side registers each unit). In a kernel module that pycuda loads
// (-DCLTC_KERNEL_MODULE, one unit per module) they get external names, so that the
// Python host side finds them with cuModuleGetGlobal under their mangled names.
#ifndef CLTC_LINKAGE_H
#define CLTC_LINKAGE_H
#if defined(CLTC_KERNEL_MODULE)
#define CLTC_TU_LOCAL
#else
#define CLTC_TU_LOCAL static
#endif
#endif  // CLTC_LINKAGE_H
