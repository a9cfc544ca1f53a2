#include "sim/report/openmetrics_queues.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string>

#include "sim/core/status.hpp"
#include "sim/k8s/queue_metrics.hpp"

namespace gpusim::report {
namespace {

// Seconds since the Unix epoch: whole seconds as integers, others with milliseconds.
std::string stamp(std::int64_t epoch, double seconds) {
  if (seconds == std::floor(seconds)) return fmt::format("{}", epoch + static_cast<std::int64_t>(seconds));
  return fmt::format("{:.3f}", static_cast<double>(epoch) + seconds);
}

std::string value_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{:.10g}", v);
}

}  // namespace

QueueSeriesFile read_queue_series(const std::filesystem::path& csv) {
  QueueSeriesFile file{read_table(csv), 0};
  const Table& t = file.table;
  const std::size_t c_time = t.column("time_s"), c_metric = t.column("metric"), c_value = t.column("value");
  (void)t.column("labels");
  double previous = 0;
  for (std::size_t r = 0; r < t.row_count(); ++r) {
    const auto fail = [&](const char* field, const std::string& why) {
      throw core::InputError(fmt::format("{}:{}: {}: {}", csv.string(), r + 2, field, why));
    };
    const double time = t.number(r, c_time);
    if (std::isnan(time) || time < 0 || time < previous) fail("time_s", fmt::format("'{}' is not a time at or after the row before", t.row(r)[c_time]));
    previous = time;
    if (!k8s::queue_metric(t.row(r)[c_metric])) fail("metric", fmt::format("'{}' is not a queue metric gpusim writes", t.row(r)[c_metric]));
    const std::string_view v = t.row(r)[c_value];
    if (v != "nan" && v != "inf" && v != "-inf" && std::isnan(t.number(r, c_value))) fail("value", fmt::format("'{}' is not a number", v));
  }
  file.last_time_s = previous;
  return file;
}

void write_queue_families(const QueueSeriesFile& file, std::int64_t epoch, const std::vector<double>& times, std::ostream& out) {
  const Table& t = file.table;
  const std::size_t c_time = t.column("time_s"), c_metric = t.column("metric"), c_labels = t.column("labels"),
                    c_value = t.column("value");
  // Per series (metric and labels), its points in time order.
  struct Series {
    std::string labels;
    std::vector<std::pair<double, double>> points;
  };
  std::map<std::string, std::vector<Series>> by_metric;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (std::size_t r = 0; r < t.row_count(); ++r) {
    const std::string_view metric = t.row(r)[c_metric];
    const std::string_view labels = t.row(r)[c_labels];
    auto& list = by_metric[std::string(metric)];
    const auto [it, added] = index.emplace(std::pair{std::string(metric), std::string(labels)}, list.size());
    if (added) list.push_back({std::string(labels), {}});
    const std::string_view v = t.row(r)[c_value];
    const double value = v == "nan" ? NAN : v == "inf" ? INFINITY : v == "-inf" ? -INFINITY : t.number(r, c_value);
    list[it->second].points.emplace_back(t.number(r, c_time), value);
  }
  // Families in the order sim/k8s/queue_metrics.hpp lists them.
  for (const k8s::QueueMetric& m : k8s::kQueueMetrics) {
    const auto found = by_metric.find(std::string(m.name));
    if (found == by_metric.end()) continue;
    const std::string_view family = m.counter ? m.name.substr(0, m.name.size() - 6) : m.name;  // a counter's family drops _total
    out << "# TYPE " << family << (m.counter ? " counter\n" : " gauge\n");
    out << "# HELP " << family << ' ' << m.help << '\n';
    for (const Series& s : found->second) {
      std::size_t next = 0;
      double value = 0;
      bool started = false;
      for (const double at : times) {
        while (next < s.points.size() && s.points[next].first <= at) {
          value = s.points[next++].second;
          started = true;
        }
        if (!started) continue;
        out << m.name << '{' << s.labels << "} " << value_text(value) << ' ' << stamp(epoch, at) << '\n';
      }
    }
  }
}

}  // namespace gpusim::report
