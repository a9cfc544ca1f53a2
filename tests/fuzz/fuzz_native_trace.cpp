// Fuzz target: the native JSON Lines trace reader (traces/FORMAT.md). Bad input may only throw
// core::InputError; an accepted trace must hold what replay relies on (GPU shares in range, names
// that exist, times ordered), and writing it back and reading that again must give the same pods.
#include <cstdlib>
#include <sstream>

#include "sim/core/status.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "traces/native_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  const auto check = [](bool ok) {
    if (!ok) std::abort();
  };
  std::istringstream in(fuzz::as_text(data, size));
  traces::Workload w;
  try {
    w = traces::read_native_workload(in, "fuzz.jsonl", fuzz::bundled_catalog());
  } catch (const core::InputError&) {
    return 0;
  }
  check(!w.pods.empty());
  for (const auto& pod : w.pods) {
    check(!pod.name.empty() && pod.gpu_count >= 0 && pod.gpu_count <= cluster::kMaxGpusPerNode);
    check(pod.gpu_count == 0 ? pod.gpu_milli == 0 : pod.gpu_milli >= 1 && pod.gpu_milli <= cluster::kMilliPerGpu);
    check(pod.gpu_count <= 1 || pod.gpu_milli == cluster::kMilliPerGpu);
    check(w.queues.empty() ? pod.queue == 0 : pod.queue < w.queues.size());
    check(pod.app < static_cast<std::int32_t>(w.apps.size()) && (pod.max_per_node == 0 || pod.app >= 0));
    check(!w.has_times || (pod.creation_time && pod.duration));
    if (pod.deletion_time) check(*pod.deletion_time >= *pod.creation_time);
  }
  // Round trip: the written form reads back to the same pods.
  std::ostringstream out;
  traces::write_native_workload(out, w, fuzz::bundled_catalog(), "");
  std::istringstream again(out.str());
  const traces::Workload back = traces::read_native_workload(again, "again.jsonl", fuzz::bundled_catalog());
  check(back.pods.size() == w.pods.size() && back.queues == w.queues && back.apps == w.apps && back.has_times == w.has_times);
  for (std::size_t i = 0; i < w.pods.size(); ++i) {
    const auto &a = w.pods[i], &b = back.pods[i];
    check(a.name == b.name && a.cpu_milli == b.cpu_milli && a.memory_mib == b.memory_mib && a.gpu_count == b.gpu_count &&
          a.gpu_milli == b.gpu_milli && a.allowed_models == b.allowed_models && a.priority == b.priority &&
          a.creation_time == b.creation_time && a.deletion_time == b.deletion_time && a.duration == b.duration &&
          a.gang == b.gang && a.queue == b.queue && a.app == b.app && a.rdma_percent == b.rdma_percent);
  }
  return 0;
}
