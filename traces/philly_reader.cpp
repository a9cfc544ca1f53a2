#include "traces/philly_reader.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <map>

#include "sim/core/status.hpp"
#include "traces/csv.hpp"

namespace gpusim::traces {
namespace {

// A job may ask at most this many GPUs (the trace's largest asks 128); it bounds the gang size.
constexpr std::int64_t kMaxJobGpus = 100'000;

// One fixed-width decimal field of a timestamp, or nothing.
std::optional<int> digits(std::string_view text, std::size_t at, std::size_t width) {
  int value = 0;
  const char* first = text.data() + at;
  const auto [end, error] = std::from_chars(first, first + width, value);
  if (error != std::errc{} || end != first + width || *first == '-' || *first == '+') return std::nullopt;
  return value;
}

// "YYYY-MM-DD HH:MM:SS" (no time zone) as seconds since 1970-01-01 00:00:00 of the same clock.
std::int64_t parse_timestamp(const CsvReader& csv, std::size_t column) {
  const std::string_view text = csv.field(column);
  const auto fail = [&] {
    csv.fail(column, fmt::format("'{}' is not a time stamp of the form YYYY-MM-DD HH:MM:SS", text));
  };
  if (text.size() != 19 || text[4] != '-' || text[7] != '-' || text[10] != ' ' || text[13] != ':' || text[16] != ':') fail();
  const auto year = digits(text, 0, 4), month = digits(text, 5, 2), day = digits(text, 8, 2);
  const auto hour = digits(text, 11, 2), minute = digits(text, 14, 2), second = digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) fail();
  const std::chrono::year_month_day date{std::chrono::year{*year}, std::chrono::month{static_cast<unsigned>(*month)},
                                         std::chrono::day{static_cast<unsigned>(*day)}};
  if (!date.ok()) csv.fail(column, fmt::format("'{}': no such date", text));
  if (*hour > 23 || *minute > 59 || *second > 59) csv.fail(column, fmt::format("'{}': no such time of day", text));
  const std::int64_t days = std::chrono::sys_days{date}.time_since_epoch().count();
  return days * 86'400 + *hour * 3'600 + *minute * 60 + *second;
}

// Seconds as a Time; the trace writes whole seconds as "66.0", but any non-negative number is read
// (rounded to the microsecond).
core::Time seconds_field(const CsvReader& csv, std::size_t column, double value) {
  if (value < 0) csv.fail(column, fmt::format("{} s is negative", csv.field(column)));
  if (value > static_cast<double>(core::Time::kMaxInputSeconds)) {
    csv.fail(column, fmt::format("{} s is out of range (at most {} s)", csv.field(column), core::Time::kMaxInputSeconds));
  }
  return core::Time::from_micros(std::llround(value * 1e6));
}

struct Row {
  std::int64_t submitted_s;
  core::Time duration;
  std::int32_t gpus;
  std::uint16_t queue;
  int line;
};

}  // namespace

bool is_philly_header(const std::string& first_line) {
  return first_line.starts_with("timestamp,duration,num_gpus");
}

namespace {

Workload read_jobs(CsvReader& csv, int max_gpus_per_pod) {
  const std::string& name = csv.file();
  if (max_gpus_per_pod < 1) {
    throw core::InputError(fmt::format("{}: the cluster has no GPU node, so no Philly job can run", name));
  }
  const std::size_t c_time = csv.require_column("timestamp");
  const std::size_t c_duration = csv.require_column("duration");
  const std::size_t c_gpus = csv.require_column("num_gpus");
  const std::size_t c_gpu_time = csv.require_column("gpu_time");
  const std::size_t c_cluster = csv.require_column("cluster");

  Workload workload;
  workload.source = name;
  workload.has_times = true;
  // Queues are numbered in order of first appearance; the map is only looked up.
  std::map<std::string, std::uint16_t, std::less<>> queue_of;
  std::vector<Row> rows;
  while (csv.next()) {
    Row row{};
    row.line = csv.line();
    row.submitted_s = parse_timestamp(csv, c_time);
    const double duration = csv.number(c_duration);
    row.duration = seconds_field(csv, c_duration, duration);
    const std::int64_t gpus = csv.non_negative_integer(c_gpus);
    if (gpus < 1) csv.fail(c_gpus, "a Philly job uses at least one GPU");
    if (gpus > kMaxJobGpus) csv.fail(c_gpus, fmt::format("{} GPUs is out of range (at most {})", gpus, kMaxJobGpus));
    row.gpus = static_cast<std::int32_t>(gpus);
    // gpu_time is duration x num_gpus in the trace; a row where it is not was edited or shifted.
    const double gpu_time = csv.number(c_gpu_time);
    const double expected = duration * static_cast<double>(gpus);
    if (!(std::fabs(gpu_time - expected) <= 0.5 + 1e-9 * expected)) {
      csv.fail(c_gpu_time, fmt::format("{} is not duration x num_gpus ({} x {} = {})", csv.field(c_gpu_time),
                                       csv.field(c_duration), gpus, expected));
    }
    const std::string_view queue = csv.field(c_cluster);
    if (queue.empty()) csv.fail(c_cluster, "empty, expected the job's virtual cluster");
    auto it = queue_of.find(queue);
    if (it == queue_of.end()) {
      if (workload.queues.size() >= 65'535) csv.fail(c_cluster, "more than 65,535 virtual clusters");
      it = queue_of.emplace(std::string(queue), static_cast<std::uint16_t>(workload.queues.size())).first;
      workload.queues.emplace_back(queue);
    }
    row.queue = it->second;
    rows.push_back(row);
  }
  workload.skipped_lines = csv.skipped_lines();
  if (rows.empty()) throw core::InputError(fmt::format("{}: no jobs", name));

  const std::int64_t origin =
      std::min_element(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.submitted_s < b.submitted_s; })
          ->submitted_s;
  std::uint32_t gangs = 0;
  // Room for every pod, the gangs' workers included: one short, the vector would double at the end.
  const auto workers_of = [&](const Row& row) { return (row.gpus + max_gpus_per_pod - 1) / max_gpus_per_pod; };
  std::size_t pods = 0;
  for (const Row& row : rows) pods += static_cast<std::size_t>(workers_of(row));
  workload.pods.reserve(pods);
  for (std::size_t j = 0; j < rows.size(); ++j) {
    const Row& row = rows[j];
    cluster::PodSpec pod;
    pod.gpu_milli = cluster::kMilliPerGpu;
    pod.phase = cluster::TracePhase::kSucceeded;
    pod.creation_time = core::Time::from_seconds(row.submitted_s - origin);
    pod.duration = row.duration;
    pod.deletion_time = *pod.creation_time + row.duration;
    pod.queue = row.queue;
    std::string job = fmt::format(FMT_COMPILE("job-{:05}"), j);
    if (row.gpus <= max_gpus_per_pod) {
      pod.name = std::move(job);
      pod.gpu_count = row.gpus;
      workload.pods.push_back(std::move(pod));
      continue;
    }
    pod.gang = ++gangs;
    const int workers = workers_of(row);
    for (int w = 0; w < workers; ++w) {
      cluster::PodSpec worker = pod;
      worker.name = fmt::format(FMT_COMPILE("{}-w{:03}"), job, w);
      worker.gpu_count = std::min(max_gpus_per_pod, row.gpus - w * max_gpus_per_pod);
      workload.pods.push_back(std::move(worker));
    }
  }
  workload.has_gangs = gangs > 0;
  if (gangs > 0) {
    workload.notes.push_back(fmt::format("{} jobs ask more GPUs than the largest node has ({}); each runs as a gang of "
                                         "workers of {} GPUs (and one with the rest) that start together",
                                         gangs, max_gpus_per_pod, max_gpus_per_pod));
  }
  return workload;
}

}  // namespace

Workload read_philly_jobs(const std::filesystem::path& path, int max_gpus_per_pod) {
  CsvReader csv(path);
  return read_jobs(csv, max_gpus_per_pod);
}

Workload read_philly_jobs(std::istream& in, const std::string& name, int max_gpus_per_pod) {
  CsvReader csv(in, name);
  return read_jobs(csv, max_gpus_per_pod);
}

}  // namespace gpusim::traces
