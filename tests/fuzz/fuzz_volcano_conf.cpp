// Fuzz target: Volcano's scheduler-configuration reader (bare or its ConfigMap). A configuration it
// accepts must give a profile the framework builds, whose name is a plain name, whose filters keep
// the two that guarantee fits, and which reclaims only with queue quotas; that profile then
// schedules a GPU pod and a CPU pod on a two-node cluster (as the profile_yaml target does).
#include <algorithm>
#include <cstdlib>

#include "policies/register_builtin.hpp"
#include "sim/cluster/cluster_state.hpp"
#include "sim/core/status.hpp"
#include "sim/k8s/volcano_scheduler_conf.hpp"
#include "sim/sched/framework.hpp"
#include "traces/k8s/yaml_documents.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  static const sched::Registry registry = policy::builtin_registry();
  const std::string text = fuzz::as_text(data, size);
  try {
    // The recogniser never throws, whatever the document.
    for (const YAML::Node& doc : traces::load_yaml_documents(text, "fuzz.yaml")) (void)k8s::is_volcano_scheduler_conf(doc);
  } catch (const core::InputError&) {
  }
  try {
    const k8s::VolcanoSchedulerConf conf = k8s::parse_volcano_scheduler_conf(text, "fuzz.yaml", &registry);
    const sched::Profile& profile = conf.profile;
    const auto has = [&](const char* f) { return std::find(profile.filter.begin(), profile.filter.end(), f) != profile.filter.end(); };
    if (!sched::is_plain_name(profile.name) || !has("node-resources-fit") || !has("gpu-fit")) std::abort();
    if (profile.queue_quotas == sched::QueueQuotaMode::kNone && std::find(conf.actions.begin(), conf.actions.end(), "reclaim") != conf.actions.end()) {
      std::abort();
    }
    const auto& catalog = fuzz::bundled_catalog();
    std::vector<cluster::NodeSpec> nodes(2);
    nodes[0] = {"cpu-node", 32000, 65536, 0, 0, {}, {}, false};
    nodes[1] = {"gpu-node", 32000, 65536, 2, *catalog.find("V100M32"), {}, {}, false};
    cluster::ClusterState cluster(catalog, nodes);
    std::vector<cluster::PodSpec> pods(2);
    pods[0].name = "gpu-pod";
    pods[0].cpu_milli = 1000;
    pods[0].gpu_count = 1;
    pods[0].gpu_milli = 1000;
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
