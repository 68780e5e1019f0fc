// What a graph node is, as the emulation runs graphs (cudaemu/graphs.h) and as hirace runs them on a GPU
// (hirace/host_graphs_gpu.h): its kind and, for a copy or set, its rows of bytes. The stream relation's
// graph part (hirace/host_graphs.h) reads both through these.
#ifndef CCTK_GRAPH_NODES_H
#define CCTK_GRAPH_NODES_H

#include <cstddef>

namespace cctk {
namespace graphs {

enum class Kind { Kernel, Copy, Set, Host, Empty };
struct Row {   // bytes [dst, dst + n) written (from src, or set)
  char *dst;
  const char *src;
  size_t n;
};

}  // namespace graphs
}  // namespace cctk

#endif  // CCTK_GRAPH_NODES_H
