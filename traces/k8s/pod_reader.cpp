#include "traces/k8s/pod_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>
#include <utility>

#include "sim/cluster/node.hpp"
#include "traces/k8s/object_meta.hpp"
#include "traces/k8s/pod_containers.hpp"
#include "traces/k8s/pod_placement.hpp"
#include "traces/k8s/resource_names.hpp"
#include "traces/k8s_quantity.hpp"

namespace gpusim::traces::k8s {

using cluster::GpuResource;

namespace {

std::int64_t checked_total(const Fields& spec, std::int64_t total, std::int64_t max, std::string_view what) {
  if (total > max) {
    spec.fail("containers", fmt::format("the pod's {} total {} is out of range (at most {})", what, total, max));
  }
  return total;
}

// The pod's asks of a sharing device plugin, from its containers'. The replay turns them into a
// share of a GPU once it knows the nodes (sim/experiment/replay_experiment.cpp).
void read_pod_share(const Fields& spec, const PodFacts& facts, cluster::PodSpec& pod, cluster::PodConstraints& c) {
  c.mig_profile = facts.mig_profile;
  c.vgpu_resource = facts.vgpu_resource;
  if (c.gpu_resource == GpuResource::kAliyunGpuMem) {
    // gpushare puts the whole pod on one GPU and its extender sums the app containers' asks only.
    std::int64_t gib = 0;
    for (const ShareFacts& share : facts.shares) {
      if (!share.init) {
        gib += share.gpu_memory_gib;
      } else if (share.gpu_memory_gib > 0) {
        spec.where().fail_at(share.line, share.path + "." + kAliyunGpuMem,
                             "an init container's ask, which gpushare's extender does not count (it sums the app "
                             "containers'): ask it in an app container");
      }
    }
    c.gpu_memory_gib = checked_total(spec, gib, kMaxGpuMemoryGib, "aliyun.com/gpu-mem");
    pod.gpu_count = 1;
    pod.gpu_milli = cluster::kMilliPerGpu;  // until the replay knows the GPUs' memory
    return;
  }
  const auto asked = std::find_if(facts.shares.begin(), facts.shares.end(), [](const ShareFacts& f) { return f.hami_asked; });
  if (asked == facts.shares.end()) return;
  // gpusim gives a pod one share of each of its GPUs, so its vGPUs must all ask the same.
  for (const ShareFacts& share : facts.shares) {
    if (share.gpus == 0) continue;
    const cluster::HamiAsk& a = share.hami;
    const cluster::HamiAsk& b = asked->hami;
    if (a.memory_mib != b.memory_mib || a.memory_percent != b.memory_percent || a.cores_percent != b.cores_percent) {
      spec.where().fail_at(share.line, share.path, fmt::format(
          "asks nvidia.com/gpumem {} MiB / {} %, gpucores {} of each vGPU, but {} asks {} MiB / {} %, gpucores {} "
          "(HAMi's defaults filled in); gpusim models one share per pod: give every GPU container the same",
          a.memory_mib, a.memory_percent, a.cores_percent, asked->path, b.memory_mib, b.memory_percent, b.cores_percent));
    }
  }
  c.gpu_resource = GpuResource::kHamiVgpu;
  c.hami = asked->hami;
}


// KAI's GPU sharing: the annotation gpu-fraction asks that share of one GPU, which other such pods
// share (KAI's PodInfo reads a float in (0, 1] and ignores any other value; gpusim refuses it). The
// pod then asks no nvidia.com/gpu itself. Only the KAI Scheduler reads it: the run refuses such pods
// under any other policy. KAI's gpu-memory asks and fractions of several devices are not
// modelled: refused, with the reason.
void read_kai_fraction(const Where& where, const Entries& annotations, cluster::PodSpec& pod, cluster::PodConstraints& c) {
  for (const Entry& e : annotations) {
    if (e.key == "gpu-memory") {
      where.fail(e.node, e.path, "KAI's GPU memory ask is not modelled: give the share of one GPU in gpu-fraction instead");
    }
    if (e.key == "gpu-fraction-num-devices" && e.value != "1") {
      where.fail(e.node, e.path, fmt::format("'{}': gpusim models a KAI fraction on one GPU only (give 1, or leave it out)", e.value));
    }
    if (e.key != "gpu-fraction") continue;
    double fraction = 0;
    const char* end = e.value.data() + e.value.size();
    // Go's strconv.ParseFloat, which KAI uses, takes a leading '+'; from_chars does not.
    const char* begin = e.value.data() + (e.value.size() > 1 && e.value[0] == '+' && e.value[1] != '-' ? 1 : 0);
    const auto [ptr, ec] = std::from_chars(begin, end, fraction);
    if (ec != std::errc() || ptr != end || !(fraction > 0) || fraction > 1) {
      where.fail(e.node, e.path, fmt::format("'{}' is not a fraction of a GPU in (0, 1] (KAI would ignore it, and the pod "
                                             "would get no GPU)", e.value));
    }
    const auto milli = static_cast<std::int32_t>(std::llround(fraction * cluster::kMilliPerGpu));
    if (milli == 0) where.fail(e.node, e.path, fmt::format("'{}' is less than a thousandth of a GPU, gpusim's unit", e.value));
    if (pod.gpu_count > 0) {
      where.fail(e.node, e.path, fmt::format("the pod's containers also ask {} GPU(s); KAI's fraction stands for the "
                                             "pod's whole GPU ask: give one or the other", pod.gpu_count));
    }
    // KAI's binder reserves the GPU with a pod asking nvidia.com/gpu: 1 and shares it among the
    // fractions it places there: gpusim's fractions of one GPU (scheduler-assigned nodes).
    pod.gpu_count = 1;
    pod.gpu_milli = milli;
    c.gpu_resource = GpuResource::kNvidiaGpu;
    c.kai_gpu_fraction_milli = milli;
    c.kai_gpu_fraction_line = where.line(e.node);
  }
}

}  // namespace

PodRead read_pod_spec(const Fields& spec, const Entries& annotations, const PriorityClasses& classes,
                      WorkloadTally& tally) {
  const Where& where = spec.where();
  PodRead out;
  cluster::PodConstraints& c = out.constraints;
  PodFacts facts;
  const auto containers = spec.list("containers");
  if (containers.empty()) spec.fail("containers", "a pod needs at least one container");
  for (const auto& [node, path] : spec.list("initContainers")) {
    c.init_containers.push_back(read_container(where, node, path, true, facts));
  }
  for (const auto& [node, path] : containers) c.containers.push_back(read_container(where, node, path, false, facts));
  c.gpu_resource = facts.gpu.resource;

  // Kubernetes' effective request: init containers run one at a time before the others.
  std::int64_t cpu = 0, memory = 0, gpus = 0;
  for (const auto& k : c.containers) {
    cpu += k.cpu_milli;
    memory += k.memory_mib;
    gpus += k.gpus;
  }
  for (const auto& k : c.init_containers) {
    cpu = std::max(cpu, k.cpu_milli);
    memory = std::max(memory, k.memory_mib);
    gpus = std::max<std::int64_t>(gpus, k.gpus);
  }
  cluster::PodSpec& pod = out.pod;
  pod.cpu_milli = checked_total(spec, cpu, kMaxQuantity, "cpu");
  pod.memory_mib = checked_total(spec, memory, kMaxQuantity, "memory");
  pod.gpu_count = static_cast<std::int32_t>(checked_total(spec, gpus, cluster::kMaxGpusPerNode, "GPU"));
  pod.gpu_milli = pod.gpu_count > 0 ? cluster::kMilliPerGpu : 0;
  read_pod_share(spec, facts, pod, c);
  read_kai_fraction(where, annotations, pod, c);
  pod.qos = !facts.qos.any         ? cluster::Qos::kBestEffort
            : facts.qos.guaranteed ? cluster::Qos::kGuaranteed
                                   : cluster::Qos::kBurstable;
  for (const auto& name : facts.unmodelled) ++tally.unmodelled[name];

  for (const Entry& e : string_map(spec, "nodeSelector")) c.node_selector.emplace_back(e.key, e.value);
  AffinityFacts affinity;
  if (const auto field = spec.map("affinity")) c.required_terms = read_affinity(*field, affinity);
  if (auto alpha = alpha_affinity(where, annotations, affinity)) {
    if (!c.required_terms.empty()) {
      spec.fail("affinity", fmt::format("required node affinity is given both here and in annotation {}; give one",
                                        kAlphaAffinity));
    }
    c.required_terms = std::move(*alpha);
  }
  tally.preferred_affinity += affinity.preferred ? 1 : 0;
  tally.pod_affinity += affinity.pod_affinity ? 1 : 0;
  c.tolerations = read_tolerations(spec);
  c.scheduler_name = spec.string("schedulerName").value_or("default-scheduler");
  if (c.scheduler_name.empty()) spec.fail("schedulerName", "empty");
  c.priority_class = spec.string("priorityClassName").value_or("");
  pod.priority = pod_priority(spec, c.priority_class, classes);
  if (spec.has("nodeName")) ++tally.node_name;

  // Times from gpusim's annotations.
  core::Time arrival = core::Time::zero();
  core::Time duration = core::Time::from_seconds(3600);
  if (const Entry* e = find(annotations, "gpusim.io/arrival")) {
    arrival = duration_entry(where, *e);
  } else {
    ++tally.default_arrival;
  }
  if (const Entry* e = find(annotations, "gpusim.io/duration")) {
    duration = duration_entry(where, *e);
  } else {
    ++tally.default_duration;
  }
  pod.phase = cluster::TracePhase::kSucceeded;
  pod.creation_time = arrival;
  pod.duration = duration;
  pod.deletion_time = arrival + duration;
  return out;
}

void read_pod(const Object& object, const PriorityClasses& classes, WorkloadBuilder& builder) {
  const Fields& fields = object.fields;
  const Meta meta = read_meta(fields, &builder.generated_names);
  check_gpusim_annotations(fields.where(), meta.annotations, kPodAnnotations, "Pod");
  PodRead read = read_pod_spec(fields.required_map("spec"), meta.annotations, classes, builder.tally);
  read.pod.name = meta.name;
  read.constraints.ownerless = true;  // nothing recreates a bare Pod
  read_workload_priority_class(fields.where(), meta, read.constraints);
  read.pod.constraints = std::make_shared<const cluster::PodConstraints>(std::move(read.constraints));
  builder.add(std::move(read.pod), fields, meta);
}

}  // namespace gpusim::traces::k8s
