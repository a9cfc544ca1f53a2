#pragma once
// The API server's view of the cluster: every pod object with its phase and timestamps, and every
// node's status as its kubelet last published it. It is the bus's store: it sees each message
// first and records it, so that components read one consistent store and talk only through
// messages. The scheduler reads node status from here, never the kubelet's truth.
#include <cstdint>
#include <vector>

#include "sim/cluster/node.hpp"
#include "sim/core/time.hpp"
#include "sim/k8s/bus.hpp"

namespace gpusim::k8s {

enum class PodPhase : std::uint8_t { kPending, kBound, kAdmitted, kRunning, kSucceeded, kFailed, kDeleted };

struct PodObject {
  std::uint32_t source = 0;   // trace row it comes from
  std::uint32_t attempt = 0;  // 0: the first; k: the owner's k-th replacement
  PodPhase phase = PodPhase::kPending;
  Reason reason = Reason::kNone;
  std::int32_t node = -1;
  cluster::GpuSet gpus;       // the scheduler's annotation, then the devices Allocate mapped
  core::Time created, bound, admitted, running, ended;
  core::Time container_started;  // its containers' last start: `running`, or an in-place restart
  bool was_admitted = false;  // `admitted` is set
};

struct NodeStatus {
  std::int32_t allocatable_gpus = 0;
  cluster::GpuSet unadvertised;  // devices the plugin does not list as healthy
  core::Time published;
  std::uint64_t mig_layouts = 0;  // dynamic MIG: each GPU's layout id, 4 bits per GPU; 0: none reported
};

class ApiServer final : public Store {
 public:
  explicit ApiServer(const std::vector<cluster::NodeSpec>& nodes, std::size_t expected_pods);

  void record(Message& message, core::Time now) override;

  const PodObject& pod(PodId id) const { return pods_[id]; }
  std::size_t pod_count() const { return pods_.size(); }
  // The newest pod object of a trace row, or kNoPod before its first creation.
  PodId latest(std::uint32_t source) const { return latest_[source]; }
  const NodeStatus& node_status(std::uint32_t node) const { return nodes_[node]; }
  // The node lifecycle controller's taints on a node (NodeTaint bits).
  std::uint32_t node_taints(std::uint32_t node) const { return taints_[node]; }

 private:
  std::vector<PodObject> pods_;
  std::vector<PodId> latest_;
  std::vector<NodeStatus> nodes_;
  std::vector<std::uint32_t> taints_;
};

}  // namespace gpusim::k8s
