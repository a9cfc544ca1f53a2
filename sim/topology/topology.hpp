#pragma once
// GPU interconnect topologies of node templates, as graphs (Boost.Graph): GPUs, PCIe switches,
// CPU sockets and NVSwitches as vertices; PCIe, inter-socket, NVLink and NVSwitch links as edges.
// From a graph gpusim derives, for every GPU pair, the link class NVIDIA's tools report and the
// pair score of NVIDIA's best-effort allocation policy (go-gpuallocator; sim/topology/README.md).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cluster/node.hpp"

namespace gpusim::topology {

// The connection between two GPUs, slowest first (nvidia-smi topo's SYS, NODE, PHB, PXB, PIX, then
// a board-internal link, then NVLink directly or through NVSwitches).
enum class LinkClass : std::uint8_t {
  kCrossCpu,      // SYS: across the inter-socket link
  kSameCpu,       // NODE: across host bridges of one socket
  kHostBridge,    // PHB: through one CPU's host bridge
  kMultiSwitch,   // PXB: through several PCIe switches
  kSingleSwitch,  // PIX: under one PCIe switch
  kSameBoard,     // on one board
  kNvlink,        // NVLink, direct or through NVSwitches
};
const char* to_string(LinkClass link);

class Topology {
 public:
  const std::string& name() const { return name_; }
  int gpu_count() const { return gpus_; }
  // The fastest connection between GPUs a and b (a != b).
  LinkClass link_class(int a, int b) const { return classes_[index(a, b)]; }
  // NVLink links between a and b, direct or through NVSwitches (0: none).
  int nvlinks(int a, int b) const { return nvlinks_[index(a, b)]; }
  // go-gpuallocator's pair score: the PCIe class's points plus 100 per NVLink it detects. It
  // detects direct NVLinks only: on NVSwitch systems it sees PCIe alone (upstream does not yet handle NVSwitches).
  int pair_score(int a, int b) const { return scores_[index(a, b)]; }
  // The slowest connection inside a set of two or more GPUs.
  LinkClass worst_link(cluster::GpuSet gpus) const;

  // Built by the template library.
  struct Spec {
    std::string name;
    int gpus = 0;
    int sockets = 1;
    // PCIe switches: for each, the socket it hangs off and the GPUs under it.
    struct Switch {
      int socket = 0;
      std::vector<int> gpus;
    };
    std::vector<Switch> switches;
    struct Nvlink {
      int a = 0, b = 0, links = 0;
    };
    std::vector<Nvlink> nvlinks;  // direct GPU-to-GPU
    int nvswitch_links = 0;       // per GPU to the NVSwitch fabric (0: none)
  };
  static Topology build(const Spec& spec);

 private:
  std::size_t index(int a, int b) const { return static_cast<std::size_t>(a * gpus_ + b); }
  std::string name_;
  int gpus_ = 0;
  std::vector<LinkClass> classes_;
  std::vector<int> nvlinks_;
  std::vector<int> scores_;
};

// The bundled node templates, by name: dgx1-v100 (hybrid cube-mesh), dgx-a100, dgx-h100
// (NVSwitch), pcie-2socket-8gpu, pcie-4xt4.
class Library {
 public:
  Library();
  std::optional<int> find(std::string_view name) const;
  const Topology& at(int id) const { return templates_.at(static_cast<std::size_t>(id)); }
  std::string names() const;

 private:
  std::vector<Topology> templates_;
};

// NVIDIA's best-effort policy (go-gpuallocator BestEffort, no required devices): of every
// partition of `available` into sets of `size` (the last padded), the one with the highest summed
// pair score, and in it the highest-scoring full set; ties go to the first found, in index order.
// Returns an empty set when fewer than `size` devices are available.
cluster::GpuSet best_effort(const Topology& topology, cluster::GpuSet available, int size);

}  // namespace gpusim::topology
