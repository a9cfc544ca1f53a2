// Fuzz target: Volcano's Queue reader. Queues it accepts must hold what Volcano admits (weight
// 1..65535; per queue guarantee <= deserved <= capability in GPUs), map onto a workload's queues
// (the first half of them named by the workload, the rest kept for their guarantees), and build a
// quota book on a 16-GPU cluster whose deserved GPUs never add up to more than the cluster's.
#include <cstdlib>

#include "sim/core/status.hpp"
#include "sim/k8s/volcano_queues.hpp"
#include "traces/k8s/yaml_documents.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  const std::string text = fuzz::as_text(data, size);
  try {
    for (const YAML::Node& doc : traces::load_yaml_documents(text, "fuzz.yaml")) (void)k8s::is_volcano_queue_list(doc);
  } catch (const core::InputError&) {
  }
  try {
    const k8s::VolcanoQueueList list = k8s::parse_volcano_queue_list(text, "fuzz.yaml");
    std::vector<std::string> names;
    for (std::size_t q = 0; q < list.queues.size(); ++q) {
      const k8s::QueueQuota& quota = list.queues[q].quota;
      if (quota.weight < 1 || quota.weight > 65535 || quota.guarantee_milli < 0) std::abort();
      if (quota.guarantee_milli > 0 && (!quota.deserved_milli || *quota.deserved_milli < quota.guarantee_milli)) std::abort();
      if (quota.deserved_milli && quota.capability_milli && *quota.deserved_milli > *quota.capability_milli) std::abort();
      if (q < (list.queues.size() + 1) / 2) names.push_back(list.queues[q].name);
    }
    const k8s::QueueQuotas quotas = k8s::volcano_queue_quotas(list, names);
    if (quotas.queues.size() != list.queues.size()) std::abort();
    constexpr std::int64_t kCluster = 16'000;
    k8s::QuotaBook book(quotas, true, kCluster);
    for (std::uint32_t q = 0; q < names.size(); ++q) {
      book.add_waiting(q, 1000 * (q + 1));
      book.add_held(q, 500);
    }
    book.refresh();
    std::int64_t deserved = 0;
    for (std::uint32_t q = 0; q < book.queues(); ++q) deserved += book.deserved(q);
    if (deserved > kCluster) std::abort();
  } catch (const core::InputError&) {
  }
  return 0;
}
