#include "traces/dlrm_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <unordered_map>

#include "sim/cluster/pod.hpp"
#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "traces/csv.hpp"

namespace gpusim::traces {
namespace {

constexpr double kMaxCpus = 1e9;          // vCPUs of one instance
constexpr double kMaxMemoryGib = 1e9;     // GiB of one instance
constexpr std::int64_t kMaxRdmaPercent = 1'000'000;

struct Row {
  cluster::PodSpec pod;
  std::optional<double> created, scheduled, deleted;
};

// A non-negative number no larger than `high` (the trace writes vCPUs as integers and memory as
// decimals).
double bounded(const CsvReader& csv, std::size_t column, double high) {
  const double value = csv.number(column);
  if (!(value >= 0) || value > high) csv.fail(column, fmt::format("{} is out of range [0, {}]", csv.field(column), high));
  return value;
}

// Request and limit columns must agree: the scheduler places by requests, and the trace has them
// equal, so a row where they differ was edited.
void check_limit_equals(const CsvReader& csv, std::size_t request, std::size_t limit) {
  if (csv.number(limit) != csv.number(request)) {
    csv.fail(limit, fmt::format("{} differs from the request {} (the trace has them equal; gpusim places by requests)",
                                csv.field(limit), csv.field(request)));
  }
}

std::optional<double> time_field(const CsvReader& csv, std::size_t column) {
  const auto value = csv.optional_number(column);
  if (value && (!(*value >= 0) || *value > static_cast<double>(core::Time::kMaxInputSeconds))) {
    csv.fail(column, fmt::format("{} s is out of range [0, {}]", csv.field(column), core::Time::kMaxInputSeconds));
  }
  return value;
}

core::Time micros(double seconds) { return core::Time::from_micros(std::llround(seconds * 1e6)); }

Workload read_rows(CsvReader& csv) {
  const std::string& name = csv.file();
  const std::size_t c_name = csv.require_column("instance_sn");
  const std::size_t c_role = csv.require_column("role");
  const std::size_t c_app = csv.require_column("app_name");
  const std::size_t c_cpu = csv.require_column("cpu_request"), c_cpu_limit = csv.require_column("cpu_limit");
  const std::size_t c_gpu = csv.require_column("gpu_request"), c_gpu_limit = csv.require_column("gpu_limit");
  const std::size_t c_rdma = csv.require_column("rdma_request"), c_rdma_limit = csv.require_column("rdma_limit");
  const std::size_t c_memory = csv.require_column("memory_request"), c_memory_limit = csv.require_column("memory_limit");
  const std::size_t c_disk = csv.require_column("disk_request"), c_disk_limit = csv.require_column("disk_limit");
  const std::size_t c_per_node = csv.require_column("max_instance_per_node");
  const std::size_t c_created = csv.require_column("creation_time");
  const std::size_t c_scheduled = csv.require_column("scheduled_time");
  const std::size_t c_deleted = csv.require_column("deletion_time");

  Workload workload;
  workload.source = name;
  workload.has_times = true;
  // Two shared rule objects: every CN instance asks a CPU node, every HN one a GPU node.
  auto on_role = [](const char* role) {
    auto rules = std::make_shared<cluster::PodConstraints>();
    rules->node_selector.emplace_back(kDlrmRoleLabel, role);
    return std::shared_ptr<const cluster::PodConstraints>(std::move(rules));
  };
  const auto cn_rules = on_role("CN"), hn_rules = on_role("HN");
  std::map<std::string, std::int32_t, std::less<>> app_of;
  std::unordered_map<std::string, int> line_of;
  std::vector<Row> rows;
  double trace_end = 0;
  while (csv.next()) {
    Row row;
    cluster::PodSpec& pod = row.pod;
    pod.name = std::string(csv.field(c_name));
    if (pod.name.empty()) csv.fail(c_name, "empty instance name");
    const auto [first, fresh] = line_of.emplace(pod.name, csv.line());
    if (!fresh) csv.fail(c_name, fmt::format("duplicate instance '{}' (first at line {})", pod.name, first->second));
    const std::string_view role = csv.field(c_role);
    if (role != "CN" && role != "HN") csv.fail(c_role, fmt::format("'{}' is neither CN (CPU node) nor HN (GPU node)", role));
    pod.constraints = role == "CN" ? cn_rules : hn_rules;
    const std::string_view app = csv.field(c_app);
    if (app.empty()) csv.fail(c_app, "empty, expected the instance's service");
    auto it = app_of.find(app);
    if (it == app_of.end()) {
      it = app_of.emplace(std::string(app), static_cast<std::int32_t>(workload.apps.size())).first;
      workload.apps.emplace_back(app);
    }
    pod.app = it->second;

    pod.cpu_milli = std::llround(bounded(csv, c_cpu, kMaxCpus) * 1000);
    check_limit_equals(csv, c_cpu, c_cpu_limit);
    const std::int64_t gpus = csv.non_negative_integer(c_gpu);
    if (gpus > cluster::kMaxGpusPerNode) csv.fail(c_gpu, fmt::format("{} GPUs is too many (at most {})", gpus, cluster::kMaxGpusPerNode));
    if (role == "CN" && gpus != 0) csv.fail(c_gpu, "a CN instance runs on a CPU node and asks no GPU");
    if (role == "HN" && gpus == 0) csv.fail(c_gpu, "an HN instance runs on a GPU node and asks at least one GPU");
    check_limit_equals(csv, c_gpu, c_gpu_limit);
    pod.gpu_count = static_cast<std::int32_t>(gpus);
    pod.gpu_milli = gpus > 0 ? cluster::kMilliPerGpu : 0;
    const std::int64_t rdma = csv.non_negative_integer(c_rdma);
    if (rdma > kMaxRdmaPercent) csv.fail(c_rdma, fmt::format("{} is out of range (at most {})", rdma, kMaxRdmaPercent));
    check_limit_equals(csv, c_rdma, c_rdma_limit);
    pod.rdma_percent = static_cast<std::int32_t>(rdma);
    pod.memory_mib = std::llround(bounded(csv, c_memory, kMaxMemoryGib) * 1024);
    check_limit_equals(csv, c_memory, c_memory_limit);
    if (bounded(csv, c_disk_limit, 1e12) < bounded(csv, c_disk, 1e12)) csv.fail(c_disk_limit, "below disk_request");
    const std::int64_t per_node = csv.integer(c_per_node);
    if (per_node == 0 || per_node < -1 || per_node > std::numeric_limits<std::int32_t>::max()) {
      csv.fail(c_per_node, fmt::format("{} is neither -1 (no limit) nor a positive count", per_node));
    }
    pod.max_per_node = per_node < 0 ? 0 : static_cast<std::int32_t>(per_node);
    pod.qos = cluster::Qos::kLatencySensitive;  // online serving
    pod.priority = 2;                            // as openb's LS pods

    row.created = time_field(csv, c_created);
    row.scheduled = time_field(csv, c_scheduled);
    row.deleted = time_field(csv, c_deleted);
    if (row.scheduled && !row.created) csv.fail(c_scheduled, "given without creation_time");
    if (row.scheduled && *row.scheduled < *row.created) csv.fail(c_scheduled, "before creation_time");
    if (row.deleted && row.created && *row.deleted < std::max(*row.created, row.scheduled.value_or(0))) {
      csv.fail(c_deleted, row.scheduled ? "before scheduled_time" : "before creation_time");
    }
    for (const auto& time : {row.created, row.scheduled, row.deleted}) trace_end = std::max(trace_end, time.value_or(0));
    rows.push_back(std::move(row));
  }
  workload.skipped_lines = csv.skipped_lines();
  if (rows.empty()) throw core::InputError(fmt::format("{}: no instances", name));

  std::int64_t before_start = 0, alive_at_end = 0, created_unscheduled = 0;
  const core::Time end = micros(trace_end);
  for (Row& row : rows) {
    cluster::PodSpec& pod = row.pod;
    const core::Time created = row.created ? micros(*row.created) : core::Time::zero();
    // Created but never scheduled within the trace: it waited until its deletion (or the end).
    const bool never_scheduled = row.created && !row.scheduled;
    const core::Time started = row.scheduled ? micros(*row.scheduled) : created;
    before_start += row.created ? 0 : 1;
    pod.creation_time = created;
    pod.deletion_time = row.deleted ? micros(*row.deleted) : end;
    if (never_scheduled) {
      ++created_unscheduled;
      pod.phase = cluster::TracePhase::kPending;
    } else {
      pod.phase = row.deleted ? cluster::TracePhase::kSucceeded : cluster::TracePhase::kRunning;
    }
    alive_at_end += row.deleted ? 0 : 1;
    pod.duration = *pod.deletion_time - started;
    workload.pods.push_back(std::move(pod));
  }
  workload.notes.push_back(fmt::format("{} instances have no creation_time (they existed before the trace began): they arrive at 0 s",
                                       before_start));
  workload.notes.push_back(fmt::format("{} instances have no deletion_time (alive at the trace's end): they run until its last time, {} s",
                                       alive_at_end, trace_end));
  if (created_unscheduled > 0) {
    workload.notes.push_back(fmt::format("{} instances were created but never scheduled in the trace: they replay as Pending pods, "
                                         "waiting until their deletion at most", created_unscheduled));
  }
  workload.notes.push_back("disk requests and limits are checked but not modelled");
  return workload;
}

}  // namespace

bool is_dlrm_header(const std::string& first_line) { return first_line.starts_with("instance_sn,role,app_name"); }

Workload read_dlrm_instances(const std::filesystem::path& path) {
  io::require_file(path, "DLRM instance trace");
  CsvReader csv(path);
  return read_rows(csv);
}

Workload read_dlrm_instances(std::istream& in, const std::string& name) {
  CsvReader csv(in, name);
  return read_rows(csv);
}

}  // namespace gpusim::traces
