#include "sim/k8s/koordlet.hpp"

#include <algorithm>

namespace gpusim::k8s {

Koordlet::Koordlet(Bus& bus, const ApiServer& api, const KubeletFleet& kubelets, const KubeSettings& settings,
                   cluster::NodeMetrics& out, const std::vector<std::uint8_t>& present)
    : bus_(bus),
      api_(api),
      kubelets_(kubelets),
      interval_(settings.node_metric_report_interval),
      window_(settings.node_metric_aggregate_duration),
      out_(out),
      node_windows_(out.size()),
      joined_(out.size(), 0) {
  for (std::uint32_t n = 0; n < out.size(); ++n) {
    if (!kubelets_.measures_usage(n) || kubelets_.physical_gpu_count(n) == 0) continue;
    measured_nodes_.push_back(n);
    if (n < present.size() && present[n] != 0) {
      joined_[n] = 1;
      node_windows_[n].samples.push_back({core::Time::zero(), {}});
    }
  }
  if (!measured_nodes_.empty()) wake(core::Time::zero());
}

void Koordlet::wake(core::Time now) {
  if (ticking_ || measured_nodes_.empty()) return;
  ticking_ = true;
  last_busy_ = now;
  // The reports an idle agent skipped were the same as its last: the last of them stands. Its
  // samples did not change meanwhile either, so the windows' last samples stand for them too.
  for (const std::uint32_t n : measured_nodes_) {
    cluster::NodeMetric& metric = out_.write(n);
    if (metric.idle_reports) metric.update_time = out_.update_time(n);
    metric.idle_reports = false;
  }
  // The next report on the interval grid (k x interval, k >= 1: koordlet's first sync comes one
  // interval after its start). A wake comes from a message, before this instant's reports
  // (Phase::kMetrics), so a grid instant's report is still to be made.
  const std::int64_t step = interval_.micros();
  const std::int64_t next = std::max(step, (now.micros() + step - 1) / step * step);
  bus_.set_timer(*this, 0, 0, core::Time::from_micros(next), core::Phase::kMetrics);
}

void Koordlet::on_message(const Message& message, core::Time now) {
  if (message.node < joined_.size() && message.topic == Topic::kNodeJoined && !joined_[message.node]) {
    joined_[message.node] = 1;
    if (kubelets_.measures_usage(message.node)) node_windows_[message.node].samples.push_back({now, kubelets_.node_usage(message.node, now)});
  }
  wake(now);
  // A pod bound now may run and end before the next report: the agent must not go idle while a
  // window may still hold its use.
  if (message.topic == Topic::kPodBound) last_busy_ = std::max(last_busy_, now);
}

KubeletFleet::UsageCounters Koordlet::average(Window& window, const Sample& now_sample) const {
  auto& samples = window.samples;
  samples.push_back(now_sample);
  // Keep one sample at or before the window's start (the baseline) and those after it.
  const core::Time start = now_sample.at - window_;
  std::size_t first = 0;
  while (first + 1 < samples.size() && samples[first + 1].at <= start) ++first;
  samples.erase(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(first));
  const Sample& base = samples.front();
  KubeletFleet::UsageCounters mean;
  if (!(now_sample.at > base.at)) return mean;
  const double span = static_cast<double>((now_sample.at - base.at).micros()) / 1e6;
  mean.busy_gpu_s = std::max(0.0, now_sample.counters.busy_gpu_s - base.counters.busy_gpu_s) / span;
  mean.memory_gpu_s = std::max(0.0, now_sample.counters.memory_gpu_s - base.counters.memory_gpu_s) / span;
  return mean;
}

void Koordlet::report(core::Time now) {
  bool busy = false;
  all_zero_ = true;
  const std::int64_t reports_before = reports_;
  for (const std::uint32_t n : measured_nodes_) {
    if (!joined_[n] || !kubelets_.node_up(n)) continue;  // a lost or removed node's agent is silent
    cluster::NodeMetric& metric = out_.write(n);
    const KubeletFleet::UsageCounters mean = average(node_windows_[n], {now, kubelets_.node_usage(n, now)});
    metric.reported = true;
    metric.update_time = now;
    metric.report_interval = interval_;
    metric.capacity_milli = std::int64_t{1000} * kubelets_.physical_gpu_count(n);
    metric.gpu_core_milli = milli(mean.busy_gpu_s);
    metric.gpu_memory_milli = milli(mean.memory_gpu_s);
    all_zero_ = all_zero_ && metric.gpu_core_milli == 0 && metric.gpu_memory_milli == 0;
    metric.pods.clear();
    for (const PodId id : kubelets_.pods_on(n)) {
      busy = true;
      if (!kubelets_.usage_measured(id)) continue;  // no container running: not in podsMetric
      if (pod_windows_.size() <= id) pod_windows_.resize(std::size_t{id} + 1);
      Window& window = pod_windows_[id];
      const core::Time started = kubelets_.run_started(id);
      if (window.samples.empty() || window.pod_started != started) {
        window.samples.assign(1, {started, {}});  // its counters count from its run's start
        window.pod_started = started;
      }
      seen_.push_back(id);
      const KubeletFleet::UsageCounters pod = average(window, {now, kubelets_.pod_usage(id, now)});
      metric.pods.push_back({api_.pod(id).source, milli(pod.busy_gpu_s), milli(pod.memory_gpu_s)});
    }
    std::sort(metric.pods.begin(), metric.pods.end(),
              [](const cluster::PodUsage& a, const cluster::PodUsage& b) { return a.row < b.row; });
    ++reports_;
  }
  // Pods that left since the last report: their windows are dropped (a restart starts over anyway).
  std::sort(seen_.begin(), seen_.end());
  for (const PodId id : active_pods_) {
    if (!std::binary_search(seen_.begin(), seen_.end(), id)) std::vector<Sample>().swap(pod_windows_[id].samples);
  }
  active_pods_.swap(seen_);
  seen_.clear();
  if (busy) last_busy_ = now;
  if (reports_ > reports_before) {
    Message written;
    written.topic = Topic::kNodeMetrics;
    bus_.publish(written, now, core::Phase::kMetrics);
  }
}

void Koordlet::on_timer(std::uint32_t, std::uint64_t, core::Time now) {
  report(now);
  if (now - last_busy_ >= window_ + interval_ && all_zero_) {
    // No pod bound or seen since more than a window and an interval ago, and this report shows
    // none: every window is empty, and every report from here on would be the same.
    ticking_ = false;
    for (const std::uint32_t n : measured_nodes_) {
      cluster::NodeMetric& metric = out_.write(n);
      metric.idle_reports = joined_[n] && kubelets_.node_up(n) && metric.reported;
    }
    return;
  }
  bus_.set_timer(*this, 0, 0, now + interval_, core::Phase::kMetrics);
}

}  // namespace gpusim::k8s
