// The CUDA runtime's types, enums and constants, with the values and fields of the real
// toolkit headers. One header for both stand-ins: cudaparse/cuda_decls.h (parsing) and
// cudaemu/cudaemu.h (the cpu backend) include it, so both see the same declarations.
// Only types and constants live here; no function is declared or defined.
#ifndef CUDACOMMON_RUNTIME_TYPES_H
#define CUDACOMMON_RUNTIME_TYPES_H

#include <stddef.h>

// The include guards of the real headers: code such as helper_cuda.h defines its
// helpers only when it sees that the runtime headers were included.
#ifndef __DRIVER_TYPES_H__
#define __DRIVER_TYPES_H__
#endif
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__
#endif
#ifndef __CUDA_RUNTIME_API_H__
#define __CUDA_RUNTIME_API_H__
#endif
#ifndef CUDART_VERSION
#define CUDART_VERSION 12080
#endif
#ifndef __CUDART_API_VERSION
#define __CUDART_API_VERSION CUDART_VERSION
#endif

// X(name, value, description): the enum and the emulator's cudaGetErrorName/String share this list
#define CUDACOMMON_ERRORS(X) \
  X(cudaSuccess, 0, "no error") \
  X(cudaErrorInvalidValue, 1, "invalid argument") \
  X(cudaErrorMemoryAllocation, 2, "out of memory") \
  X(cudaErrorInitializationError, 3, "initialization error") \
  X(cudaErrorCudartUnloading, 4, "cudart unloading") \
  X(cudaErrorProfilerDisabled, 5, "profiler disabled") \
  X(cudaErrorInvalidConfiguration, 9, "invalid configuration argument") \
  X(cudaErrorInvalidPitchValue, 12, "invalid pitch value") \
  X(cudaErrorInvalidSymbol, 13, "invalid device symbol") \
  X(cudaErrorInvalidHostPointer, 16, "invalid host pointer") \
  X(cudaErrorInvalidDevicePointer, 17, "invalid device pointer") \
  X(cudaErrorInvalidTexture, 18, "invalid texture") \
  X(cudaErrorInvalidTextureBinding, 19, "invalid texture binding") \
  X(cudaErrorInvalidChannelDescriptor, 20, "invalid channel descriptor") \
  X(cudaErrorInvalidMemcpyDirection, 21, "invalid copy direction for memcpy") \
  X(cudaErrorInvalidFilterSetting, 26, "invalid filter setting") \
  X(cudaErrorInvalidNormSetting, 27, "invalid norm setting") \
  X(cudaErrorInsufficientDriver, 35, "insufficient driver") \
  X(cudaErrorCallRequiresNewerDriver, 36, "call requires newer driver") \
  X(cudaErrorInvalidSurface, 37, "invalid surface") \
  X(cudaErrorDuplicateVariableName, 43, "duplicate variable name") \
  X(cudaErrorDuplicateTextureName, 44, "duplicate texture name") \
  X(cudaErrorDuplicateSurfaceName, 45, "duplicate surface name") \
  X(cudaErrorDevicesUnavailable, 46, "devices unavailable") \
  X(cudaErrorIncompatibleDriverContext, 49, "incompatible driver context") \
  X(cudaErrorMissingConfiguration, 52, "missing configuration") \
  X(cudaErrorLaunchMaxDepthExceeded, 65, "launch max depth exceeded") \
  X(cudaErrorLaunchFileScopedTex, 66, "launch file scoped tex") \
  X(cudaErrorLaunchFileScopedSurf, 67, "launch file scoped surf") \
  X(cudaErrorSyncDepthExceeded, 68, "sync depth exceeded") \
  X(cudaErrorLaunchPendingCountExceeded, 69, "launch pending count exceeded") \
  X(cudaErrorInvalidDeviceFunction, 98, "invalid device function") \
  X(cudaErrorNoDevice, 100, "no CUDA-capable device is detected") \
  X(cudaErrorInvalidDevice, 101, "invalid device ordinal") \
  X(cudaErrorStartupFailure, 127, "startup failure") \
  X(cudaErrorInvalidKernelImage, 200, "invalid kernel image") \
  X(cudaErrorDeviceUninitialized, 201, "device uninitialized") \
  X(cudaErrorMapBufferObjectFailed, 205, "map buffer object failed") \
  X(cudaErrorUnmapBufferObjectFailed, 206, "unmap buffer object failed") \
  X(cudaErrorAlreadyMapped, 208, "already mapped") \
  X(cudaErrorNoKernelImageForDevice, 209, "no kernel image for device") \
  X(cudaErrorECCUncorrectable, 214, "e c c uncorrectable") \
  X(cudaErrorUnsupportedLimit, 215, "unsupported limit") \
  X(cudaErrorDeviceAlreadyInUse, 216, "device already in use") \
  X(cudaErrorPeerAccessUnsupported, 217, "peer access is not supported between these two devices") \
  X(cudaErrorInvalidPtx, 218, "invalid ptx") \
  X(cudaErrorInvalidSource, 300, "invalid source") \
  X(cudaErrorFileNotFound, 301, "file not found") \
  X(cudaErrorSharedObjectSymbolNotFound, 302, "shared object symbol not found") \
  X(cudaErrorSharedObjectInitFailed, 303, "shared object init failed") \
  X(cudaErrorOperatingSystem, 304, "operating system") \
  X(cudaErrorInvalidResourceHandle, 400, "invalid resource handle") \
  X(cudaErrorIllegalState, 401, "illegal state") \
  X(cudaErrorSymbolNotFound, 500, "symbol not found") \
  X(cudaErrorNotReady, 600, "device not ready") \
  X(cudaErrorIllegalAddress, 700, "an illegal memory access was encountered") \
  X(cudaErrorLaunchOutOfResources, 701, "too many resources requested for launch") \
  X(cudaErrorLaunchTimeout, 702, "launch timeout") \
  X(cudaErrorPeerAccessAlreadyEnabled, 704, "peer access already enabled") \
  X(cudaErrorPeerAccessNotEnabled, 705, "peer access not enabled") \
  X(cudaErrorSetOnActiveProcess, 708, "set on active process") \
  X(cudaErrorAssert, 710, "device-side assert triggered") \
  X(cudaErrorTooManyPeers, 711, "too many peers") \
  X(cudaErrorHostMemoryAlreadyRegistered, 712, "part or all of the requested memory range is already mapped") \
  X(cudaErrorHostMemoryNotRegistered, 713, "pointer does not correspond to a registered memory region") \
  X(cudaErrorIllegalInstruction, 715, "illegal instruction") \
  X(cudaErrorMisalignedAddress, 716, "misaligned address") \
  X(cudaErrorInvalidAddressSpace, 717, "invalid address space") \
  X(cudaErrorLaunchFailure, 719, "unspecified launch failure") \
  X(cudaErrorCooperativeLaunchTooLarge, 720, "too many blocks in cooperative launch") \
  X(cudaErrorNotPermitted, 800, "not permitted") \
  X(cudaErrorStreamCaptureUnsupported, 900, "operation not permitted when stream is capturing") \
  X(cudaErrorStreamCaptureInvalidated, 901, "operation failed due to a previous error during capture") \
  X(cudaErrorStreamCaptureUnmatched, 903, "capture was not initiated in this stream") \
  X(cudaErrorStreamCaptureUnjoined, 904, "capturing stream has unjoined work") \
  X(cudaErrorStreamCaptureIsolation, 905, "dependency created on uncaptured work in another stream") \
  X(cudaErrorNotSupported, 801, "operation not supported") \
  X(cudaErrorUnknown, 999, "unknown error")

enum cudaError {
#define CUDACOMMON_ENUM_ENTRY(name, value, text) name = value,
  CUDACOMMON_ERRORS(CUDACOMMON_ENUM_ENTRY)
#undef CUDACOMMON_ENUM_ENTRY
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
                      cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
enum cudaFuncCache { cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1, cudaFuncCachePreferL1 = 2,
                     cudaFuncCachePreferEqual = 3 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
                         cudaFuncAttributePreferredSharedMemoryCarveout = 9 };
enum cudaSharedMemConfig { cudaSharedMemBankSizeDefault = 0, cudaSharedMemBankSizeFourByte = 1,
                           cudaSharedMemBankSizeEightByte = 2 };
enum cudaLimit { cudaLimitStackSize = 0, cudaLimitPrintfFifoSize = 1, cudaLimitMallocHeapSize = 2,
                 cudaLimitDevRuntimeSyncDepth = 3, cudaLimitDevRuntimePendingLaunchCount = 4,
                 cudaLimitMaxL2FetchGranularity = 5, cudaLimitPersistingL2CacheSize = 6 };
enum cudaComputeMode { cudaComputeModeDefault = 0, cudaComputeModeExclusive = 1, cudaComputeModeProhibited = 2,
                       cudaComputeModeExclusiveProcess = 3 };
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2,
                      cudaMemoryTypeManaged = 3 };
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxBlockDimX = 2, cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4, cudaDevAttrMaxGridDimX = 5, cudaDevAttrMaxGridDimY = 6, cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8, cudaDevAttrTotalConstantMemory = 9, cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxPitch = 11, cudaDevAttrMaxRegistersPerBlock = 12, cudaDevAttrClockRate = 13,
  cudaDevAttrTextureAlignment = 14, cudaDevAttrGpuOverlap = 15, cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrKernelExecTimeout = 17, cudaDevAttrIntegrated = 18, cudaDevAttrCanMapHostMemory = 19,
  cudaDevAttrComputeMode = 20, cudaDevAttrConcurrentKernels = 31, cudaDevAttrEccEnabled = 32,
  cudaDevAttrPciBusId = 33, cudaDevAttrPciDeviceId = 34, cudaDevAttrTccDriver = 35,
  cudaDevAttrMemoryClockRate = 36, cudaDevAttrGlobalMemoryBusWidth = 37, cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39, cudaDevAttrAsyncEngineCount = 40,
  cudaDevAttrUnifiedAddressing = 41, cudaDevAttrPciDomainId = 50, cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76, cudaDevAttrStreamPrioritiesSupported = 78,
  cudaDevAttrGlobalL1CacheSupported = 79, cudaDevAttrLocalL1CacheSupported = 80,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81, cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83, cudaDevAttrIsMultiGpuBoard = 84, cudaDevAttrMultiGpuBoardGroupID = 85,
  cudaDevAttrHostNativeAtomicSupported = 86, cudaDevAttrSingleToDoublePrecisionPerfRatio = 87,
  cudaDevAttrPageableMemoryAccess = 88, cudaDevAttrConcurrentManagedAccess = 89,
  cudaDevAttrComputePreemptionSupported = 90, cudaDevAttrCanUseHostPointerForRegisteredMem = 91,
  cudaDevAttrCooperativeLaunch = 95, cudaDevAttrCooperativeMultiDeviceLaunch = 96,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97, cudaDevAttrCanFlushRemoteWrites = 98,
  cudaDevAttrHostRegisterSupported = 99, cudaDevAttrPageableMemoryAccessUsesHostPageTables = 100,
  cudaDevAttrDirectManagedMemAccessFromHost = 101, cudaDevAttrMaxBlocksPerMultiprocessor = 106,
  cudaDevAttrMaxPersistingL2CacheSize = 108, cudaDevAttrMaxAccessPolicyWindowSize = 109,
  cudaDevAttrMemoryPoolsSupported = 115
};
enum cudaStreamCaptureMode { cudaStreamCaptureModeGlobal = 0, cudaStreamCaptureModeThreadLocal = 1,
                             cudaStreamCaptureModeRelaxed = 2 };

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaCpuDeviceId (-1)
#define cudaInvalidDeviceId (-2)

struct CUstream_st;
struct CUevent_st;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *userData);
typedef void (*cudaHostFn_t)(void *userData);

struct cudaUUID_st { char bytes[16]; };
typedef struct cudaUUID_st cudaUUID_t;

struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem, sharedMemPerBlock;
  int regsPerBlock, warpSize;
  size_t memPitch;
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
  size_t totalConstMem;
  int major, minor;
  size_t textureAlignment, texturePitchAlignment;
  int deviceOverlap, multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory, computeMode;
  int maxTexture1D, maxTexture1DMipmap, maxTexture1DLinear, maxTexture2D[2], maxTexture2DMipmap[2],
      maxTexture2DLinear[3], maxTexture2DGather[2], maxTexture3D[3], maxTexture3DAlt[3], maxTextureCubemap,
      maxTexture1DLayered[2], maxTexture2DLayered[3], maxTextureCubemapLayered[2], maxSurface1D, maxSurface2D[2],
      maxSurface3D[3], maxSurface1DLayered[2], maxSurface2DLayered[3], maxSurfaceCubemap,
      maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver, asyncEngineCount,
      unifiedAddressing, memoryClockRate, memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize,
      maxThreadsPerMultiProcessor, streamPrioritiesSupported, globalL1CacheSupported, localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID,
      hostNativeAtomicSupported, singleToDoublePrecisionPerfRatio, pageableMemoryAccess,
      concurrentManagedAccess, computePreemptionSupported, canUseHostPointerForRegisteredMem,
      cooperativeLaunch, cooperativeMultiDeviceLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost, maxBlocksPerMultiProcessor,
      accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported, sparseCudaArraySupported, hostRegisterReadOnlySupported,
      timelineSemaphoreInteropSupported, memoryPoolsSupported, gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported, ipcEventSupported, clusterLaunch, unifiedFunctionPointers;
  int reserved[63];
};

struct cudaFuncAttributes {
  size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
  int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA, maxDynamicSharedSizeBytes,
      preferredShmemCarveout;
};
struct cudaPointerAttributes {
  enum cudaMemoryType type;
  int device;
  void *devicePointer;
  void *hostPointer;
};
struct cudaPitchedPtr { void *ptr; size_t pitch, xsize, ysize; };
struct cudaExtent { size_t width, height, depth; };
struct cudaPos { size_t x, y, z; };

// CUDA arrays, graphs and stream capture, memory pools
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef struct CUgraphNode_st *cudaGraphNode_t;
struct cudaMemcpy3DParms {
  cudaArray_t srcArray; cudaPos srcPos; cudaPitchedPtr srcPtr;
  cudaArray_t dstArray; cudaPos dstPos; cudaPitchedPtr dstPtr;
  cudaExtent extent; cudaMemcpyKind kind;
};
struct cudaMemsetParams { void *dst; size_t pitch; unsigned int value, elementSize; size_t width, height; };
struct cudaKernelNodeParams { void *func; dim3 gridDim, blockDim; unsigned int sharedMemBytes; void **kernelParams, **extra; };
struct cudaHostNodeParams { cudaHostFn_t fn; void *userData; };
enum cudaGraphExecUpdateResult { cudaGraphExecUpdateSuccess = 0, cudaGraphExecUpdateError = 1,
                                 cudaGraphExecUpdateErrorTopologyChanged = 2, cudaGraphExecUpdateErrorNodeTypeChanged = 3,
                                 cudaGraphExecUpdateErrorFunctionChanged = 4, cudaGraphExecUpdateErrorParametersChanged = 5,
                                 cudaGraphExecUpdateErrorNotSupported = 6 };
struct cudaGraphExecUpdateResultInfo { cudaGraphExecUpdateResult result; cudaGraphNode_t errorNode, errorFromNode; };
enum cudaStreamCaptureStatus { cudaStreamCaptureStatusNone = 0, cudaStreamCaptureStatusActive = 1,
                               cudaStreamCaptureStatusInvalidated = 2 };
struct cudaGraphEdgeData { unsigned char from_port, to_port, type, reserved[5]; };
enum cudaGraphNodeType { cudaGraphNodeTypeKernel = 0, cudaGraphNodeTypeMemcpy = 1, cudaGraphNodeTypeMemset = 2,
                         cudaGraphNodeTypeHost = 3, cudaGraphNodeTypeGraph = 4, cudaGraphNodeTypeEmpty = 5 };
typedef struct CUmemPoolHandle_st *cudaMemPool_t;

#endif  // CUDACOMMON_RUNTIME_TYPES_H
