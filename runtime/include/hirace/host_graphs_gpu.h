// CUDA graphs on the gpu backend, in the stream relation (HIRACE_STREAMS=1; included by host_graphs.h).
//
// hirace runs an executable graph's nodes itself, so that each is an operation of the relation and every
// kernel node's grid runs in hirace's launch brackets, as on the cpu backend (cudaemu/graphs.h runs them
// there):
// - cudaGraphInstantiate* (and WithFlags, WithParams): the graph is cloned (the program may change or
//   destroy its graph after instantiating it) and its nodes listed in a topological order, each with its
//   dependencies, its kind and, for a copy or set, its rows of bytes (`Exec`);
// - cudaGraphLaunch(exec, s): the nodes run one at a time on s, in that order (graph_launch_begin and the
//   rest of host_graphs.h's relation part: each node an agent, ordered by its dependencies only). Each node
//   runs as a graph of that node alone (instantiated at its first launch: every attribute of the node kept);
//   a kernel node inside before_launch/after_launch (its configuration from cudaGraphKernelNodeGetParams),
//   named by the line that added or captured it (`launch_site`) and issued on its node's agent
//   (`launch_stream` of the node's handle). The order is stricter than CUDA's, which changes no result the
//   graph's own edges allow; the verdict comes from the relation;
// - a node's line: the cudaGraphAdd*Node call that added it, or (stream capture) the launch or call that
//   was captured, found with cudaStreamGetCaptureInfo right after it (`captured_node`);
// - what is not followed: a graph with child-graph, event, memory or conditional nodes, an exec changed by
//   cudaGraphExecUpdate or a cudaGraphExec*SetParams call, a launch into a capturing stream: launched by
//   CUDA as the program asked, its kernels unchecked and its nodes not compared, said on stderr once.
#ifndef HIRACE_HOST_GRAPHS_GPU_H
#define HIRACE_HOST_GRAPHS_GPU_H

#include <cxxabi.h>
#include "cudacommon/graph_nodes.h"
#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace hirace {
namespace streams {
namespace gpu_graphs {

using ::cctk::graphs::Kind;   // (cudacommon/graph_nodes.h: the emulation's too)
using ::cctk::graphs::Row;
struct Node {
  Kind kind = Kind::Empty;
  std::vector<size_t> deps;          // earlier nodes of `nodes` it waits for
  const char *api = "", *file = "";  // the call that added (or captured) it, and where
  int line = 0;
  std::vector<Row> rows;             // a copy or set
  cudaGraphNode_t node = nullptr;    // in the exec's clone
  cudaGraphExec_t alone = nullptr;   // a copy, set or host node: a graph of it alone
};
struct Exec {
  cudaGraph_t clone = nullptr;
  std::vector<Node> nodes;           // in a topological order
  std::string unfollowed;            // why hirace does not run it itself ("": it does)
  bool told = false;
};
struct Site {
  const char *api, *file;
  unsigned line;
};

inline std::recursive_mutex &mutex() {
  static auto *m = new std::recursive_mutex;
  return *m;
}
inline std::map<cudaGraphNode_t, Site> &sites() {   // nodes the program added or captured, where
  static auto *m = new std::map<cudaGraphNode_t, Site>;
  return *m;
}
inline std::map<cudaGraphExec_t, Exec *> &execs() {
  static auto *m = new std::map<cudaGraphExec_t, Exec *>;
  return *m;
}

inline cudaError_t node_deps(cudaGraphNode_t n, cudaGraphNode_t *out, size_t *count) {
#if CUDART_VERSION >= 13000
  return (cudaGraphNodeGetDependencies)(n, out, nullptr, count);
#else
  return (cudaGraphNodeGetDependencies)(n, out, count);
#endif
}

// A copy node's rows: extent.height x extent.depth rows of extent.width bytes (pointers, not arrays)
inline bool copy_rows(cudaGraphNode_t n, std::vector<Row> *rows) {
  cudaMemcpy3DParms p{};
  if ((cudaGraphMemcpyNodeGetParams)(n, &p) != cudaSuccess || p.srcArray || p.dstArray) return false;
  auto at = [](const cudaPitchedPtr &q, const cudaPos &pos, size_t y, size_t z) {
    return static_cast<char *>(q.ptr) + (pos.z + z) * q.pitch * q.ysize + (pos.y + y) * q.pitch + pos.x;
  };
  for (size_t z = 0; z < p.extent.depth; ++z)
    for (size_t y = 0; y < p.extent.height; ++y)
      rows->push_back(Row{at(p.dstPtr, p.dstPos, y, z), at(p.srcPtr, p.srcPos, y, z), p.extent.width});
  return true;
}
inline bool set_rows(cudaGraphNode_t n, std::vector<Row> *rows) {
  cudaMemsetParams p{};
  if ((cudaGraphMemsetNodeGetParams)(n, &p) != cudaSuccess) return false;
  for (size_t y = 0; y < std::max<size_t>(p.height, 1); ++y)
    rows->push_back(Row{static_cast<char *>(p.dst) + y * p.pitch, nullptr, p.width * p.elementSize});
  return true;
}

// The exec's graph, copied and listed (see the top of this file)
inline Exec *describe(cudaGraph_t g) {
  auto *e = new Exec;
  size_t n = 0, m = 0;
  if ((cudaGraphClone)(&e->clone, g) != cudaSuccess || (cudaGraphGetNodes)(e->clone, nullptr, &n) != cudaSuccess ||
      (cudaGraphGetNodes)(g, nullptr, &m) != cudaSuccess) {
    e->unfollowed = "hirace could not copy it";
    return e;
  }
  std::vector<cudaGraphNode_t> nodes(n), originals(m);
  (cudaGraphGetNodes)(e->clone, nodes.data(), &n);
  (cudaGraphGetNodes)(g, originals.data(), &m);
  std::map<cudaGraphNode_t, Site> site_of;
  {
    std::lock_guard<std::recursive_mutex> hold(mutex());
    for (cudaGraphNode_t o : originals) {
      auto it = sites().find(o);
      cudaGraphNode_t c = nullptr;
      if (it != sites().end() && (cudaGraphNodeFindInClone)(&c, o, e->clone) == cudaSuccess) site_of[c] = it->second;
    }
  }
  std::map<cudaGraphNode_t, size_t> index;
  for (size_t i = 0; i < n; ++i) index[nodes[i]] = i;
  std::vector<Node> all(n);
  std::vector<std::vector<size_t>> deps(n);
  for (size_t i = 0; i < n && e->unfollowed.empty(); ++i) {
    Node &d = all[i];
    d.node = nodes[i];
    auto it = site_of.find(nodes[i]);
    if (it != site_of.end()) {
      d.api = it->second.api;
      d.file = it->second.file;
      d.line = int(it->second.line);
    }
    size_t k = 0;
    node_deps(nodes[i], nullptr, &k);
    std::vector<cudaGraphNode_t> ds(k);
    if (k) node_deps(nodes[i], ds.data(), &k);
    for (cudaGraphNode_t x : ds) deps[i].push_back(index[x]);
    cudaGraphNodeType t = cudaGraphNodeTypeEmpty;
    (cudaGraphNodeGetType)(nodes[i], &t);
    switch (t) {
      case cudaGraphNodeTypeKernel: d.kind = Kind::Kernel; break;
      case cudaGraphNodeTypeMemcpy:
        d.kind = Kind::Copy;
        if (!*d.api) d.api = "cudaGraphAddMemcpyNode";
        if (!copy_rows(nodes[i], &d.rows)) e->unfollowed = "a copy node of a CUDA array";
        break;
      case cudaGraphNodeTypeMemset:
        d.kind = Kind::Set;
        if (!*d.api) d.api = "cudaGraphAddMemsetNode";
        if (!set_rows(nodes[i], &d.rows)) e->unfollowed = "a set node hirace could not read";
        break;
      case cudaGraphNodeTypeHost:
        d.kind = Kind::Host;
        if (!*d.api) d.api = "cudaGraphAddHostNode";
        break;
      case cudaGraphNodeTypeEmpty: d.kind = Kind::Empty; break;
      case cudaGraphNodeTypeGraph: e->unfollowed = "a child graph node"; break;
      case cudaGraphNodeTypeEventRecord:
      case cudaGraphNodeTypeWaitEvent: e->unfollowed = "an event node"; break;
      case cudaGraphNodeTypeMemAlloc:
      case cudaGraphNodeTypeMemFree: e->unfollowed = "a memory node"; break;
      default: e->unfollowed = "a node of a kind hirace does not follow"; break;
    }
  }
  // a topological order (Kahn's, the lowest listed node first), deps renumbered into it
  std::vector<size_t> waiting(n), order, at(n);
  std::vector<std::vector<size_t>> after(n);
  for (size_t i = 0; i < n; ++i) {
    waiting[i] = deps[i].size();
    for (size_t d : deps[i]) after[d].push_back(i);
  }
  for (size_t i = 0; i < n; ++i)
    if (!waiting[i]) order.push_back(i);
  for (size_t k = 0; k < order.size(); ++k)
    for (size_t j : after[order[k]])
      if (--waiting[j] == 0) order.push_back(j);
  if (order.size() != n && e->unfollowed.empty()) e->unfollowed = "a cycle";
  for (size_t k = 0; k < order.size(); ++k) at[order[k]] = k;
  for (size_t i : order) {
    Node d = all[i];
    d.deps.clear();
    for (size_t x : deps[i]) d.deps.push_back(at[x]);
    e->nodes.push_back(std::move(d));
  }
  return e;
}

inline Exec *find(cudaGraphExec_t x) {
  std::lock_guard<std::recursive_mutex> hold(mutex());
  auto it = execs().find(x);
  return it == execs().end() ? nullptr : it->second;
}

// The kernel's name, as the program spells it (demangled, without its parameters or return type)
inline const char *kernel_name(const void *func) {
  static auto *known = new std::map<const void *, std::string>;
  std::lock_guard<std::recursive_mutex> hold(mutex());
  auto it = known->find(func);
  if (it != known->end()) return it->second.c_str();
  std::string name = "graph kernel";
#if CUDART_VERSION >= 12030
  const char *raw = nullptr;
  if ((cudaFuncGetName)(&raw, func) == cudaSuccess && raw) {
    int status = 0;
    char *d = abi::__cxa_demangle(raw, nullptr, nullptr, &status);
    std::string full = status == 0 && d ? d : raw;
    std::free(d);
    int depth = 0;
    size_t start = 0, end = full.size();
    for (size_t i = 0; i < full.size(); ++i) {
      const char c = full[i];
      if (c == '<') ++depth;
      else if (c == '>') --depth;
      else if (depth == 0 && c == '(') { end = i; break; }
      else if (depth == 0 && c == ' ') start = i + 1;   // (a template's return type)
    }
    name = full.substr(start, end - start);
  }
#endif
  return (*known)[func] = name, (*known)[func].c_str();
}

// A node alone, as a graph of its own (its parameters are the clone's)
inline cudaError_t run_alone(Exec &e, Node &n, cudaStream_t s) {
  if (!n.alone) {
    cudaGraph_t one = nullptr;
    cudaGraphNode_t mine = nullptr;
    size_t k = 0;
    cudaError_t err = (cudaGraphClone)(&one, e.clone);
    if (err != cudaSuccess) return err;
    if ((err = (cudaGraphNodeFindInClone)(&mine, n.node, one)) != cudaSuccess ||
        (err = (cudaGraphGetNodes)(one, nullptr, &k)) != cudaSuccess) {
      (cudaGraphDestroy)(one);
      return err;
    }
    std::vector<cudaGraphNode_t> all(k);
    (cudaGraphGetNodes)(one, all.data(), &k);
    for (cudaGraphNode_t x : all)
      if (x != mine) (cudaGraphDestroyNode)(x);
    err = (cudaGraphInstantiate)(&n.alone, one, 0);
    (cudaGraphDestroy)(one);
    if (err != cudaSuccess) return err;
  }
  return (cudaGraphLaunch)(n.alone, s);
}

// A kernel node: its grid in hirace's brackets, run as a graph of the node alone (every attribute of the node
// kept), named by its line and issued on its node's agent
inline cudaError_t run_kernel(Exec &e, Node &n, cudaStream_t handle, cudaStream_t s) {
  cudaKernelNodeParams p{};
  cudaError_t err = (cudaGraphKernelNodeGetParams)(n.node, &p);
  if (err != cudaSuccess) return err;
  launch_site(n.file, unsigned(n.line));
  launch_stream(handle);   // (the relation issues it on the node's agent: host_stream_launches.h take)
  ::hirace::host::before_launch(p.func, kernel_name(p.func), p.gridDim, p.blockDim, p.sharedMemBytes, false, false,
                                false);
  err = run_alone(e, n, s);
  ::hirace::host::after_launch();
  return err;
}

inline void told(Exec &e, const char *file, unsigned line) {
  if (e.told) return;
  e.told = true;
  std::fprintf(stderr, "hirace: warning: %s:%u: the graph launched here has %s, which hirace does not follow on the "
               "gpu backend: CUDA runs it, its kernels unchecked and its nodes not compared with other operations "
               "(the cpu backend follows graphs: HIRACE_BACKEND=cpu)\n", file, line, e.unfollowed.c_str());
}

}  // namespace gpu_graphs

// ---------------------------------------------------------------- the program's calls (host_graphs.h's macros)

inline cudaError_t node_added(const char *file, unsigned line, const char *api, cudaGraphNode_t *p, cudaError_t e) {
  if (e == cudaSuccess && p) {
    std::lock_guard<std::recursive_mutex> hold(gpu_graphs::mutex());
    gpu_graphs::sites()[*p] = gpu_graphs::Site{api, file, line};
  }
  return e;
}

// After a call a capturing stream took: the node it became (the stream's only dependency now), named
inline cudaError_t captured_node(cudaError_t e, cudaStream_t s, const char *file, unsigned line, const char *api) {
  if (e != cudaSuccess) return e;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaGraphNode_t *deps = nullptr;
  size_t n = 0;
#if CUDART_VERSION >= 13000
  cudaError_t q = (cudaStreamGetCaptureInfo)(s, &status, nullptr, nullptr, &deps, nullptr, &n);
#else
  cudaError_t q = (cudaStreamGetCaptureInfo)(s, &status, nullptr, nullptr, &deps, &n);
#endif
  if (q == cudaSuccess && status == cudaStreamCaptureStatusActive) {
    std::lock_guard<std::recursive_mutex> hold(gpu_graphs::mutex());
    for (size_t i = 0; i < n; ++i) gpu_graphs::sites()[deps[i]] = gpu_graphs::Site{api, file, line};
  } else {
    (cudaGetLastError)();   // (a query the runtime refused leaves no error behind for the program)
  }
  return e;
}

// A launch a capture took (host_launch.h after_launch): its node named by the launch's line
inline void launch_captured() {
  const DeviceFootprints &d = device_footprints();
  captured_node(cudaSuccess, d.stream, d.file, d.line, "kernel");
}
inline const bool kCaptureHooked = (host::g_launch_captured = &launch_captured, true);

inline cudaError_t instantiated(cudaGraphExec_t *p, cudaGraph_t g, cudaError_t e) {
  if (e != cudaSuccess || !p) return e;
  gpu_graphs::Exec *x = gpu_graphs::describe(g);
  std::lock_guard<std::recursive_mutex> hold(gpu_graphs::mutex());
  gpu_graphs::Exec *&slot = gpu_graphs::execs()[*p];
  delete slot;   // (an exec handle CUDA gave again)
  slot = x;
  return e;
}

inline cudaError_t exec_changed(cudaGraphExec_t x, const char *api, cudaError_t e) {
  if (gpu_graphs::Exec *g = gpu_graphs::find(x)) g->unfollowed = std::string("been changed by ") + api;
  return e;
}

inline cudaError_t graph_launch(const char *file, unsigned line, cudaGraphExec_t x, cudaStream_t s) {
  access::Call call;   // (host_access.h: every page open while the nodes run)
  gpu_graphs::Exec *e = gpu_graphs::find(x);
  if (!e || !e->unfollowed.empty() || stream_captures(s)) {
    if (e && !e->unfollowed.empty()) gpu_graphs::told(*e, file, line);
    return (cudaGraphLaunch)(x, s);
  }
  graph_launch_begin(*e, s);
  cudaError_t err = cudaSuccess;
  bool host = false;
  for (size_t i = 0; i < e->nodes.size(); ++i) {
    gpu_graphs::Node &n = e->nodes[i];
    cudaStream_t handle = graph_node_begin(*e, i);
    if (err == cudaSuccess && n.kind == gpu_graphs::Kind::Kernel) err = gpu_graphs::run_kernel(*e, n, handle, s);
    else if (err == cudaSuccess && n.kind != gpu_graphs::Kind::Empty) err = gpu_graphs::run_alone(*e, n, s);
    host |= n.kind == gpu_graphs::Kind::Host;
    graph_node_end(*e, i);
  }
  // (a host node runs on the driver's thread: done before the pages close again, host_access.h)
  if (host && err == cudaSuccess) err = (cudaStreamSynchronize)(s);
  graph_launch_end(*e, s);
  return err;
}

inline cudaError_t graph_exec_destroy(cudaGraphExec_t x) {
  gpu_graphs::Exec *e = nullptr;
  {
    std::lock_guard<std::recursive_mutex> hold(gpu_graphs::mutex());
    auto it = gpu_graphs::execs().find(x);
    if (it != gpu_graphs::execs().end()) {
      e = it->second;
      gpu_graphs::execs().erase(it);
    }
  }
  if (e) {
    graph_exec_destroyed(*e);
    for (gpu_graphs::Node &n : e->nodes)
      if (n.alone) (cudaGraphExecDestroy)(n.alone);
    if (e->clone) (cudaGraphDestroy)(e->clone);
    delete e;
  }
  return (cudaGraphExecDestroy)(x);
}

template <class... A> inline cudaError_t instantiate(cudaGraphExec_t *p, cudaGraph_t g, A... a) {
  return instantiated(p, g, (cudaGraphInstantiate)(p, g, a...));
}
template <class... A> inline cudaError_t instantiate_with_flags(cudaGraphExec_t *p, cudaGraph_t g, A... a) {
  return instantiated(p, g, (cudaGraphInstantiateWithFlags)(p, g, a...));
}
template <class... A> inline cudaError_t instantiate_with_params(cudaGraphExec_t *p, cudaGraph_t g, A... a) {
  return instantiated(p, g, (cudaGraphInstantiateWithParams)(p, g, a...));
}

}  // namespace streams
}  // namespace hirace

#endif  // HIRACE_HOST_GRAPHS_GPU_H
