// The scheduler's queueing plugins (sim/k8s/queueing_plugin.hpp): building them from the profile's
// names, routing their timers and hooks, and the handle they use.
#include <fmt/format.h>

#include <algorithm>

#include "sim/core/check.hpp"
#include "sim/core/status.hpp"
#include "sim/k8s/scheduler.hpp"

namespace gpusim::k8s {

void Scheduler::attach_plugins(const sched::Profile& profile, const sched::Registry& registry,
                               const sched::PluginContext& context) {
  const std::pair<const char*, const std::string*> points[] = {{"round", &profile.round_plugin},
                                                               {"permit", &profile.gang_permit_plugin},
                                                               {"queueAdmission", &profile.queue_admission_plugin},
                                                               {"jobRank", &profile.job_rank_plugin}};
  for (const auto& [point, name] : points) {
    if (name->empty()) continue;
    sched::PluginContext own = context;
    const std::optional<std::string> canonical = registry.canonical(*name);
    const auto args = canonical ? profile.plugin_args.find(*canonical) : profile.plugin_args.end();
    std::shared_ptr<const sched::PluginArgs> defaults;
    if (args != profile.plugin_args.end()) {
      own.args = args->second.get();
    } else if (canonical) {
      defaults = registry.default_args(*canonical);
      own.args = defaults.get();
    }
    std::unique_ptr<sched::Plugin> owner = registry.create(*name, own);
    auto* plugin = dynamic_cast<QueueingPlugin*>(owner.get());
    if (plugin == nullptr) {
      throw core::InputError(fmt::format("profile '{}': plugin '{}' does not implement the {} extension point",
                                         profile.name, *name, point));
    }
    GPUSIM_CHECK(plugins_.size() * 16 + 16 < (1U << 31), "too many queueing plugins");
    plugins_.push_back({point, std::move(owner), plugin});
  }
  for (Attached& attached : plugins_) {
    attached.plugin->attach(*this);
    if (const std::string_view name = attached.plugin->scheduler_name(); !name.empty()) system_name_ = name;
    if (attached.plugin->orders_queue()) {
      if (queue_order_plugin_ != nullptr) {
        throw core::InputError(fmt::format("profile '{}': plugins '{}' and '{}' both order the queue", profile.name,
                                           queue_order_plugin_->name(), attached.plugin->name()));
      }
      queue_order_plugin_ = attached.plugin;
    }
    if (attached.plugin->tries_pods()) pod_triers_.push_back(attached.plugin);
    if (attached.plugin->places_gang_workers()) {
      if (gang_placer_ != nullptr) {
        throw core::InputError(fmt::format("profile '{}': plugins '{}' and '{}' both place gangs' workers", profile.name,
                                           gang_placer_->name(), attached.plugin->name()));
      }
      gang_placer_ = attached.plugin;
    }
  }
}

bool Scheduler::evicts() const {
  return std::any_of(plugins_.begin(), plugins_.end(), [](const Attached& a) { return a.plugin->evicts(); });
}

bool Scheduler::post_filter(PodId id, const cluster::PodSpec& spec, core::Time now) {
  for (const Attached& attached : plugins_) {
    if (attached.plugin->post_filter(id, spec, now)) return true;
  }
  return false;
}

std::optional<sched::NeverRanReason> Scheduler::waited_while_feasible(PodId id) const {
  for (const Attached& attached : plugins_) {
    if (auto reason = attached.plugin->waited_while_feasible(id)) return reason;
  }
  return std::nullopt;
}

bool Scheduler::held_back(const cluster::PodSpec& spec, core::Time now) const {
  for (const Attached& attached : plugins_) {
    if (attached.plugin->holds_back(spec, now)) return true;
  }
  return false;
}

void Scheduler::set_timer(const QueueingPlugin& plugin, std::uint32_t tag, std::uint64_t payload, core::Time at,
                          core::Phase phase) {
  GPUSIM_CHECK(tag < 16, "a queueing plugin's timer tag must be below 16");
  std::uint32_t index = 0;
  while (index < plugins_.size() && plugins_[index].plugin != &plugin) ++index;
  GPUSIM_CHECK(index < plugins_.size(), "a timer for a plugin that is not attached");
  bus_.set_timer(*this, kPluginTimers + 16 * index + tag, payload, at, phase);
}

void Scheduler::add_metrics(const MetricSink& set, bool gangs) const {
  for (const Attached& attached : plugins_) {
    if (attached.point == "round") attached.plugin->add_metrics(set);
  }
  if (gangs) {
    set("gang_starts_spread", static_cast<double>(gangs_spread_));
    set("gang_starts_on_one_node", static_cast<double>(gangs_on_one_node_));
  }
  for (const Attached& attached : plugins_) {
    if (attached.point != "round") attached.plugin->add_metrics(set);
  }
}

std::optional<cluster::Placement> Scheduler::schedule(const cluster::PodSpec& spec) {
  return framework_.schedule(spec);
}

void Scheduler::unreserve(const cluster::PodSpec& spec, const cluster::Placement& placement) {
  framework_.release(spec, placement);
  apply_status(placement.node);
}

const cluster::PodSpec& Scheduler::spec_to_place(PodId id) {
  for (const Attached& attached : plugins_) {
    if (const cluster::PodSpec* spec = attached.plugin->spec_to_place(id)) return *spec;
  }
  return pods_[api_.pod(id).source];
}

}  // namespace gpusim::k8s
