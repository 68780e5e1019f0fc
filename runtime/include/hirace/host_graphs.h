// CUDA graphs and stream capture in the stream relation (host_streams.h; cpu backend, HIRACE_STREAMS=1).
//
// A graph launch (cudaGraphLaunch(exec, s), cudaemu/graphs.h) is an operation of its stream and a set of
// operations, its nodes, ordered by the graph's edges: the launch takes what the host and the stream know
// and what the exec's earlier launch did (CUDA orders the launches of one executable graph), each node
// what its dependencies did, and what follows in the stream takes every node's. Each node of an exec is an
// agent of the relation of its own (a clock entry, named "graph node on <stream>"), so two nodes with no
// path between them are unordered: if they touch the same bytes, one writing, that is a race between
// unordered operations, reported with both nodes (a kernel node: the kernel's name; the line where the
// node was added, cudaGraphAdd*Node, or captured: the launch or call on the capturing stream). The nodes
// run in a topological order, one at a time: the verdict comes from the relation, not the interleaving.
// A kernel node's footprint is its launch's, as any launch's (stream_footprint.h): its grid runs under
// hirace's launch brackets (host_launch.h before_launch, after_launch), its threads' accesses checked.
//
// While a stream captures, the calls made on it are the graph's, not operations: the hooks of
// host_stream_hooks.h are bypassed (a capturing stream's copy, set, host function, event record and
// wait), the launches recorded (host_launch.h `capturing`), and each captured node is named by the line
// of its call (cudaemu::graphs::site).
//
// On the gpu backend hirace runs an executable graph's nodes itself, in the same relation (host_graphs_gpu.h: the
// graph cloned at instantiation, each node launched as a graph of it alone, a kernel node inside hirace's
// brackets), and what a capturing stream is given (cudaStreamIsCapturing, asked only while the program
// captures: host_alloc.h begin_capture) is the graph's, not an operation, as on the cpu backend.
#ifndef HIRACE_HOST_GRAPHS_H
#define HIRACE_HOST_GRAPHS_H

#include "cudacommon/graph_nodes.h"

namespace hirace {
namespace streams {

#if !defined(CUDAEMU) || CUDAEMU_GRAPHS
// (the relation's part, for cudaemu's graphs and for host_graphs_gpu.h's: an exec `E` has `nodes`, in a
// topological order, each with `kind` and `rows` (cudacommon/graph_nodes.h), `deps` indexing that list, and
// the `api`, `file` and `line` that name it)

struct ExecState {                 // an instantiated graph, as the relation follows it
  std::vector<unsigned> agent;     // each node's agent
  std::vector<char> key;           // each node's stream handle: &key[i] (agent_of finds the node's agent)
  std::vector<Clock> done;         // each node's clock once it ran (this launch)
  Clock base, last;                // what this launch starts after; what the exec's last launch did
  unsigned stream = 0;             // the launch's stream
};
inline std::unordered_map<const void *, ExecState> &execs() {
  static auto *x = new std::unordered_map<const void *, ExecState>;
  return *x;
}

template <class E> inline void graph_launch_begin(const E &e, cudaStream_t s) {
  access::enter();   // (host_access.h: every page open while the nodes run, until graph_launch_end)
  Relation &r = relation();
  std::lock_guard<std::recursive_mutex> hold(r.m);
  ExecState &x = execs()[&e];
  const unsigned a = agent_of(r, s);
  if (x.agent.empty() && !e.nodes.empty()) {
    x.key.assign(e.nodes.size(), 0);
    for (size_t i = 0; i < e.nodes.size(); ++i) {
      r.agents.push_back(Agent{"", false, {}});
      x.agent.push_back(unsigned(r.agents.size() - 1));
      r.by_stream[&x.key[i]] = x.agent.back();
    }
  }
  for (unsigned n : x.agent) r.agents[n].name = "graph node on " + r.agents[a].name;
  enqueue(r, a);   // the launch, in its stream
  x.base = r.agents[a].clock;
  join(x.base, x.last);
  x.done.assign(e.nodes.size(), Clock{});
  x.stream = a;
}

// Node i starts after the launch's start and its dependencies; a copy, set or host node is issued here (a
// kernel node when its grid has run: kernel_done, on the node's stream handle).
template <class E> inline cudaStream_t graph_node_begin(const E &e, size_t i) {
  Relation &r = relation();
  std::lock_guard<std::recursive_mutex> hold(r.m);
  ExecState &x = execs()[&e];
  const auto &node = e.nodes[i];
  using ::cctk::graphs::Kind;
  const unsigned n = x.agent[i];
  join(r.agents[n].clock, x.base);
  for (size_t d : node.deps) join(r.agents[n].clock, x.done[d]);
  if (node.kind == Kind::Copy || node.kind == Kind::Set || node.kind == Kind::Host) {
    Op op{node.api, "", node.file, unsigned(node.line), 0, 0, {}};
    for (const auto &row : node.rows) {
      add_span(op.fp, footprint::kWrite, row.dst, row.n);
      if (row.src) add_span(op.fp, footprint::kRead, row.src, row.n);
    }
    sort_spans(op.fp);
    issue(r, n, std::move(op));
  } else if (node.kind == Kind::Empty) {
    enqueue(r, n);
  }
  return reinterpret_cast<cudaStream_t>(&x.key[i]);
}

template <class E> inline void graph_node_end(const E &e, size_t i) {
  Relation &r = relation();
  std::lock_guard<std::recursive_mutex> hold(r.m);
  ExecState &x = execs()[&e];
  x.done[i] = r.agents[x.agent[i]].clock;
}

// What follows in the stream comes after every node.
template <class E> inline void graph_launch_end(const E &e, cudaStream_t) {
  {
    Relation &r = relation();
    std::lock_guard<std::recursive_mutex> hold(r.m);
    ExecState &x = execs()[&e];
    Clock all = x.base;
    for (const Clock &c : x.done) join(all, c);
    join(r.agents[x.stream].clock, all);
    x.last = all;
  }
  access::leave();
}

template <class E> inline void graph_exec_destroyed(const E &e) {
  Relation &r = relation();
  std::lock_guard<std::recursive_mutex> hold(r.m);
  auto it = execs().find(&e);
  if (it == execs().end()) return;
  for (char &k : it->second.key) r.by_stream.erase(&k);   // (its nodes' operations keep their agents)
  execs().erase(it);
}

#endif  // !defined(CUDAEMU) || CUDAEMU_GRAPHS

#if defined(CUDAEMU) && CUDAEMU_GRAPHS
// A kernel node's grid, bracketed as a launch (host_launch.h)
// (with the quiet parameters, written buffers and widths its kernel's entry prepares from the node's arguments:
// host_kernel_pointers.h params_prepare)
inline void graph_kernel_begin(const ::cudaemu::graphs::Node &n, const ::cudaemu::detail::Launch &L) {
  if (n.func) ::hirace::host::params_prepare(n.func, L.block, L.grid, n.params);
  ::hirace::host::before_launch(n.func, L.name, L.grid, L.block, L.shm, false, false, false);
}
inline void graph_kernel_end() { ::hirace::host::after_launch(); }

inline const bool kGraphsHooked = [] {
  ::cudaemu::graphs::Tool &t = ::cudaemu::graphs::g_tool;
  t.launch_begin = &graph_launch_begin<CUgraphExec_st>;
  t.node_begin = &graph_node_begin<CUgraphExec_st>;
  t.node_end = &graph_node_end<CUgraphExec_st>;
  t.launch_end = &graph_launch_end<CUgraphExec_st>;
  t.kernel_begin = &graph_kernel_begin;
  t.kernel_end = &graph_kernel_end;
  t.exec_destroyed = &graph_exec_destroyed<CUgraphExec_st>;
  return true;
}();

// Stream capture: hirace's launch brackets record, not run, while a stream captures (host_launch.h).
inline cudaError_t begin_capture(cudaStream_t s, cudaStreamCaptureMode mode) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  cudaError_t e = (cudaStreamBeginCapture)(s, mode);
  host::state().capturing = ::cudaemu::graphs::g_capturing;
  return e;
}
inline cudaError_t end_capture(cudaStream_t s, cudaGraph_t *g) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  cudaError_t e = (cudaStreamEndCapture)(s, g);
  host::state().capturing = ::cudaemu::graphs::g_capturing;
  return e;
}
inline bool stream_captures(cudaStream_t s) { return ::cudaemu::graphs::stream_captures(s); }
inline bool event_captured(cudaEvent_t e) { return ::cudaemu::graphs::event_captured(e); }
inline bool captured(const char *file, unsigned line, const char *api, cudaStream_t s) {
  if (!::cudaemu::graphs::stream_captures(s)) return false;
  ::cudaemu::graphs::site(file, int(line), api);
  return true;
}
// (the captured call's node was named by `captured`, before the call)
inline cudaError_t captured_node(cudaError_t e, cudaStream_t, const char *, unsigned, const char *) { return e; }
#elif defined(CUDAEMU)
// No unit of the program calls the graph or capture API (CUDAEMU_GRAPHS=0, cudaemu/graphs_absent.h): no stream
// captures, and the hooks of host_stream_hooks.h stay the program's calls
inline bool captured(const char *, unsigned, const char *, cudaStream_t) { return false; }
#else
// Whether s captures (a stream the runtime says it cannot tell of while a capture runs: taken as capturing,
// so that no operation is made of a call the capture may have taken)
inline bool stream_captures(cudaStream_t s) {
  if (host::state().capturing <= 0) return false;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(s, &status) != cudaSuccess) return true;
  return status == cudaStreamCaptureStatusActive;
}
inline bool event_captured(cudaEvent_t) { return false; }
inline bool captured(const char *, unsigned, const char *, cudaStream_t s) { return stream_captures(s); }
#endif
#if !defined(CUDAEMU)
}  // namespace streams
}  // namespace hirace
#include "host_graphs_gpu.h"   // the gpu backend: hirace runs a graph's nodes itself
namespace hirace {
namespace streams {
#endif
#if !defined(CUDAEMU) || CUDAEMU_GRAPHS
inline cudaError_t graph_memcpy_async(const char *file, unsigned line, void *dst, const void *src, size_t n,
                                      cudaMemcpyKind kind, cudaStream_t s = nullptr) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  if (captured(file, line, "cudaMemcpyAsync", s))
    return captured_node((cudaMemcpyAsync)(dst, src, n, kind, s), s, file, line, "cudaMemcpyAsync");
  return memcpy_async(file, line, dst, src, n, kind, s);
}
inline cudaError_t graph_memset_async(const char *file, unsigned line, void *p, int v, size_t n, cudaStream_t s = nullptr) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  if (captured(file, line, "cudaMemsetAsync", s))
    return captured_node((cudaMemsetAsync)(p, v, n, s), s, file, line, "cudaMemsetAsync");
  return memset_async(file, line, p, v, n, s);
}
inline cudaError_t graph_launch_host_func(const char *file, unsigned line, cudaStream_t s, cudaHostFn_t fn, void *data) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  if (captured(file, line, "cudaLaunchHostFunc", s))   // (its thread marked as it runs: host_access.h InCallback)
    return captured_node((cudaLaunchHostFunc)(s, &run_host_func, host_call(fn, data)), s, file, line,
                         "cudaLaunchHostFunc");
  return launch_host_func(file, line, s, fn, data);
}
inline cudaError_t graph_event_record(cudaEvent_t e, cudaStream_t s = nullptr) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  if (stream_captures(s)) return (cudaEventRecord)(e, s);
  return event_record(e, s);
}
inline cudaError_t graph_wait_event(cudaStream_t s, cudaEvent_t e, unsigned flags = 0) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  if (stream_captures(s) || event_captured(e))
    return (cudaStreamWaitEvent)(s, e, flags);
  return stream_wait_event(s, e, flags);
}
#endif

}  // namespace streams
}  // namespace hirace

// The program's calls (after host_stream_hooks.h's, which the capture-aware ones replace)
#if !defined(CUDAEMU) || CUDAEMU_GRAPHS
#undef cudaMemcpyAsync
#undef cudaMemsetAsync
#undef cudaLaunchHostFunc
#undef cudaEventRecord
#undef cudaStreamWaitEvent
#define cudaMemcpyAsync(...) hirace_streams::graph_memcpy_async(__FILE__, __LINE__, __VA_ARGS__)
#define cudaMemsetAsync(...) hirace_streams::graph_memset_async(__FILE__, __LINE__, __VA_ARGS__)
#define cudaLaunchHostFunc(s, fn, data) hirace_streams::graph_launch_host_func(__FILE__, __LINE__, s, fn, data)
#define cudaEventRecord(...) hirace_streams::graph_event_record(__VA_ARGS__)
#define cudaStreamWaitEvent(...) hirace_streams::graph_wait_event(__VA_ARGS__)
#if defined(CUDAEMU)   // (on the gpu backend host_alloc.h's capture hooks stay, and CUDA names the nodes)
#define cudaStreamBeginCapture(s, mode) hirace_streams::begin_capture(s, mode)
#define cudaStreamEndCapture(s, g) hirace_streams::end_capture(s, g)
// the calls that add a node: named by their line
#define cudaGraphAddKernelNode(...) (::cudaemu::graphs::site(__FILE__, __LINE__), (cudaGraphAddKernelNode)(__VA_ARGS__))
#define cudaGraphAddMemcpyNode(...) (::cudaemu::graphs::site(__FILE__, __LINE__), (cudaGraphAddMemcpyNode)(__VA_ARGS__))
#define cudaGraphAddMemcpyNode1D(...) (::cudaemu::graphs::site(__FILE__, __LINE__), (cudaGraphAddMemcpyNode1D)(__VA_ARGS__))
#define cudaGraphAddMemsetNode(...) (::cudaemu::graphs::site(__FILE__, __LINE__), (cudaGraphAddMemsetNode)(__VA_ARGS__))
#define cudaGraphAddHostNode(...) (::cudaemu::graphs::site(__FILE__, __LINE__), (cudaGraphAddHostNode)(__VA_ARGS__))
#define cudaGraphAddEmptyNode(...) (::cudaemu::graphs::site(__FILE__, __LINE__), (cudaGraphAddEmptyNode)(__VA_ARGS__))
#endif
#endif  // !defined(CUDAEMU) || CUDAEMU_GRAPHS
#if !defined(CUDAEMU)   // the gpu backend: hirace runs the graphs' nodes (host_graphs_gpu.h)
#define HIRACE_NODE_ADDED(api, p, ...) hirace_streams::node_added(__FILE__, __LINE__, #api, p, (api)(p, __VA_ARGS__))
#define cudaGraphAddKernelNode(p, ...) HIRACE_NODE_ADDED(cudaGraphAddKernelNode, p, __VA_ARGS__)
#define cudaGraphAddMemcpyNode(p, ...) HIRACE_NODE_ADDED(cudaGraphAddMemcpyNode, p, __VA_ARGS__)
#define cudaGraphAddMemcpyNode1D(p, ...) HIRACE_NODE_ADDED(cudaGraphAddMemcpyNode1D, p, __VA_ARGS__)
#define cudaGraphAddMemcpyNodeToSymbol(p, ...) HIRACE_NODE_ADDED(cudaGraphAddMemcpyNodeToSymbol, p, __VA_ARGS__)
#define cudaGraphAddMemcpyNodeFromSymbol(p, ...) HIRACE_NODE_ADDED(cudaGraphAddMemcpyNodeFromSymbol, p, __VA_ARGS__)
#define cudaGraphAddMemsetNode(p, ...) HIRACE_NODE_ADDED(cudaGraphAddMemsetNode, p, __VA_ARGS__)
#define cudaGraphAddHostNode(p, ...) HIRACE_NODE_ADDED(cudaGraphAddHostNode, p, __VA_ARGS__)
#define cudaGraphAddEmptyNode(p, ...) HIRACE_NODE_ADDED(cudaGraphAddEmptyNode, p, __VA_ARGS__)
#define cudaGraphAddNode(p, ...) HIRACE_NODE_ADDED(cudaGraphAddNode, p, __VA_ARGS__)
#define cudaGraphInstantiate(...) hirace_streams::instantiate(__VA_ARGS__)
#define cudaGraphInstantiateWithFlags(...) hirace_streams::instantiate_with_flags(__VA_ARGS__)
#define cudaGraphInstantiateWithParams(...) hirace_streams::instantiate_with_params(__VA_ARGS__)
#define cudaGraphLaunch(x, s) hirace_streams::graph_launch(__FILE__, __LINE__, x, s)
#define cudaGraphExecDestroy(x) hirace_streams::graph_exec_destroy(x)
#define HIRACE_EXEC_CHANGED(api, x, ...) hirace_streams::exec_changed(x, #api, (api)(x, __VA_ARGS__))
#define cudaGraphExecUpdate(x, ...) HIRACE_EXEC_CHANGED(cudaGraphExecUpdate, x, __VA_ARGS__)
#define cudaGraphExecKernelNodeSetParams(x, ...) HIRACE_EXEC_CHANGED(cudaGraphExecKernelNodeSetParams, x, __VA_ARGS__)
#define cudaGraphExecMemcpyNodeSetParams(x, ...) HIRACE_EXEC_CHANGED(cudaGraphExecMemcpyNodeSetParams, x, __VA_ARGS__)
#define cudaGraphExecMemcpyNodeSetParams1D(x, ...) HIRACE_EXEC_CHANGED(cudaGraphExecMemcpyNodeSetParams1D, x, __VA_ARGS__)
#define cudaGraphExecMemsetNodeSetParams(x, ...) HIRACE_EXEC_CHANGED(cudaGraphExecMemsetNodeSetParams, x, __VA_ARGS__)
#define cudaGraphExecHostNodeSetParams(x, ...) HIRACE_EXEC_CHANGED(cudaGraphExecHostNodeSetParams, x, __VA_ARGS__)
#define cudaGraphExecNodeSetParams(x, ...) HIRACE_EXEC_CHANGED(cudaGraphExecNodeSetParams, x, __VA_ARGS__)
#define cudaGraphNodeSetEnabled(x, ...) HIRACE_EXEC_CHANGED(cudaGraphNodeSetEnabled, x, __VA_ARGS__)
#endif
#if defined(CUDAEMU)   // a launch by the kernel's address, named by its line (cudaemu/registry.h, with graphs or not)
#define cudaLaunchKernel(...) (::cudaemu::graphs::site(__FILE__, __LINE__), (cudaLaunchKernel)(__VA_ARGS__))
#define cudaLaunchCooperativeKernel(...) (::cudaemu::graphs::site(__FILE__, __LINE__), (cudaLaunchCooperativeKernel)(__VA_ARGS__))
#endif
#endif  // HIRACE_HOST_GRAPHS_H
