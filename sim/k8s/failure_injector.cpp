#include "sim/k8s/failure_injector.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/core/rng.hpp"
#include "sim/core/status.hpp"

namespace gpusim::k8s {

FailureInjector::FailureInjector(Bus& bus, const KubeSettings& settings, const cluster::GpuCatalog& catalog,
                                 const std::vector<cluster::NodeSpec>& nodes,
                                 const WorkloadTimes& times, const std::vector<cluster::PodSpec>& pods,
                                 std::uint64_t seed)
    : bus_(bus), xid_(settings.random_failure_xid), repair_time_(settings.repair_time) {
  for (const GpuFailure& failure : settings.gpu_failures) inject(bus, failure);
  for (const PluginRestart& restart : settings.plugin_restarts) {
    Message message;
    message.topic = Topic::kPluginRestart;
    message.node = restart.node;
    message.value = restart.down_for.micros();
    bus.publish(message, restart.at);
  }
  for (const NodeEvent& event : settings.node_events) {
    Message message;
    message.node = event.node;
    switch (event.kind) {
      case NodeEventKind::kJoin: message.topic = Topic::kNodeJoined; break;
      case NodeEventKind::kRemove: message.topic = Topic::kNodeRemoved; break;
      case NodeEventKind::kLost: message.topic = Topic::kNodeLost; break;
      case NodeEventKind::kRecovered: message.topic = Topic::kNodeRecovered; break;
    }
    bus.publish(message, event.at);
  }
  // Each GPU model's mean time between failures (0: that model does not fail).
  std::vector<double> mtbf_of_model(catalog.size(), settings.mtbf_hours);
  for (const auto& [name, hours] : settings.mtbf_hours_by_model) {
    const auto model = catalog.find(name);
    if (!model) {
      throw core::InputError(fmt::format("randomFailures.mtbfHoursByModel: unknown GPU model '{}' (catalog ids: {})", name,
                                         catalog.ids()));
    }
    mtbf_of_model[*model] = hours;
  }
  if (std::none_of(mtbf_of_model.begin(), mtbf_of_model.end(), [](double h) { return h > 0; })) return;
  core::Time horizon = core::Time::zero();
  for (std::size_t i = 0; i < pods.size(); ++i) {
    horizon = std::max(horizon, times.arrival[i] + (pods[i].duration ? *pods[i].duration : core::Time::zero()));
  }
  // One stream for the whole process, drawn node by node and GPU by GPU: adding pods never
  // shifts the failures.
  core::Rng rng = core::Rng::stream(seed, "gpu-failures");
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    const double mean_us = nodes[n].gpu_count > 0 ? mtbf_of_model[nodes[n].gpu_model] * 3600.0 * 1e6 : 0;
    if (!(mean_us > 0)) continue;
    for (int g = 0; g < nodes[n].gpu_count; ++g) {
      const auto first = static_cast<std::uint32_t>(failure_at_.size());
      double at = 0;
      while (true) {
        // Exponential by inversion; 1 - u is in (0, 1], so the log is finite.
        at += -std::log(1.0 - rng.uniform_unit()) * mean_us;
        if (at > static_cast<double>(horizon.micros())) break;
        failure_at_.push_back(core::Time::from_micros(static_cast<std::int64_t>(at)));
        at += static_cast<double>(settings.repair_time.micros());
      }
      const auto end = static_cast<std::uint32_t>(failure_at_.size());
      if (end > first) failing_.push_back({n, g, first, end, 2 * first});
    }
  }
  failures_ += static_cast<std::int64_t>(failure_at_.size());
  first_id_ = bus.reserve_timer_ids(2 * failure_at_.size());
  for (std::uint32_t i = 0; i < failing_.size(); ++i) set_next(i);
}

void FailureInjector::set_next(std::uint32_t gpu) {
  const FailingGpu& g = failing_[gpu];
  if (g.next == 2 * g.end) return;
  const core::Time failed = failure_at_[g.next / 2];
  bus_.set_reserved_timer(first_id_ + g.next, *this, 0, gpu, g.next % 2 == 0 ? failed : failed + repair_time_);
}

void FailureInjector::on_timer(std::uint32_t, std::uint64_t gpu, core::Time now) {
  FailingGpu& g = failing_[gpu];
  Message message;
  message.topic = Topic::kGpuEvent;
  message.node = g.node;
  message.gpus.add(g.gpu);
  message.value = g.next % 2 == 0 ? xid_ : 0;
  ++g.next;
  set_next(static_cast<std::uint32_t>(gpu));
  bus_.deliver(message, now);
}

void FailureInjector::inject(Bus& bus, const GpuFailure& failure) {
  Message message;
  message.topic = Topic::kGpuEvent;
  message.node = failure.node;
  message.gpus.add(failure.gpu);
  message.value = failure.xid;
  bus.publish(message, failure.at);
  failures_ += failure.xid != 0;
}

}  // namespace gpusim::k8s
