// cudaemu: CUDA graphs and stream capture. Included by cudaemu.h where the program calls the graph or capture API
// (CUDAEMU_GRAPHS, set by instrument/compile/cpu_parts.py; graphs_absent.h otherwise); not meant to be included on
// its own.
//
// A graph is a list of nodes (a kernel with its parameters bound, copies and sets as rows of bytes, a host
// function, an empty node) and each node's dependencies. cudaGraphInstantiate orders the nodes
// topologically (cycles are refused); cudaGraphLaunch runs them in that order, at once, as every operation
// of the emulation runs when it is issued. A tool that follows the order the graph gives its nodes (hirace's
// stream relation: hirace/host_graphs.h) is told of each launch and node (g_tool).
//
// Stream capture: between cudaStreamBeginCapture(s) and cudaStreamEndCapture(s, &g), work issued to s (a
// launch, an asynchronous copy or set, a host function) becomes a node of the capture's graph, depending on
// what the stream captured last; cudaEventRecord on a capturing stream keeps the stream's last nodes in the
// event, and cudaStreamWaitEvent of such an event adds them to the waiting stream's (which joins the
// capture if it did not capture). cudaStreamEndCapture on the stream that began it fails with
// cudaErrorStreamCaptureUnjoined when another stream of the capture has work the origin stream has not
// joined (its last nodes are not all before the origin's), as CUDA does; the capture ends either way.
// A kernel node names its kernel by address: registry.h runs it. Not emulated: child graph nodes, memory allocation nodes (cudaMallocAsync during a capture allocates at
// once), a graph launched into a capture, cudaGraphExecUpdate and the node parameter setters, edge types.
#ifndef CUDAEMU_GRAPHS_H
#define CUDAEMU_GRAPHS_H

#include "../cudacommon/graph_nodes.h"

namespace cudaemu::graphs {

using ::cctk::graphs::Kind;
using ::cctk::graphs::Row;
struct Node {
  Kind kind = Kind::Empty;
  std::vector<size_t> deps;               // earlier nodes of the same graph it waits for
  const char *api = "", *file = "";       // the call that added (or captured) it, and where
  int line = 0;
  const void *func = nullptr;             // a kernel: its address, name, configuration and bound call
  const char *name = "";
  dim3 grid, block;
  size_t shm = 0;
  std::function<void(detail::Launch)> run;
  std::vector<void *> params;             // where `run` keeps its copy of each argument (registry.h Bound)
  std::vector<Row> rows;                  // a copy or set
  unsigned value = 0, elem = 1;           // a set: the value of `elem` bytes
  cudaHostFn_t fn = nullptr;              // a host function
  void *data = nullptr;
};

inline void take_site(Node &n, const char *api) {
  n.api = g_site_api ? g_site_api : api;
  n.file = g_site_file ? g_site_file : "";
  n.line = g_site_line;
  site(nullptr, 0);
}

}  // namespace cudaemu::graphs

struct CUgraphNode_st {
  CUgraph_st *graph;
  size_t index;
};
struct CUgraph_st {
  std::vector<::cudaemu::graphs::Node> nodes;
  std::vector<std::unique_ptr<CUgraphNode_st>> handles;   // a handle per node, as the program holds them
};
struct CUgraphExec_st {
  std::vector<::cudaemu::graphs::Node> nodes;   // in a topological order; deps index this list
  unsigned long long id;                         // the how-manieth instantiation
};

namespace cudaemu::graphs {

// ------------------------------------------------------------------ a tool's hooks (none by default)
struct Tool {
  void (*launch_begin)(const CUgraphExec_st &, cudaStream_t) = nullptr;
  cudaStream_t (*node_begin)(const CUgraphExec_st &, size_t) = nullptr;   // the stream the node's work names
  void (*node_end)(const CUgraphExec_st &, size_t) = nullptr;
  void (*launch_end)(const CUgraphExec_st &, cudaStream_t) = nullptr;
  void (*kernel_begin)(const Node &, const detail::Launch &) = nullptr;   // around a kernel node's grid
  void (*kernel_end)() = nullptr;
  void (*exec_destroyed)(const CUgraphExec_st &) = nullptr;
};
inline Tool g_tool;

// ------------------------------------------------------------------ stream capture
struct Capture {
  CUgraph_st *graph;
  cudaStream_t origin;
};
struct Capturing {   // a stream in a capture, and its last nodes
  Capture *cap;
  std::vector<size_t> last;
};
struct CaptureState {
  std::recursive_mutex m;
  std::map<cudaStream_t, Capturing> streams;
  std::map<cudaEvent_t, Capturing> events;   // events recorded on a capturing stream
};
inline CaptureState &captures() {
  static CaptureState *c = new CaptureState;
  return *c;
}
inline Capturing *capturing(cudaStream_t s) {
  if (!g_capturing) return nullptr;
  auto it = captures().streams.find(s);
  return it == captures().streams.end() ? nullptr : &it->second;
}
inline bool stream_captures(cudaStream_t s) {
  std::lock_guard<std::recursive_mutex> hold(captures().m);
  return capturing(s) != nullptr;
}
inline bool event_captured(cudaEvent_t e) {
  std::lock_guard<std::recursive_mutex> hold(captures().m);
  return captures().events.count(e) != 0;
}

inline size_t add_node(CUgraph_st *g, Node n, const cudaGraphNode_t *deps, size_t ndeps) {
  for (size_t i = 0; i < ndeps; ++i)
    if (deps[i] && deps[i]->graph == g) n.deps.push_back(deps[i]->index);
  g->nodes.push_back(std::move(n));
  g->handles.push_back(std::make_unique<CUgraphNode_st>(CUgraphNode_st{g, g->nodes.size() - 1}));
  return g->nodes.size() - 1;
}
// Work issued to a capturing stream: a node after the stream's last ones (false: the stream does not capture)
inline bool capture(cudaStream_t s, Node n) {
  std::lock_guard<std::recursive_mutex> hold(captures().m);
  Capturing *c = capturing(s);
  if (!c) return false;
  n.deps = c->last;
  CUgraph_st *g = c->cap->graph;
  size_t i = add_node(g, std::move(n), nullptr, 0);
  c->last.assign(1, i);
  return true;
}
inline bool capture_launch(const detail::Launch &L, std::function<void(detail::Launch)> run, const void *func,
                           std::vector<void *> params) {
  Node n;
  n.func = func;
  n.params = std::move(params);
  n.kind = Kind::Kernel;
  n.api = "kernel";
  n.file = L.file ? L.file : "";
  n.line = L.line;
  n.name = L.name ? L.name : "kernel";
  n.grid = L.grid;
  n.block = L.block;
  n.shm = L.shm;
  n.run = std::move(run);
  return capture(L.stream, std::move(n));
}
inline std::vector<Row> rows(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height) {
  std::vector<Row> out;
  for (size_t r = 0; r < height; ++r)
    out.push_back(Row{static_cast<char *>(dst) + r * dpitch, src ? static_cast<const char *>(src) + r * spitch : nullptr,
                      width});
  return out;
}
inline bool capture_copy(cudaStream_t s, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height) {
  if (!g_capturing) return false;
  Node n;
  n.kind = Kind::Copy;
  take_site(n, "copy");
  n.rows = rows(dst, dpitch, src, spitch, width, height);
  return capture(s, std::move(n));
}
inline bool capture_set(cudaStream_t s, void *p, size_t pitch, unsigned value, unsigned elem, size_t width,
                        size_t height) {
  if (!g_capturing) return false;
  Node n;
  n.kind = Kind::Set;
  take_site(n, "set");
  n.rows = rows(p, pitch, nullptr, 0, width * elem, height);
  n.value = value;
  n.elem = elem;
  return capture(s, std::move(n));
}
inline bool capture_host(cudaStream_t s, cudaHostFn_t fn, void *data) {
  if (!g_capturing) return false;
  Node n;
  n.kind = Kind::Host;
  take_site(n, "host function");
  n.fn = fn;
  n.data = data;
  return capture(s, std::move(n));
}
inline bool capture_record(cudaEvent_t e, cudaStream_t s) {
  CaptureState &cs = captures();
  std::lock_guard<std::recursive_mutex> hold(cs.m);
  if (Capturing *c = capturing(s)) {
    cs.events[e] = *c;
    return true;
  }
  if (!cs.events.empty()) cs.events.erase(e);
  return false;
}
inline bool capture_wait(cudaStream_t s, cudaEvent_t e) {
  CaptureState &cs = captures();
  std::lock_guard<std::recursive_mutex> hold(cs.m);
  auto it = cs.events.find(e);
  if (it == cs.events.end()) return false;
  Capturing *c = capturing(s);
  if (!c) {   // the stream joins the capture, after the event's nodes
    cs.streams[s] = it->second;
    ++g_capturing;
    return true;
  }
  if (c->cap != it->second.cap) return false;   // (another capture: CUDA refuses the merge; not emulated)
  for (size_t i : it->second.last)
    if (std::find(c->last.begin(), c->last.end(), i) == c->last.end()) c->last.push_back(i);
  return true;
}

// The nodes `from` reaches backwards (itself included).
inline std::vector<bool> before(const CUgraph_st &g, const std::vector<size_t> &from) {
  std::vector<bool> seen(g.nodes.size(), false);
  std::vector<size_t> todo(from);
  while (!todo.empty()) {
    size_t i = todo.back();
    todo.pop_back();
    if (seen[i]) continue;
    seen[i] = true;
    for (size_t d : g.nodes[i].deps) todo.push_back(d);
  }
  return seen;
}

// ------------------------------------------------------------------ running an instantiated graph
inline void run_node(const Node &n, cudaStream_t s) {
  switch (n.kind) {
    case Kind::Kernel: {
      detail::Launch L{n.name, n.file, n.line, n.grid, n.block, n.shm, nullptr, nullptr, s};
      if (g_tool.kernel_begin) g_tool.kernel_begin(n, L);
      n.run(L);
      if (g_tool.kernel_end) g_tool.kernel_end();
      break;
    }
    case Kind::Copy:
      for (const Row &r : n.rows) std::memmove(r.dst, r.src, r.n);
      break;
    case Kind::Set:
      for (const Row &r : n.rows)
        for (size_t b = 0; b < r.n; b += n.elem) std::memcpy(r.dst + b, &n.value, std::min<size_t>(n.elem, r.n - b));
      break;
    case Kind::Host:
      n.fn(n.data);
      break;
    case Kind::Empty:
      break;
  }
}

}  // namespace cudaemu::graphs

// ------------------------------------------------------------------ the runtime API

inline cudaError_t cudaGraphCreate(cudaGraph_t *g, unsigned) {
  if (!g) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  *g = new CUgraph_st;
  return cudaSuccess;
}
inline cudaError_t cudaGraphDestroy(cudaGraph_t g) { delete g; return cudaSuccess; }
namespace cudaemu::graphs {
inline cudaError_t add(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, Node n,
                       const char *api) {
  if (!g || (ndeps && !deps)) return detail::record(cudaErrorInvalidValue);
  for (size_t i = 0; i < ndeps; ++i)
    if (!deps[i] || deps[i]->graph != g) return detail::record(cudaErrorInvalidValue);
  take_site(n, api);
  size_t i = add_node(g, std::move(n), deps, ndeps);
  if (out) *out = g->handles[i].get();
  return cudaSuccess;
}
}  // namespace cudaemu::graphs
inline cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                          size_t ndeps, const cudaKernelNodeParams *p) {
  namespace G = ::cudaemu::graphs;
  if (!p) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  const G::Registered *k = G::find_kernel(p->func, "cudaGraphAddKernelNode");
  if (!k) return ::cudaemu::detail::record(cudaErrorInvalidDeviceFunction);
  G::Node n;
  n.kind = G::Kind::Kernel;
  n.func = p->func;
  n.name = k->name;
  n.grid = p->gridDim;
  n.block = p->blockDim;
  n.shm = p->sharedMemBytes;
  G::Bound b = k->bind(p->kernelParams);   // (the parameters are copied now, as CUDA copies them)
  n.run = std::move(b.run), n.params = std::move(b.params);
  return G::add(out, g, deps, ndeps, std::move(n), "cudaGraphAddKernelNode");
}
inline cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                          size_t ndeps, const cudaMemcpy3DParms *p) {
  namespace G = ::cudaemu::graphs;
  if (!p || p->srcArray || p->dstArray) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  G::Node n;
  n.kind = G::Kind::Copy;
  const cudaPitchedPtr &s = p->srcPtr, &d = p->dstPtr;
  const size_t depth = p->extent.depth ? p->extent.depth : 1, height = p->extent.height ? p->extent.height : 1;
  for (size_t z = 0; z < depth; ++z)
    for (size_t y = 0; y < height; ++y)
      n.rows.push_back(G::Row{static_cast<char *>(d.ptr) + ((p->dstPos.z + z) * d.ysize + p->dstPos.y + y) * d.pitch + p->dstPos.x,
                              static_cast<const char *>(s.ptr) + ((p->srcPos.z + z) * s.ysize + p->srcPos.y + y) * s.pitch + p->srcPos.x,
                              p->extent.width});
  return G::add(out, g, deps, ndeps, std::move(n), "cudaGraphAddMemcpyNode");
}
inline cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                            size_t ndeps, void *dst, const void *src, size_t count, cudaMemcpyKind) {
  namespace G = ::cudaemu::graphs;
  G::Node n;
  n.kind = G::Kind::Copy;
  n.rows = G::rows(dst, count, src, count, count, 1);
  return G::add(out, g, deps, ndeps, std::move(n), "cudaGraphAddMemcpyNode1D");
}
inline cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                          size_t ndeps, const cudaMemsetParams *p) {
  namespace G = ::cudaemu::graphs;
  if (!p || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4))
    return ::cudaemu::detail::record(cudaErrorInvalidValue);
  G::Node n;
  n.kind = G::Kind::Set;
  n.rows = G::rows(p->dst, p->pitch, nullptr, 0, p->width * p->elementSize, p->height ? p->height : 1);
  n.value = p->value;
  n.elem = p->elementSize;
  return G::add(out, g, deps, ndeps, std::move(n), "cudaGraphAddMemsetNode");
}
inline cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                        size_t ndeps, const cudaHostNodeParams *p) {
  namespace G = ::cudaemu::graphs;
  if (!p || !p->fn) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  G::Node n;
  n.kind = G::Kind::Host;
  n.fn = p->fn;
  n.data = p->userData;
  return G::add(out, g, deps, ndeps, std::move(n), "cudaGraphAddHostNode");
}
inline cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                         size_t ndeps) {
  return ::cudaemu::graphs::add(out, g, deps, ndeps, ::cudaemu::graphs::Node{}, "cudaGraphAddEmptyNode");
}
// CUDA 13's form (edge data: only the default edges are emulated) and CUDA 12's
inline cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                            const cudaGraphEdgeData *, size_t n) {
  if (!g || (n && (!from || !to))) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  for (size_t i = 0; i < n; ++i) {
    if (!from[i] || !to[i] || from[i]->graph != g || to[i]->graph != g)
      return ::cudaemu::detail::record(cudaErrorInvalidValue);
    g->nodes[to[i]->index].deps.push_back(from[i]->index);
  }
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                            size_t n) {
  return cudaGraphAddDependencies(g, from, to, nullptr, n);
}
inline cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n) {
  if (!g || !n) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  if (nodes)
    for (size_t i = 0; i < *n; ++i) nodes[i] = i < g->handles.size() ? g->handles[i].get() : nullptr;
  *n = g->handles.size();
  return cudaSuccess;
}
inline cudaError_t cudaGraphGetRootNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n) {
  if (!g || !n) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> roots;
  for (size_t i = 0; i < g->nodes.size(); ++i)
    if (g->nodes[i].deps.empty()) roots.push_back(g->handles[i].get());
  if (nodes)
    for (size_t i = 0; i < *n; ++i) nodes[i] = i < roots.size() ? roots[i] : nullptr;
  *n = roots.size();
  return cudaSuccess;
}
inline cudaError_t cudaGraphNodeGetType(cudaGraphNode_t n, cudaGraphNodeType *t) {
  if (!n || !t) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  using K = ::cudaemu::graphs::Kind;
  switch (n->graph->nodes[n->index].kind) {
    case K::Kernel: *t = cudaGraphNodeTypeKernel; break;
    case K::Copy: *t = cudaGraphNodeTypeMemcpy; break;
    case K::Set: *t = cudaGraphNodeTypeMemset; break;
    case K::Host: *t = cudaGraphNodeTypeHost; break;
    case K::Empty: *t = cudaGraphNodeTypeEmpty; break;
  }
  return cudaSuccess;
}
inline cudaError_t cudaGraphClone(cudaGraph_t *clone, cudaGraph_t g) {
  if (!clone || !g) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  CUgraph_st *c = new CUgraph_st;
  c->nodes = g->nodes;
  for (size_t i = 0; i < c->nodes.size(); ++i) c->handles.push_back(std::make_unique<CUgraphNode_st>(CUgraphNode_st{c, i}));
  *clone = c;
  return cudaSuccess;
}
// The nodes in a topological order (Kahn's, the earliest added first); a cycle is refused.
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g, unsigned long long = 0) {
  static unsigned long long made = 0;
  if (!e || !g) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  const size_t n = g->nodes.size();
  std::vector<size_t> waiting(n, 0), order, at(n, 0);
  std::vector<std::vector<size_t>> next(n);
  for (size_t i = 0; i < n; ++i)
    for (size_t d : g->nodes[i].deps) {
      ++waiting[i];
      next[d].push_back(i);
    }
  std::vector<size_t> ready;
  for (size_t i = n; i-- > 0;)
    if (!waiting[i]) ready.push_back(i);
  while (!ready.empty()) {
    auto it = std::min_element(ready.begin(), ready.end());
    size_t i = *it;
    ready.erase(it);
    order.push_back(i);
    for (size_t j : next[i])
      if (--waiting[j] == 0) ready.push_back(j);
  }
  if (order.size() != n) return ::cudaemu::detail::record(cudaErrorInvalidValue);   // a cycle
  CUgraphExec_st *x = new CUgraphExec_st;
  x->id = ++made;
  for (size_t k = 0; k < n; ++k) at[order[k]] = k;
  for (size_t i : order) {
    x->nodes.push_back(g->nodes[i]);
    for (size_t &d : x->nodes.back().deps) d = at[d];
  }
  *e = x;
  return cudaSuccess;
}
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g, cudaGraphNode_t *error_node, char *log,
                                        size_t log_size) {   // (CUDA 11's form, which cuda_runtime.h keeps)
  if (error_node) *error_node = nullptr;
  if (log && log_size) log[0] = 0;
  return cudaGraphInstantiate(e, g, 0ull);
}
inline cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *e, cudaGraph_t g, unsigned long long flags = 0) {
  return cudaGraphInstantiate(e, g, flags);
}
inline cudaError_t cudaGraphUpload(cudaGraphExec_t, cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t s) {
  namespace G = ::cudaemu::graphs;
  if (!e) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  if (G::stream_captures(s)) return ::cudaemu::detail::record(cudaErrorStreamCaptureUnsupported);   // (not emulated)
  G::site(nullptr, 0);
  if (G::g_tool.launch_begin) G::g_tool.launch_begin(*e, s);
  for (size_t i = 0; i < e->nodes.size(); ++i) {
    cudaStream_t on = G::g_tool.node_begin ? G::g_tool.node_begin(*e, i) : s;
    G::run_node(e->nodes[i], on);
    if (G::g_tool.node_end) G::g_tool.node_end(*e, i);
  }
  if (G::g_tool.launch_end) G::g_tool.launch_end(*e, s);
  return cudaSuccess;
}
inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e) {
  if (e && ::cudaemu::graphs::g_tool.exec_destroyed) ::cudaemu::graphs::g_tool.exec_destroyed(*e);
  delete e; return cudaSuccess;
}

inline cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode) {
  namespace G = ::cudaemu::graphs;
  G::CaptureState &cs = G::captures();
  std::lock_guard<std::recursive_mutex> hold(cs.m);
  if (s == nullptr || s == cudaStreamLegacy) return ::cudaemu::detail::record(cudaErrorStreamCaptureUnsupported);
  if (G::capturing(s)) return ::cudaemu::detail::record(cudaErrorIllegalState);
  cs.streams[s] = G::Capturing{new G::Capture{new CUgraph_st, s}, {}};
  ++G::g_capturing;
  return cudaSuccess;
}
inline cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *out) {
  namespace G = ::cudaemu::graphs;
  G::CaptureState &cs = G::captures();
  std::lock_guard<std::recursive_mutex> hold(cs.m);
  G::Capturing *c = G::capturing(s);
  if (!c) return ::cudaemu::detail::record(cudaErrorIllegalState);
  if (c->cap->origin != s) return ::cudaemu::detail::record(cudaErrorStreamCaptureUnmatched);
  G::Capture *cap = c->cap;
  // every other stream of the capture must have been joined: its last nodes come before the origin's
  const std::vector<bool> joined = G::before(*cap->graph, c->last);
  bool unjoined = false;
  for (auto it = cs.streams.begin(); it != cs.streams.end();) {
    if (it->second.cap != cap) {
      ++it;
      continue;
    }
    for (size_t i : it->second.last) unjoined |= !joined[i];
    it = cs.streams.erase(it);
    --G::g_capturing;
  }
  for (auto it = cs.events.begin(); it != cs.events.end();) it = it->second.cap == cap ? cs.events.erase(it) : std::next(it);
  CUgraph_st *g = cap->graph;
  delete cap;
  if (unjoined) {
    delete g;
    if (out) *out = nullptr;
    return ::cudaemu::detail::record(cudaErrorStreamCaptureUnjoined);
  }
  if (out) *out = g; else delete g;
  return cudaSuccess;
}
inline cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus *status) {
  if (!status) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  *status = ::cudaemu::graphs::stream_captures(s) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

#endif  // CUDAEMU_GRAPHS_H
