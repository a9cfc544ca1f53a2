// Fuzz target: the KubeSchedulerConfiguration reader (sim/config/kube_scheduler_config.hpp) with
// every plugin's args reader it dispatches to. Each profile it accepts is also built into a
// framework that schedules a GPU pod and a CPU pod on a two-node cluster, so that a configuration
// the reader lets through cannot crash the scheduler.
#include "policies/register_builtin.hpp"
#include "sim/cluster/cluster_state.hpp"
#include "sim/config/kube_scheduler_config.hpp"
#include "sim/core/status.hpp"
#include "sim/sched/framework.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  static const sched::Registry registry = policy::builtin_registry();
  try {
    const config::SchedulerConfiguration config =
        config::parse_kube_scheduler_config(fuzz::as_text(data, size), "fuzz.yaml", registry);
    const auto& catalog = fuzz::bundled_catalog();
    std::vector<cluster::NodeSpec> nodes(2);
    // The CPU node first: ties go to it, so a profile that lets a GPU pod reach it is found.
    nodes[0] = {"cpu-node", 32000, 65536, 0, 0, {}, {}, false};
    nodes[1] = {"gpu-node", 32000, 65536, 2, *catalog.find("V100M32"), {}, {}, false};
    std::vector<cluster::PodSpec> pods(2);
    pods[0].name = "gpu-pod";
    pods[0].cpu_milli = 1000;
    pods[0].gpu_count = 1;
    pods[0].gpu_milli = 500;
    pods[1].name = "cpu-pod";
    pods[1].cpu_milli = 1000;
    for (const sched::Profile& profile : config.profiles) {
      cluster::ClusterState cluster(catalog, nodes);
      sched::PluginContext context{&catalog, pods, 1, nodes.size()};
      sched::Framework framework(profile, registry, context, cluster);
      for (const auto& pod : pods) framework.schedule(pod);
      cluster.check_invariants();
    }
  } catch (const core::InputError&) {
  }
  return 0;
}
