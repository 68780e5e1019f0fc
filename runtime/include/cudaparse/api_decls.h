// For PARSING ONLY (cuda_decls.h includes it, after language_decls.h): the CUDA runtime API as
// programs call it (the types shared with the cpu emulation: cudacommon/runtime_types.h), texture
// objects, CUDA arrays, graphs and stream capture, extensible launches, and the functions' declarations.
#ifndef CUDAPARSE_API_DECLS_H
#define CUDAPARSE_API_DECLS_H

// ---------------------------------------------------------------- runtime API
#include "../cudacommon/runtime_types.h"

#ifndef CUDARTAPI
#define CUDARTAPI
#endif

// texture objects (CUB's texture iterator binds them)
typedef unsigned long long cudaTextureObject_t;
enum cudaChannelFormatKind { cudaChannelFormatKindSigned = 0, cudaChannelFormatKindUnsigned = 1,
                             cudaChannelFormatKindFloat = 2, cudaChannelFormatKindNone = 3 };
struct cudaChannelFormatDesc { int x, y, z, w; cudaChannelFormatKind f; };
enum cudaResourceType { cudaResourceTypeArray = 0, cudaResourceTypeMipmappedArray = 1,
                        cudaResourceTypeLinear = 2, cudaResourceTypePitch2D = 3 };
enum cudaTextureAddressMode { cudaAddressModeWrap = 0, cudaAddressModeClamp = 1, cudaAddressModeMirror = 2,
                              cudaAddressModeBorder = 3 };
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
struct cudaResourceDesc {
  cudaResourceType resType;
  union {
    struct { void *array; } array;
    struct { void *mipmap; } mipmap;
    struct { void *devPtr; cudaChannelFormatDesc desc; size_t sizeInBytes; } linear;
    struct { void *devPtr; cudaChannelFormatDesc desc; size_t width, height, pitchInBytes; } pitch2D;
  } res;
};
struct cudaTextureDesc {
  cudaTextureAddressMode addressMode[3];
  cudaTextureFilterMode filterMode;
  cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned maxAnisotropy;
};
template <class T> cudaChannelFormatDesc cudaCreateChannelDesc();
extern "C" cudaError_t cudaCreateTextureObject(cudaTextureObject_t *t, const cudaResourceDesc *r,
                                               const cudaTextureDesc *d, const void *view);
extern "C" cudaError_t cudaDestroyTextureObject(cudaTextureObject_t t);
template <class T> __device__ T tex1Dfetch(cudaTextureObject_t t, int i);

// CUDA arrays and 2-D textures
extern "C" cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f);
extern "C" cudaError_t cudaMallocArray(cudaArray_t *a, const cudaChannelFormatDesc *d, size_t w, size_t h = 0,
                                       unsigned flags = 0);
extern "C" cudaError_t cudaFreeArray(cudaArray_t a);
extern "C" cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wo, size_t ho, const void *src, size_t spitch,
                                           size_t width, size_t height, cudaMemcpyKind kind);
extern "C" cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wo, size_t ho, const void *src, size_t n,
                                         cudaMemcpyKind kind);
template <class T> __device__ T tex2D(cudaTextureObject_t t, float x, float y);
template <class T> __device__ T tex1D(cudaTextureObject_t t, float x);
template <class T> __device__ T tex3D(cudaTextureObject_t t, float x, float y, float z);

// CUDA graphs and stream capture (their types: cudacommon/runtime_types.h)
__host__ __device__ cudaPos make_cudaPos(size_t x, size_t y, size_t z);
__host__ __device__ cudaExtent make_cudaExtent(size_t w, size_t h, size_t d);
__host__ __device__ cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz);
extern "C" {
cudaError_t cudaGraphCreate(cudaGraph_t *g, unsigned flags);
cudaError_t cudaGraphDestroy(cudaGraph_t g);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps,
                                   const cudaKernelNodeParams *p);
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps,
                                   const cudaMemcpy3DParms *p);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps,
                                   const cudaMemsetParams *p);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps,
                                 const cudaHostNodeParams *p);
cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     const cudaGraphEdgeData *edges, size_t n);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps);
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps,
                                     void *dst, const void *src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s);
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device);
cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n);
cudaError_t cudaGraphGetRootNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g, unsigned long long flags = 0);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *e, cudaGraph_t g, unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t s);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e);
cudaError_t cudaGraphClone(cudaGraph_t *clone, cudaGraph_t g);
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t n, cudaKernelNodeParams *p);
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t n, const cudaKernelNodeParams *p);
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t n, const cudaKernelNodeParams *p);
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, cudaGraphExecUpdateResultInfo *info);
cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode mode);
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode);
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g);
cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus *status);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t n, cudaGraphNodeType *t);
cudaError_t cudaGraphUpload(cudaGraphExec_t e, cudaStream_t s);
}
// (the forms of CUDA 11 that cuda_runtime.h keeps as C++ overloads)
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g, cudaGraphNode_t *error_node, char *log,
                                 size_t log_size);
cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to, size_t n);
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, cudaGraphNode_t *error_node,
                                cudaGraphExecUpdateResult *result);

// extensible launches (Thrust and CUB launch through them)
enum cudaLaunchAttributeID { cudaLaunchAttributeIgnore = 0, cudaLaunchAttributeAccessPolicyWindow = 1,
                             cudaLaunchAttributeCooperative = 2, cudaLaunchAttributeSynchronizationPolicy = 3,
                             cudaLaunchAttributeClusterDimension = 4,
                             cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
                             cudaLaunchAttributeProgrammaticStreamSerialization = 6,
                             cudaLaunchAttributeProgrammaticEvent = 7, cudaLaunchAttributePriority = 8 };
union cudaLaunchAttributeValue {
  char pad[64];
  int cooperative;
  int programmaticStreamSerializationAllowed;
  int priority;
  struct { unsigned int x, y, z; } clusterDim;
};
typedef struct cudaLaunchAttribute_st {
  cudaLaunchAttributeID id;
  cudaLaunchAttributeValue val;
} cudaLaunchAttribute;
typedef struct cudaLaunchConfig_st {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned int numAttrs;
} cudaLaunchConfig_t;

extern "C" {
cudaError_t cudaMalloc(void **p, size_t n);
cudaError_t cudaMallocManaged(void **p, size_t n, unsigned flags = cudaMemAttachGlobal);
cudaError_t cudaMallocHost(void **p, size_t n);
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned flags);
cudaError_t cudaFree(void *p);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind kind,
                            cudaStream_t s = 0);
cudaError_t cudaMemset(void *p, int v, size_t n);
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s = 0);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaThreadSynchronize(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev);
cudaError_t cudaGetDevice(int *dev);
cudaError_t cudaSetDevice(int dev);
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache c);
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig c);
cudaError_t cudaDeviceSetLimit(int limit, size_t value);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
int __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shm = 0, cudaStream_t s = 0);
#if defined(__CUDA_ARCH__)   // (a parse as nvcc's device pass reads the unit: clang's launches call this one there)
int cudaConfigureCall(dim3 grid, dim3 block, size_t shm = 0, cudaStream_t s = 0);
#endif
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
cudaError_t cudaDriverGetVersion(int *v);
cudaError_t cudaRuntimeGetVersion(int *v);
cudaError_t cudaSetDeviceFlags(unsigned flags);
cudaError_t cudaGetDeviceFlags(unsigned *flags);
cudaError_t cudaChooseDevice(int *dev, const cudaDeviceProp *prop);
cudaError_t cudaDeviceGetLimit(size_t *value, cudaLimit limit);
cudaError_t cudaDeviceCanAccessPeer(int *can, int dev, int peer);
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags);
cudaError_t cudaDeviceDisablePeerAccess(int peer);
cudaError_t cudaHostRegister(void *p, size_t n, unsigned flags);
cudaError_t cudaHostUnregister(void *p);
cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned flags);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *a, const void *p);
cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height);
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                              size_t height, cudaMemcpyKind kind, cudaStream_t s = 0);
cudaError_t cudaMemset2D(void *p, size_t pitch, int v, size_t width, size_t height);
cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int v, size_t width, size_t height, cudaStream_t s = 0);
cudaError_t cudaMemcpyPeer(void *dst, int ddev, const void *src, int sdev, size_t n);
cudaError_t cudaMemcpyPeerAsync(void *dst, int ddev, const void *src, int sdev, size_t n, cudaStream_t s = 0);
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s);
cudaError_t cudaFreeAsync(void *p, cudaStream_t s);
cudaError_t cudaMemPrefetchAsync(const void *p, size_t n, int dev, cudaStream_t s = 0);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned flags, int priority);
cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest);
cudaError_t cudaStreamQuery(cudaStream_t s);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags = 0);
cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *data, unsigned flags);
cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *data);
cudaError_t cudaStreamAttachMemAsync(cudaStream_t s, void *p, size_t n = 0, unsigned flags = cudaMemAttachSingle);
cudaError_t cudaEventQuery(cudaEvent_t e);
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, const void *f);
cudaError_t cudaLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, size_t shm, cudaStream_t s);
cudaError_t cudaLaunchCooperativeKernel(const void *f, dim3 grid, dim3 block, void **args, size_t shm,
                                        cudaStream_t s);
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *f, void **args);
}
template <class... A> cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(A...),
                                                     A... args);
template <class T> cudaError_t cudaHostAlloc(T **p, size_t n, unsigned flags);
cudaError_t cudaMallocHost(void **p, size_t n, unsigned flags);
template <class T> cudaError_t cudaMallocHost(T **p, size_t n, unsigned flags);
template <class T> cudaError_t cudaHostGetDevicePointer(T **d, void *h, unsigned flags);
template <class T> cudaError_t cudaMallocPitch(T **p, size_t *pitch, size_t width, size_t height);
template <class T> cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, T *f);
template <class T> cudaError_t cudaLaunchCooperativeKernel(T *f, dim3 grid, dim3 block, void **args,
                                                           size_t shm = 0, cudaStream_t s = 0);
template <class T> cudaError_t cudaOccupancyMaxPotentialBlockSize(int *min_grid, int *block, T f,
                                                                  size_t shm = 0, int limit = 0);
template <class T> cudaError_t cudaMalloc(T **p, size_t n);
template <class T> cudaError_t cudaMallocAsync(T **p, size_t n, cudaStream_t s);
template <class T> cudaError_t cudaMallocManaged(T **p, size_t n, unsigned flags = cudaMemAttachGlobal);
template <class T> cudaError_t cudaMallocHost(T **p, size_t n);
template <class T> cudaError_t cudaMemcpyToSymbol(const T &sym, const void *src, size_t n,
                                                  size_t offset = 0,
                                                  cudaMemcpyKind k = cudaMemcpyHostToDevice);
template <class T> cudaError_t cudaMemcpyFromSymbol(void *dst, const T &sym, size_t n,
                                                    size_t offset = 0,
                                                    cudaMemcpyKind k = cudaMemcpyDeviceToHost);
template <class T> cudaError_t cudaMemcpyToSymbolAsync(const T &sym, const void *src, size_t n, size_t offset = 0,
                                                       cudaMemcpyKind k = cudaMemcpyHostToDevice, cudaStream_t s = 0);
template <class T> cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &sym, size_t n, size_t offset = 0,
                                                         cudaMemcpyKind k = cudaMemcpyDeviceToHost,
                                                         cudaStream_t s = 0);
template <class T> cudaError_t cudaMallocFromPoolAsync(T **p, size_t n, cudaMemPool_t pool, cudaStream_t s);
template <class T> cudaError_t cudaLaunchKernel(T *f, dim3 grid, dim3 block, void **args, size_t shm = 0,
                                                cudaStream_t s = 0);
template <class T> cudaError_t cudaFuncSetAttribute(T *f, cudaFuncAttribute a, int v);
template <class T> cudaError_t cudaFuncSetCacheConfig(T *f, cudaFuncCache c);
template <class T> cudaError_t cudaGetSymbolAddress(void **p, const T &sym);
template <class T> cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, T f, int block,
                                                                             size_t shm);

#endif  // CUDAPARSE_API_DECLS_H
