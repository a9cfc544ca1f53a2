#include "sim/topology/topology.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>

#include <algorithm>
#include <functional>

#include "sim/core/check.hpp"

namespace gpusim::topology {
namespace {

enum class VertexKind : std::uint8_t { kGpu, kPcieSwitch, kCpu, kNvswitch };
enum class EdgeKind : std::uint8_t { kPcie, kInterSocket, kNvlink };

struct VertexProps {
  VertexKind kind = VertexKind::kGpu;
};
struct EdgeProps {
  EdgeKind kind = EdgeKind::kPcie;
  int links = 0;  // NVLink edges: number of links
};
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexProps, EdgeProps>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;

// The host side only: PCIe and inter-socket edges, for the PCIe path between two GPUs.
struct HostEdges {
  const Graph* graph = nullptr;
  template <typename Edge>
  bool operator()(const Edge& e) const { return (*graph)[e].kind != EdgeKind::kNvlink; }
};

// go-gpuallocator's points per PCIe class (besteffort_policy.go).
int pcie_points(LinkClass link) {
  switch (link) {
    case LinkClass::kCrossCpu: return 10;
    case LinkClass::kSameCpu: return 20;
    case LinkClass::kHostBridge: return 30;
    case LinkClass::kMultiSwitch: return 40;
    case LinkClass::kSingleSwitch: return 50;
    case LinkClass::kSameBoard: return 60;
    case LinkClass::kNvlink: return 0;
  }
  return 0;
}

// The PCIe class of the host path between two GPUs: what its inner vertices are.
LinkClass classify(const Graph& graph, const std::vector<Vertex>& path) {
  int cpus = 0, switches = 0;
  for (std::size_t i = 1; i + 1 < path.size(); ++i) {
    cpus += graph[path[i]].kind == VertexKind::kCpu;
    switches += graph[path[i]].kind == VertexKind::kPcieSwitch;
  }
  if (cpus >= 2) return LinkClass::kCrossCpu;
  if (cpus == 1) return LinkClass::kHostBridge;
  return switches == 1 ? LinkClass::kSingleSwitch : LinkClass::kMultiSwitch;
}

}  // namespace

const char* to_string(LinkClass link) {
  switch (link) {
    case LinkClass::kCrossCpu: return "cross-cpu";
    case LinkClass::kSameCpu: return "same-cpu";
    case LinkClass::kHostBridge: return "host-bridge";
    case LinkClass::kMultiSwitch: return "multi-switch";
    case LinkClass::kSingleSwitch: return "single-switch";
    case LinkClass::kSameBoard: return "same-board";
    case LinkClass::kNvlink: return "nvlink";
  }
  return "?";
}

Topology Topology::build(const Spec& spec) {
  GPUSIM_CHECK(spec.gpus > 0 && spec.gpus <= 16, "topology templates have 1 to 16 GPUs");
  Graph graph;
  // Vertices 0 .. gpus-1 are the GPUs, so a GPU index is its vertex.
  for (int g = 0; g < spec.gpus; ++g) boost::add_vertex(VertexProps{VertexKind::kGpu}, graph);
  std::vector<Vertex> cpus;
  for (int s = 0; s < spec.sockets; ++s) cpus.push_back(boost::add_vertex(VertexProps{VertexKind::kCpu}, graph));
  for (int s = 1; s < spec.sockets; ++s) boost::add_edge(cpus[0], cpus[static_cast<std::size_t>(s)], EdgeProps{EdgeKind::kInterSocket, 0}, graph);
  std::vector<int> attached(static_cast<std::size_t>(spec.gpus), 0);
  for (const auto& sw : spec.switches) {
    const Vertex v = boost::add_vertex(VertexProps{VertexKind::kPcieSwitch}, graph);
    boost::add_edge(v, cpus.at(static_cast<std::size_t>(sw.socket)), EdgeProps{EdgeKind::kPcie, 0}, graph);
    for (const int g : sw.gpus) {
      boost::add_edge(static_cast<Vertex>(g), v, EdgeProps{EdgeKind::kPcie, 0}, graph);
      ++attached.at(static_cast<std::size_t>(g));
    }
  }
  GPUSIM_CHECK(std::all_of(attached.begin(), attached.end(), [](int n) { return n == 1; }),
               "every GPU of a template hangs off exactly one PCIe switch");
  for (const auto& link : spec.nvlinks) {
    boost::add_edge(static_cast<Vertex>(link.a), static_cast<Vertex>(link.b), EdgeProps{EdgeKind::kNvlink, link.links}, graph);
  }
  if (spec.nvswitch_links > 0) {
    const Vertex fabric = boost::add_vertex(VertexProps{VertexKind::kNvswitch}, graph);
    for (int g = 0; g < spec.gpus; ++g) {
      boost::add_edge(static_cast<Vertex>(g), fabric, EdgeProps{EdgeKind::kNvlink, spec.nvswitch_links}, graph);
    }
  }

  Topology topology;
  topology.name_ = spec.name;
  topology.gpus_ = spec.gpus;
  const auto cells = static_cast<std::size_t>(spec.gpus * spec.gpus);
  topology.classes_.assign(cells, LinkClass::kCrossCpu);
  topology.nvlinks_.assign(cells, 0);
  topology.scores_.assign(cells, 0);
  const HostEdges host{&graph};
  const boost::filtered_graph<Graph, HostEdges> host_graph(graph, host);
  for (int a = 0; a < spec.gpus; ++a) {
    // One breadth-first search from GPU a gives the host path to every other GPU.
    std::vector<Vertex> parent(boost::num_vertices(graph));
    for (Vertex v = 0; v < parent.size(); ++v) parent[v] = v;
    boost::breadth_first_search(host_graph, static_cast<Vertex>(a),
                                boost::visitor(boost::make_bfs_visitor(boost::record_predecessors(
                                    parent.data(), boost::on_tree_edge()))));
    for (int b = 0; b < spec.gpus; ++b) {
      if (a == b) continue;
      std::vector<Vertex> path{static_cast<Vertex>(b)};
      while (path.back() != static_cast<Vertex>(a)) {
        GPUSIM_CHECK(parent[path.back()] != path.back(), "GPUs of a template must share a host");
        path.push_back(parent[path.back()]);
      }
      const LinkClass pcie = classify(graph, path);
      int direct = 0, through_fabric = 0;
      for (const auto e : boost::make_iterator_range(boost::out_edges(static_cast<Vertex>(a), graph))) {
        if (graph[e].kind != EdgeKind::kNvlink) continue;
        const Vertex other = boost::target(e, graph);
        if (other == static_cast<Vertex>(b)) direct += graph[e].links;
        if (graph[other].kind == VertexKind::kNvswitch) through_fabric = graph[e].links;
      }
      const std::size_t i = topology.index(a, b);
      topology.nvlinks_[i] = direct + through_fabric;
      topology.classes_[i] = topology.nvlinks_[i] > 0 ? LinkClass::kNvlink : pcie;
      topology.scores_[i] = pcie_points(pcie) + 100 * direct;
    }
  }
  return topology;
}

LinkClass Topology::worst_link(cluster::GpuSet gpus) const {
  LinkClass worst = LinkClass::kNvlink;
  for (int a = 0; a < gpus_; ++a) {
    if (!gpus.contains(a)) continue;
    for (int b = a + 1; b < gpus_; ++b) {
      if (gpus.contains(b)) worst = std::min(worst, link_class(a, b));
    }
  }
  return worst;
}

Library::Library() {
  using Spec = Topology::Spec;
  // Two PCIe switches per socket, two GPUs under each: the DGX-1, DGX A100/H100 and common
  // 8-GPU servers (sim/topology/README.md gives the sources).
  const std::vector<Spec::Switch> eight_gpus = {{0, {0, 1}}, {0, {2, 3}}, {1, {4, 5}}, {1, {6, 7}}};
  Spec dgx1{"dgx1-v100", 8, 2, eight_gpus, {}, 0};
  // Hybrid cube-mesh: six NVLinks per V100 (go-gpuallocator's DGX-1 Volta test node).
  for (const auto& [a, b] : {std::pair{0, 1}, {0, 2}, {1, 3}, {2, 6}, {3, 7}, {4, 5}, {4, 6}, {5, 7}}) {
    dgx1.nvlinks.push_back({a, b, 1});
  }
  for (const auto& [a, b] : {std::pair{0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3}, {4, 7}, {5, 6}, {6, 7}}) {
    dgx1.nvlinks.push_back({a, b, 2});
  }
  templates_.push_back(Topology::build(dgx1));
  templates_.push_back(Topology::build({"dgx-a100", 8, 2, eight_gpus, {}, 12}));
  templates_.push_back(Topology::build({"dgx-h100", 8, 2, eight_gpus, {}, 18}));
  templates_.push_back(Topology::build({"pcie-2socket-8gpu", 8, 2, eight_gpus, {}, 0}));
  templates_.push_back(Topology::build({"pcie-4xt4", 4, 1, {{0, {0, 1}}, {0, {2, 3}}}, {}, 0}));
}

std::optional<int> Library::find(std::string_view name) const {
  for (std::size_t i = 0; i < templates_.size(); ++i) {
    if (templates_[i].name() == name) return static_cast<int>(i);
  }
  return std::nullopt;
}

std::string Library::names() const {
  std::string out;
  for (const auto& t : templates_) out += (out.empty() ? "" : ", ") + t.name();
  return out;
}

cluster::GpuSet best_effort(const Topology& topology, cluster::GpuSet available, int size) {
  std::vector<int> devices;
  for (int g = 0; g < topology.gpu_count(); ++g) {
    if (available.contains(g)) devices.push_back(g);
  }
  if (size <= 0 || static_cast<int>(devices.size()) < size) return {};
  if (size == 1) {
    cluster::GpuSet first;
    first.add(devices.front());
    return first;
  }
  const auto set_score = [&](const std::vector<int>& set) {
    int score = 0;
    for (std::size_t i = 0; i < set.size(); ++i) {
      for (std::size_t j = i + 1; j < set.size(); ++j) {
        if (set[i] >= 0 && set[j] >= 0) score += topology.pair_score(set[i], set[j]);
      }
    }
    return score;
  };
  const int pads = (size - static_cast<int>(devices.size()) % size) % size;
  for (int p = 0; p < pads; ++p) devices.push_back(-1);

  std::vector<std::vector<int>> partition, best;
  int best_score = -1;
  // Partitions: the first remaining device with every (size-1)-subset of the rest, in order.
  std::function<void(std::vector<int>)> iterate = [&](std::vector<int> remaining) {
    if (remaining.empty()) {
      int score = 0;
      for (const auto& set : partition) score += set_score(set);
      if (score > best_score) {
        best_score = score;
        best = partition;
      }
      return;
    }
    const int first = remaining.front();
    const std::vector<int> rest(remaining.begin() + 1, remaining.end());
    std::vector<int> pick(static_cast<std::size_t>(size - 1));
    std::function<void(std::size_t, std::size_t)> choose = [&](std::size_t from, std::size_t depth) {
      if (depth == pick.size()) {
        std::vector<int> set{first};
        std::vector<int> left;
        for (std::size_t i = 0, k = 0; i < rest.size(); ++i) {
          if (k < pick.size() && pick[k] == static_cast<int>(i)) {
            set.push_back(rest[i]);
            ++k;
          } else {
            left.push_back(rest[i]);
          }
        }
        const int padding = static_cast<int>(std::count(set.begin(), set.end(), -1));
        if (padding != 0 && padding != pads) return;  // the padding stays together in one set
        partition.push_back(set);
        iterate(left);
        partition.pop_back();
        return;
      }
      for (std::size_t i = from; i < rest.size(); ++i) {
        pick[depth] = static_cast<int>(i);
        choose(i + 1, depth + 1);
      }
    };
    choose(0, 0);
  };
  iterate(devices);

  cluster::GpuSet chosen;
  int chosen_score = -1;
  for (const auto& set : best) {
    if (std::find(set.begin(), set.end(), -1) != set.end()) continue;
    const int score = set_score(set);
    if (score > chosen_score) {
      chosen_score = score;
      chosen = {};
      for (const int g : set) chosen.add(g);
    }
  }
  return chosen;
}

}  // namespace gpusim::topology
