// Fuzz target: gpusim's retired profile YAML, as gpusim now reads it only to tell its user what
// replaces it. An older profile it accepts must render as a KubeSchedulerConfiguration that YAML
// reads back (whatever the names hold), the user's message must come without an error, and where
// gpusim's KubeSchedulerConfiguration reader accepts the rendering, its one profile keeps the name
// and is built into a framework that schedules a GPU and a CPU pod on a two-node cluster.
#include <cstdlib>

#include "policies/register_builtin.hpp"
#include "sim/cluster/cluster_state.hpp"
#include "sim/config/kube_scheduler_config.hpp"
#include "sim/config/retired_profile_yaml.hpp"
#include "sim/core/status.hpp"
#include "sim/sched/framework.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  static const sched::Registry registry = policy::builtin_registry();
  const std::string text = fuzz::as_text(data, size);
  sched::Profile older;
  try {
    older = config::parse_retired_profile_yaml(text, "fuzz.yaml");
  } catch (const core::InputError&) {
    return 0;
  }
  const std::string rendered = config::kube_scheduler_config_for(older);
  if (!config::is_kube_scheduler_config(YAML::Load(rendered))) std::abort();
  (void)config::retired_profile_yaml_message(text, "fuzz.yaml", registry);  // throws nothing for an accepted file
  try {
    const config::SchedulerConfiguration read = config::parse_kube_scheduler_config(rendered, "rendered.yaml", registry);
    if (read.profiles.size() != 1 || read.profiles.front().name != older.name) std::abort();
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
    sched::Framework framework(read.profiles.front(), registry, context, cluster);
    for (const auto& pod : pods) framework.schedule(pod);
    cluster.check_invariants();
  } catch (const core::InputError&) {
  }
  return 0;
}
