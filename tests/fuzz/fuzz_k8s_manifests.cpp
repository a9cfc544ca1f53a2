// Fuzz target: the Kubernetes manifest reader, reading each input both as a node list and as a
// workload. Bad input may only throw core::InputError; what it accepts must be consistent (one
// NodeKube per node, GPUs within a node's limit, every pod with its constraints and a valid Job,
// whole GPUs or a KAI fraction of one).
#include <cstdlib>

#include "sim/cluster/node.hpp"
#include "sim/core/status.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "traces/k8s_manifests.hpp"

namespace {

// A broken promise of the reader is a crash for libFuzzer.
void require(bool holds) {
  if (!holds) std::abort();
}

void check_nodes(const gpusim::traces::ClusterSpec& spec) {
  require(!spec.nodes.empty() && spec.kube.size() == spec.nodes.size());
  for (const auto& node : spec.nodes) {
    require(!node.name.empty() && node.cpu_milli >= 0 && node.memory_mib >= 0);
    require(node.gpu_count >= 0 && node.gpu_count <= gpusim::cluster::kMaxGpusPerNode);
    require(node.gpu_count == 0 || node.gpu_model < gpusim::fuzz::bundled_catalog().size());
  }
}

void check_workload(const gpusim::traces::Workload& w) {
  require(!w.pods.empty() && w.has_times);
  for (const auto& pod : w.pods) {
    require(pod.constraints != nullptr && !pod.constraints->containers.empty());
    require(pod.gpu_count >= 0 && pod.gpu_count <= gpusim::cluster::kMaxGpusPerNode);
    // Whole GPUs, except KAI's gpu-fraction: a share of one GPU, in (0, 1000].
    const std::int32_t fraction = pod.constraints->kai_gpu_fraction_milli;
    if (fraction != 0) {
      require(fraction > 0 && fraction <= gpusim::cluster::kMilliPerGpu && pod.gpu_count == 1 && pod.gpu_milli == fraction);
    } else {
      require(pod.gpu_milli == (pod.gpu_count > 0 ? gpusim::cluster::kMilliPerGpu : 0));
    }
    require(pod.creation_time && pod.duration && pod.deletion_time &&
            *pod.deletion_time == *pod.creation_time + *pod.duration);
    // Sharing plugins' asks: gpushare's GiB on one GPU, HAMi's within its ranges, a named profile.
    const auto& c = *pod.constraints;
    if (c.gpu_resource == gpusim::cluster::GpuResource::kAliyunGpuMem) require(pod.gpu_count == 1 && c.gpu_memory_gib > 0);
    if (c.gpu_resource == gpusim::cluster::GpuResource::kHamiVgpu) {
      require(pod.gpu_count > 0 && c.hami.memory_mib >= 0 && c.hami.memory_percent >= 0 && c.hami.memory_percent <= 100 &&
              c.hami.cores_percent >= 0 && c.hami.cores_percent <= 100);
    }
    require((c.gpu_resource == gpusim::cluster::GpuResource::kMigProfile) == !c.mig_profile.empty());
    const auto job = pod.constraints->job;
    require(job >= -1 && job < static_cast<std::int64_t>(w.jobs.size()));
  }
  // KAI's queue labels: none, or one entry per pod (a name and its line where labelled).
  require(w.kai_queue_of_pod.empty() || w.kai_queue_of_pod.size() == w.pods.size());
  for (const auto& label : w.kai_queue_of_pod) require(label.queue.empty() == (label.line == 0));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  const std::string text = fuzz::as_text(data, size);
  try {
    check_nodes(traces::parse_k8s_nodes(text, "fuzz-nodes.yaml", fuzz::bundled_catalog()));
  } catch (const core::InputError&) {
  }
  try {
    check_workload(traces::parse_k8s_workload(text, "fuzz-pods.yaml", fuzz::bundled_catalog()));
  } catch (const core::InputError&) {
  }
  return 0;
}
