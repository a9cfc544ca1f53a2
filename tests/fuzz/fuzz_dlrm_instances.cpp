// Fuzz target: the Alibaba DLRM 2025 instance reader. Bad input may only throw core::InputError; an
// accepted trace must give pods that replay can use: CN instances without GPUs, HN instances with
// whole GPUs, a service that exists, times from 0 with the run inside [creation, deletion].
#include <cstdlib>
#include <sstream>

#include "sim/core/status.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "traces/dlrm_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  std::istringstream in(fuzz::as_text(data, size));
  try {
    const traces::Workload w = traces::read_dlrm_instances(in, "fuzz-dlrm.csv");
    const auto check = [](bool ok) {
      if (!ok) std::abort();
    };
    check(!w.pods.empty() && w.has_times && !w.apps.empty());
    for (const auto& pod : w.pods) {
      check(pod.constraints != nullptr && pod.constraints->node_selector.size() == 1);
      const bool cn = pod.constraints->node_selector[0].second == "CN";
      check(cn ? pod.gpu_count == 0 && pod.gpu_milli == 0 : pod.gpu_count >= 1 && pod.gpu_milli == cluster::kMilliPerGpu);
      check(pod.app >= 0 && pod.app < static_cast<std::int32_t>(w.apps.size()) && pod.max_per_node >= 0);
      check(pod.cpu_milli >= 0 && pod.memory_mib >= 0 && pod.rdma_percent >= 0);
      check(pod.creation_time && pod.deletion_time && pod.duration && pod.creation_time->micros() >= 0);
      check(*pod.duration <= *pod.deletion_time - *pod.creation_time);
    }
  } catch (const core::InputError&) {
  }
  return 0;
}
