#include "sim/k8s/mig_partitioner.hpp"

#include <algorithm>

namespace gpusim::k8s {

MigPartitioner::MigPartitioner(Bus& bus, const ApiServer& api, const cluster::ClusterState& truth,
                               const std::vector<NodeSetup>& setup, const std::vector<cluster::PodSpec>& pods,
                               const KubeSettings& settings, const std::vector<std::uint8_t>& present)
    : bus_(bus), api_(api), truth_(truth), setup_(setup), pods_(pods), settings_(settings), node_free_(setup.size()),
      bound_(setup.size()),
      bound_cpu_(setup.size(), 0),
      bound_memory_(setup.size(), 0),
      silent_since_(setup.size(), 0),
      present_(present) {
  for (std::uint32_t n = 0; n < setup.size(); ++n) {
    if (setup[n].model == DevicePluginModel::kMig && setup[n].mig_dynamic && truth.node(n).gpu_count > 0) dynamic_nodes_.push_back(n);
  }
  // Number the distinct asks (in sorted order, so ids do not depend on anything but the asks).
  std::vector<std::pair<Ask, std::uint32_t>> asks;
  for (std::uint32_t source = 0; source < pods.size(); ++source) {
    const cluster::PodSpec& pod = pods[source];
    if (pod.device_class == 0) continue;
    asks.push_back({{pod.cpu_milli, pod.memory_mib, pod.allowed_models.bits, pod.device_class - 1, pod.gpu_count}, source});
  }
  std::sort(asks.begin(), asks.end());
  ask_id_.assign(pods.size(), 0);
  std::uint32_t id = 0;
  for (std::size_t i = 0; i < asks.size(); ++i) {
    if (i > 0 && asks[i].first != asks[i - 1].first) ++id;
    ask_id_[asks[i].second] = id;
  }
  hopeless_in_.assign(asks.empty() ? 0 : id + 1, 0);
}

void MigPartitioner::on_message(const Message& message, core::Time now) {
  switch (message.topic) {
    case Topic::kPodCreated:
      if (pods_[message.source].device_class != 0) waiting_.push_back(message.pod);
      break;
    case Topic::kPodBound:
      if (api_.pod(message.pod).phase == PodPhase::kDeleted) break;  // a binding the API server refused
      if (const auto it = std::find(waiting_.begin(), waiting_.end(), message.pod); it != waiting_.end()) waiting_.erase(it);
      // Its instances are taken from now on, though the kubelet admits it only later.
      if (pods_[message.source].device_class != 0) binding_.push_back({message.pod, message.node, message.gpus});
      break;
    case Topic::kPodAdmitted:
      forget_binding(message.pod);
      break;
    case Topic::kPodDeleted:
    case Topic::kPodTerminated:
      if (const auto it = std::find(waiting_.begin(), waiting_.end(), message.pod); it != waiting_.end()) waiting_.erase(it);
      forget_binding(message.pod);
      break;
    case Topic::kCycleDone:
      if (!waiting_.empty()) partition(now);
      break;
    case Topic::kNodeJoined:
      present_[message.node] = 1;
      break;
    case Topic::kNodeRemoved:
      present_[message.node] = 0;
      break;
    default:
      break;
  }
}

void MigPartitioner::forget_binding(PodId pod) {
  std::erase_if(binding_, [&](const Binding& b) { return b.pod == pod; });
}

void MigPartitioner::on_timer(std::uint32_t, std::uint64_t, core::Time now) {
  // A request lapsed (its kubelet did not re-partition): look again.
  if (!waiting_.empty()) partition(now);
}

// Whether node n can take `pod` apart from its GPUs: present, reachable, the pod's GPU model, CPU
// and memory free.
bool MigPartitioner::fits_apart_from_gpus(std::uint32_t n, const cluster::PodSpec& pod) const {
  // Pods bound but not yet admitted hold their CPU and memory already, as the scheduler counts.
  return present_[n] != 0 && api_.node_taints(n) == 0 && pod.allowed_models.allows(truth_.node(n).gpu_model) &&
         truth_.cpu_free(n) - bound_cpu_[n] >= pod.cpu_milli && truth_.memory_free(n) - bound_memory_[n] >= pod.memory_mib;
}

int MigPartitioner::advertised_shape(std::uint32_t n, int d) const {
  const NodeSetup& setup = setup_[n];
  const NodeStatus& status = api_.node_status(n);
  if (status.unadvertised.contains(d)) return -1;
  const int slots = setup.replicas();
  const int layout = status.mig_layouts == 0 ? NodeSetup::kInitialLayout
                                             : static_cast<int>((status.mig_layouts >> (4 * (d / slots))) & 0xFU);
  const std::vector<int>& shapes = setup.mig_layout(layout);
  const auto i = static_cast<std::size_t>(d % slots);
  return i < shapes.size() ? shapes[i] : -1;
}

int MigPartitioner::layout_of(std::uint32_t n, int gpu) const {
  const std::uint64_t layouts = api_.node_status(n).mig_layouts;
  return layouts == 0 ? NodeSetup::kInitialLayout : static_cast<int>((layouts >> (4 * gpu)) & 0xFU);
}

// Free instances of `shape` on node n (advertised and unallocated) plus those on their way there,
// as this cycle counted them.
int MigPartitioner::free_on_node(std::uint32_t n, int shape) const { return node_free_[n][static_cast<std::size_t>(shape)]; }

// Counts node n's free instances by shape from its status and its kubelet's allocations.
void MigPartitioner::count_free(std::uint32_t n) {
  auto& free = node_free_[n];
  free.fill(0);
  const NodeSetup& setup = setup_[n];
  const NodeStatus& status = api_.node_status(n);
  const int slots = setup.replicas();
  const auto unallocated = truth_.gpu_milli_unallocated(n);
  for (int g = 0; g < truth_.node(n).gpu_count / slots; ++g) {
    const std::vector<int>& shapes = setup.mig_layout(layout_of(n, g));
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const int d = g * slots + static_cast<int>(i);
      if (!status.unadvertised.contains(d) && unallocated[static_cast<std::size_t>(d)] == cluster::kMilliPerGpu &&
          !bound_[n].contains(d)) {
        ++free[static_cast<std::size_t>(shapes[i])];
      }
    }
  }
}

void MigPartitioner::partition(core::Time now) {
  // A request is done when the status shows the new layout, or void after its time (the GPU had
  // taken a pod, so the kubelet kept its layout).
  std::erase_if(in_flight_, [&](const InFlight& f) {
    const NodeStatus& status = api_.node_status(f.node);
    if (layout_of(f.node, f.gpu) == f.layout && !status.unadvertised.contains(f.gpu * setup_[f.node].replicas())) return true;
    if (f.until > now) return false;
    // Lapsed unanswered: that node is not asked again until its status changes (a node that is
    // down would be asked for ever).
    silent_since_[f.node] = status.published.micros() + 1;
    return true;
  });
  for (const std::uint32_t n : dynamic_nodes_) {
    bound_[n] = {};
    bound_cpu_[n] = 0;
    bound_memory_[n] = 0;
  }
  for (const Binding& b : binding_) {
    bound_[b.node] |= b.gpus;
    const cluster::PodSpec& pod = pods_[api_.pod(b.pod).source];
    bound_cpu_[b.node] += pod.cpu_milli;
    bound_memory_[b.node] += pod.memory_mib;
  }
  // Idle GPUs (no instance allocated or named by a bound pod, healthy, not being re-partitioned),
  // on nodes that are up, in node then GPU order; without one there is nothing to do.
  idle_.clear();
  for (const std::uint32_t n : dynamic_nodes_) {
    if (present_[n] == 0 || api_.node_taints(n) != 0) continue;
    if (silent_since_[n] != 0 && api_.node_status(n).published.micros() + 1 == silent_since_[n]) continue;
    silent_since_[n] = 0;
    const int slots = setup_[n].replicas();
    const auto unallocated = truth_.gpu_milli_unallocated(n);
    for (int g = 0; g < truth_.node(n).gpu_count / slots; ++g) {
      bool idle = std::none_of(in_flight_.begin(), in_flight_.end(), [&](const InFlight& f) { return f.node == n && f.gpu == g; });
      for (int i = 0; i < slots && idle; ++i) {
        const int d = g * slots + i;
        idle = unallocated[static_cast<std::size_t>(d)] == cluster::kMilliPerGpu && truth_.gpu_healthy(n, d) &&
               !bound_[n].contains(d);
      }
      if (idle) idle_.push_back({n, g, true});
    }
  }
  if (idle_.empty()) return;
  // Instances free now (advertised, unallocated) or on their way, by node and shape, and in all.
  free_.fill(0);
  for (const std::uint32_t n : dynamic_nodes_) count_free(n);
  for (const InFlight& f : in_flight_) {
    for (const int shape : setup_[f.node].mig_layout(f.layout)) ++node_free_[f.node][static_cast<std::size_t>(shape)];
  }
  for (const std::uint32_t n : dynamic_nodes_) {
    for (std::size_t s = 0; s < free_.size(); ++s) free_[s] += node_free_[n][s];
  }
  // Within a cycle idle GPUs only get fewer: a request that found none finds none again.
  ++calls_;
  for (const PodId waiting : waiting_) {
    const std::uint32_t source = api_.pod(waiting).source;
    const cluster::PodSpec& pod = pods_[source];
    const int wanted = pod.device_class - 1;
    if (hopeless_in_[ask_id_[source]] == calls_) continue;
    // A node that can take it has enough free (or coming) instances: the scheduler will place it
    // there; they are spoken for. free_ bounds every node's count (it is not lowered when a pod
    // takes a node's instances here), so below the pod's count no node need be looked at.
    const auto room = free_[static_cast<std::size_t>(wanted)] < pod.gpu_count
                          ? dynamic_nodes_.end()
                          : std::find_if(dynamic_nodes_.begin(), dynamic_nodes_.end(), [&](std::uint32_t n) {
                              return free_on_node(n, wanted) >= pod.gpu_count && fits_apart_from_gpus(n, pod);
                            });
    if (room != dynamic_nodes_.end()) {
      node_free_[*room][static_cast<std::size_t>(wanted)] -= pod.gpu_count;
      continue;
    }
    if (!request_for(pod, wanted, now)) hopeless_in_[ask_id_[source]] = calls_;
  }
}

// The first node that could take the pod with enough idle GPUs, re-partitioned to the first
// template that has its profile.
bool MigPartitioner::request_for(const cluster::PodSpec& pod, int wanted, core::Time now) {
  for (std::size_t first = 0; first < idle_.size();) {
    const std::uint32_t n = idle_[first].node;
    std::size_t end = first;
    while (end < idle_.size() && idle_[end].node == n) ++end;
    const NodeSetup& setup = setup_[n];
    const auto& templates = setup.mig_geometry->templates;
    const auto layout = std::find_if(templates.begin(), templates.end(), [&](const std::vector<int>& t) {
      return std::find(t.begin(), t.end(), wanted) != t.end();
    });
    const std::size_t from = first;
    first = end;
    if (layout == templates.end() || !fits_apart_from_gpus(n, pod)) continue;
    const int id = static_cast<int>(layout - templates.begin());
    const int per_gpu = static_cast<int>(std::count(layout->begin(), layout->end(), wanted));
    const int missing = pod.gpu_count - std::max(0, free_on_node(n, wanted));
    const int gpus_needed = (missing + per_gpu - 1) / per_gpu;
    int available = 0;
    for (std::size_t i = from; i < end; ++i) available += idle_[i].usable && layout_of(n, idle_[i].gpu) != id ? 1 : 0;
    if (available < gpus_needed) continue;
    const int slots = setup.replicas();
    int made = 0;
    for (std::size_t i = from; i < end && made < gpus_needed; ++i) {
      IdleGpu& gpu = idle_[i];
      if (!gpu.usable || layout_of(n, gpu.gpu) == id) continue;
      gpu.usable = false;
      ++made;
      Message request;
      request.topic = Topic::kMigReconfigure;
      request.node = n;
      request.value = gpu.gpu;
      request.layout = static_cast<std::uint64_t>(id);
      bus_.publish(request, now);
      // Its instances count as coming until the kubelet has made them and published its status.
      const core::Time until = now + setup.mig_reconfigure_time + settings_.node_status_period + core::Time::from_micros(1);
      in_flight_.push_back({n, gpu.gpu, id, until});
      bus_.set_timer(*this, 0, 0, until);  // if the kubelet did not do it, look again then
      for (int s = 0; s < slots; ++s) {
        const int shape = advertised_shape(n, gpu.gpu * slots + s);
        if (shape < 0) continue;
        --free_[static_cast<std::size_t>(shape)];  // gone with the old layout
        --node_free_[n][static_cast<std::size_t>(shape)];
      }
      for (const int shape : *layout) {
        ++free_[static_cast<std::size_t>(shape)];
        ++node_free_[n][static_cast<std::size_t>(shape)];
      }
    }
    free_[static_cast<std::size_t>(wanted)] -= pod.gpu_count;
    node_free_[n][static_cast<std::size_t>(wanted)] -= pod.gpu_count;
    return true;
  }
  return false;
}

}  // namespace gpusim::k8s
