#include "sim/cluster/nonzero_requests.hpp"

#include <algorithm>

namespace gpusim::cluster {
namespace {

std::int64_t or_default(std::int64_t asked, std::int64_t fallback) { return asked > 0 ? asked : fallback; }

}  // namespace

CpuMemory nonzero_requests(const PodSpec& pod) {
  if (pod.constraints == nullptr || pod.constraints->containers.empty()) {
    return {or_default(pod.cpu_milli, kDefaultMilliCpuRequest), or_default(pod.memory_mib, kDefaultMemoryRequestMib)};
  }
  CpuMemory sum;
  for (const Container& c : pod.constraints->containers) {
    sum.cpu_milli += or_default(c.cpu_milli, kDefaultMilliCpuRequest);
    sum.memory_mib += or_default(c.memory_mib, kDefaultMemoryRequestMib);
  }
  // Init containers run one at a time before the others: the pod needs the largest of them.
  for (const Container& c : pod.constraints->init_containers) {
    sum.cpu_milli = std::max(sum.cpu_milli, or_default(c.cpu_milli, kDefaultMilliCpuRequest));
    sum.memory_mib = std::max(sum.memory_mib, or_default(c.memory_mib, kDefaultMemoryRequestMib));
  }
  return sum;
}

}  // namespace gpusim::cluster
