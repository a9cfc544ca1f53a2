#pragma once
// Per-queue time series a queueing policy records as the run goes (Kueue's ClusterQueues, KAI's
// Queues): each series is a metric name and its OpenMetrics labels (kueue_pending_workloads
// {cluster_queue="a",status="active"}, kai_queue_fair_share_gpu{queue_name="a",...}), and a point is
// kept only when its value changes, so a run of weeks stays small. The run writes them to
// queue-series.csv; `gpusim export openmetrics` samples them (sim/report/openmetrics.hpp). The
// metrics' names, types and help are in sim/k8s/queue_metrics.hpp.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/time.hpp"

namespace gpusim::k8s {

class QueueSeries {
 public:
  struct Series {
    std::string metric;
    std::string labels;  // the OpenMetrics label set, without braces: name="value",...
  };
  struct Point {
    std::int64_t time_us;
    std::uint32_t series;
    double value;
  };

  // A new series; its id for set().
  std::uint32_t add(std::string metric, std::string labels) {
    series_.push_back({std::move(metric), std::move(labels)});
    last_.push_back(-1.0);
    has_.push_back(0);
    last_time_.push_back(-1);
    return static_cast<std::uint32_t>(series_.size() - 1);
  }
  // The series' value from `now` on; a point is kept only if it changes the value (a second change
  // at the same instant replaces the first).
  void set(std::uint32_t id, core::Time now, double value) {
    if (has_[id] && (last_[id] == value || (std::isnan(last_[id]) && std::isnan(value)))) return;
    if (has_[id] && last_time_[id] == now.micros()) {
      // Changed twice at one instant: the later value stands (search back for the point).
      for (auto it = points_.rbegin(); it != points_.rend() && it->time_us == now.micros(); ++it) {
        if (it->series == id) {
          it->value = value;
          last_[id] = value;
          return;
        }
      }
    }
    points_.push_back({now.micros(), id, value});
    last_[id] = value;
    has_[id] = 1;
    last_time_[id] = now.micros();
  }

  const std::vector<Series>& series() const { return series_; }
  const std::vector<Point>& points() const { return points_; }
  bool empty() const { return points_.empty(); }

 private:
  std::vector<Series> series_;
  std::vector<Point> points_;  // in time order
  std::vector<double> last_;
  std::vector<std::uint8_t> has_;
  std::vector<std::int64_t> last_time_;
};

}  // namespace gpusim::k8s
