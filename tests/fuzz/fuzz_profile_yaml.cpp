// Fuzz target: the profile YAML reader. A profile it accepts is also built into a framework
// and schedules one GPU pod and one CPU pod on a two-node cluster, so that a profile the loader
// lets through cannot crash the scheduler (a profile without gpu-fit once did).
#include "policies/register_builtin.hpp"
#include "sim/cluster/cluster_state.hpp"
#include "sim/core/status.hpp"
#include "sim/sched/framework.hpp"
#include "sim/sched/profile.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  static const sched::Registry registry = policy::builtin_registry();
  try {
    const sched::Profile profile = sched::parse_profile(fuzz::as_text(data, size), "fuzz.yaml");
    const auto& catalog = fuzz::bundled_catalog();
    std::vector<cluster::NodeSpec> nodes(2);
    // The CPU node first: ties go to it, so a profile that lets a GPU pod reach it is found.
    nodes[0] = {"cpu-node", 32000, 65536, 0, 0, {}, {}, false};
    nodes[1] = {"gpu-node", 32000, 65536, 2, *catalog.find("V100M32"), {}, {}, false};
    cluster::ClusterState cluster(catalog, nodes);
    std::vector<cluster::PodSpec> pods(2);
    pods[0].name = "gpu-pod";
    pods[0].cpu_milli = 1000;
    pods[0].gpu_count = 1;
    pods[0].gpu_milli = 500;
    pods[1].name = "cpu-pod";
    pods[1].cpu_milli = 1000;
    sched::PluginContext context{&catalog, pods, 1, nodes.size()};
    sched::Framework framework(profile, registry, context, cluster);
    for (const auto& pod : pods) framework.schedule(pod);
    cluster.check_invariants();
  } catch (const core::InputError&) {
  }
  return 0;
}
