#pragma once
// Builds plugins by name. Registration is explicit (policies/register_builtin.cpp); there are no
// static registries, so two simulations in one process never share plugin state.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/node_metrics.hpp"
#include "sim/cluster/pod.hpp"
#include "sim/sched/plugin.hpp"
#include "sim/sched/plugin_args.hpp"

namespace gpusim::topology {
class Topology;
}

namespace gpusim::sched {

// What a plugin may know when it is built.
struct PluginContext {
  const cluster::GpuCatalog* catalog = nullptr;
  // The workload as read from the trace (FGD derives its typical pods from it).
  std::span<const cluster::PodSpec> workload;
  std::uint64_t seed = 0;  // the run's root seed; plugins derive named streams from it
  std::size_t node_count = 0;
  // Replay: each node's GPU interconnect (null where unknown); empty in fill mode.
  std::span<const topology::Topology* const> topologies = {};
  // Replay: per node, a GPU selection that overrides the profile's there (an extender that binds
  // GPUs, e.g. gpushare's); an empty name or an empty span: the profile's.
  std::span<const std::string> node_gpu_selection = {};
  // Replay: the scheduler extenders the cluster runs (HAMi's scheduler, gpushare's), called in
  // this order as kube-scheduler calls its extenders. Not owned.
  std::span<Extender* const> extenders = {};
  // Replay with a plugin that reads usage (load-aware): the node agents' last reports; else null.
  const cluster::NodeMetrics* node_metrics = nullptr;
  // The args of the plugin being built (its pluginConfig, or its reader's defaults); null for a
  // plugin that takes none. Set by the framework for each plugin.
  const PluginArgs* args = nullptr;
};

// What a registered plugin is: one of the framework's (kube-scheduler's extension points and the
// GPU selection) or a queueing plugin (gpusim's jobRank, round, queueAdmission and gang permit
// points: sim/k8s/queueing_plugin.hpp), which the scheduler component runs over its queue.
enum class PluginKind : std::uint8_t { kFramework, kQueueing };

class Registry {
 public:
  using Factory = std::function<std::unique_ptr<Plugin>(const PluginContext&)>;

  // Throws std::logic_error on a duplicate name or key (a programming error).
  void add(const std::string& name, Factory factory);
  // A plugin that takes args: `reader` decodes them (sim/sched/plugin_args.hpp).
  void add(const std::string& name, Factory factory, ArgsReader reader);
  // A queueing plugin (its factory builds a k8s::QueueingPlugin); `reader` may be null.
  void add_queueing(const std::string& name, Factory factory, ArgsReader reader = nullptr);
  // The kind of registered plugin `canonical`.
  PluginKind kind(const std::string& canonical) const;
  // Another accepted spelling of a registered plugin (e.g. "dotprod" for "dot-product").
  void add_alias(const std::string& alias, const std::string& name);
  // The canonical name `name` refers to (names match as sched/names.hpp says), if any.
  std::optional<std::string> canonical(const std::string& name) const;
  // Throws core::InputError naming the unknown plugin and the known ones.
  std::unique_ptr<Plugin> create(const std::string& name, const PluginContext& context) const;
  bool contains(const std::string& name) const { return canonical(name).has_value(); }
  std::vector<std::string> names() const;
  // The args reader of plugin `name` (canonical), or null when it takes no args.
  const ArgsReader* args_reader(const std::string& name) const;
  // Its args with every default, or null when it takes none.
  std::shared_ptr<const PluginArgs> default_args(const std::string& name) const;

 private:
  std::map<std::string, Factory> factories_;  // ordered: listings are deterministic
  std::map<std::string, ArgsReader> args_readers_;
  std::map<std::string, PluginKind> kinds_;  // queueing plugins only; the rest are framework plugins
  std::map<std::string, std::string> by_key_;  // name_key(name or alias) -> canonical name
};

}  // namespace gpusim::sched
