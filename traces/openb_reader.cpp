#include "traces/openb_reader.hpp"

#include <fmt/format.h>

#include <fstream>
#include <unordered_map>

#include "sim/cluster/node.hpp"
#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "traces/csv.hpp"

namespace gpusim::traces {
namespace {

using cluster::GpuCatalog;
using cluster::kMilliPerGpu;
using cluster::Qos;

// openb times are whole seconds from an undisclosed origin.
core::Time seconds_field(const CsvReader& csv, std::size_t column) {
  const std::int64_t seconds = csv.non_negative_integer(column);
  if (seconds > core::Time::kMaxInputSeconds) {
    csv.fail(column, fmt::format("{} s is out of range (at most {} s)", seconds, core::Time::kMaxInputSeconds));
  }
  return core::Time::from_seconds(seconds);
}

// CPU and memory sizes: bounded so that cluster totals never overflow.
constexpr std::int64_t kMaxSize = 1'000'000'000'000;
std::int64_t size_field(const CsvReader& csv, std::size_t column) {
  const std::int64_t value = csv.non_negative_integer(column);
  if (value > kMaxSize) csv.fail(column, fmt::format("{} is out of range (at most {})", value, kMaxSize));
  return value;
}

// RDMA bandwidth of a node, in percent of one NIC.
constexpr std::int64_t kMaxRdmaPercent = 1'000'000;

// "key=value;key=value": each key once, non-empty.
void parse_labels(const CsvReader& csv, std::size_t column, cluster::Labels& labels) {
  std::string_view text = csv.field(column);
  while (!text.empty()) {
    const std::size_t end = text.find(';');
    const std::string_view pair = text.substr(0, end);
    const std::size_t equals = pair.find('=');
    if (equals == std::string_view::npos || equals == 0) {
      csv.fail(column, fmt::format("'{}' is not key=value", pair));
    }
    const std::string_view key = pair.substr(0, equals);
    for (const auto& [known, value] : labels) {
      if (known == key) csv.fail(column, fmt::format("label '{}' given twice", key));
    }
    labels.emplace_back(std::string(key), std::string(pair.substr(equals + 1)));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

// Names must be unique within a file; the message names the earlier line.
void check_unique(std::unordered_map<std::string, int>& seen, const std::string& name, const CsvReader& csv,
                  std::size_t column, const char* what) {
  const auto [it, inserted] = seen.emplace(name, csv.line());
  if (!inserted) csv.fail(column, fmt::format("duplicate {} name '{}' (first at line {})", what, name, it->second));
}

[[noreturn]] void unknown_model(const CsvReader& csv, std::size_t column, std::string_view name,
                                const GpuCatalog& catalog) {
  csv.fail(column, fmt::format("unknown GPU model '{}' (catalog ids: {}; aliases in the catalog JSON)", name,
                               catalog.ids()));
}

Qos parse_qos(const CsvReader& csv, std::size_t column) {
  const std::string_view text = csv.field(column);
  if (text == "LS") return Qos::kLatencySensitive;
  if (text == "BE") return Qos::kBestEffort;
  if (text == "Burstable") return Qos::kBurstable;
  if (text == "Guaranteed") return Qos::kGuaranteed;
  if (text.empty()) return Qos::kUnspecified;
  csv.fail(column, fmt::format("unknown QoS '{}' (expected LS, BE, Burstable or Guaranteed)", text));
}

cluster::TracePhase parse_phase(const CsvReader& csv, std::size_t column) {
  const std::string_view text = csv.field(column);
  if (text == "Running") return cluster::TracePhase::kRunning;
  if (text == "Succeeded") return cluster::TracePhase::kSucceeded;
  if (text == "Failed") return cluster::TracePhase::kFailed;
  if (text == "Pending") return cluster::TracePhase::kPending;
  if (text.empty()) return cluster::TracePhase::kUnknown;
  csv.fail(column, fmt::format("unknown pod phase '{}' (expected Running, Succeeded, Failed or Pending)", text));
}

// Kubernetes-like priority from the QoS class: latency-sensitive and guaranteed work first.
std::int32_t priority_of(Qos qos) {
  switch (qos) {
    case Qos::kGuaranteed: return 3;
    case Qos::kLatencySensitive: return 2;
    case Qos::kBurstable: return 1;
    case Qos::kBestEffort:
    case Qos::kUnspecified: return 0;
  }
  return 0;
}

cluster::GpuModelSet parse_models(const CsvReader& csv, std::size_t column,
                                  const GpuCatalog& catalog) {
  cluster::GpuModelSet set;
  std::string_view text = csv.field(column);
  while (!text.empty()) {
    const std::size_t bar = text.find('|');
    const std::string_view name = text.substr(0, bar);
    const auto id = catalog.find(name);
    if (!id) unknown_model(csv, column, name, catalog);
    set.add(*id);  // repeated names ("V100M16|V100M32|V100M32") are a set
    if (bar == std::string_view::npos) break;
    text.remove_prefix(bar + 1);
  }
  return set;
}

}  // namespace

ClusterSpec read_openb_nodes(const std::filesystem::path& path, const GpuCatalog& catalog) {
  io::require_file(path, "node list");
  std::ifstream in(path, std::ios::binary);
  return read_openb_nodes(in, path.string(), catalog);
}

Workload read_openb_pods(const std::filesystem::path& path, const GpuCatalog& catalog) {
  io::require_file(path, "pod list");
  std::ifstream in(path, std::ios::binary);
  return read_openb_pods(in, path.string(), catalog);
}

ClusterSpec read_openb_nodes(std::istream& in, const std::string& name, const GpuCatalog& catalog) {
  CsvReader csv(in, name);
  const std::size_t c_name = csv.require_column("sn");
  const std::size_t c_cpu = csv.require_column("cpu_milli");
  const std::size_t c_memory = csv.require_column("memory_mib");
  const std::size_t c_gpu = csv.require_column("gpu");
  const std::size_t c_model = csv.require_column("model");
  // gpusim's own optional columns (traces/README.md): RDMA bandwidth in percent of one NIC, and
  // labels as key=value pairs separated by ';'.
  const auto c_rdma = csv.column("rdma_percent");
  const auto c_labels = csv.column("labels");
  ClusterSpec spec;
  spec.source = name;
  std::unordered_map<std::string, int> seen;
  while (csv.next()) {
    cluster::NodeSpec node;
    node.name = std::string(csv.field(c_name));
    if (node.name.empty()) csv.fail(c_name, "empty node name");
    check_unique(seen, node.name, csv, c_name, "node");
    node.cpu_milli = size_field(csv, c_cpu);
    node.memory_mib = size_field(csv, c_memory);
    const std::int64_t gpus = csv.non_negative_integer(c_gpu);
    if (gpus > cluster::kMaxGpusPerNode) {
      csv.fail(c_gpu, fmt::format("{} GPUs, at most {} supported", gpus, cluster::kMaxGpusPerNode));
    }
    node.gpu_count = static_cast<std::int32_t>(gpus);
    const std::string_view model = csv.field(c_model);
    if (gpus > 0) {
      if (model.empty()) csv.fail(c_model, "empty, but the node has GPUs");
      const auto id = catalog.find(model);
      if (!id) unknown_model(csv, c_model, model, catalog);
      node.gpu_model = *id;
      node.labels.emplace_back("gpusim.io/gpu-model", std::string(model));
    } else if (!model.empty()) {
      csv.fail(c_model, fmt::format("model '{}' given for a node without GPUs", model));
    }
    if (c_rdma) {
      const std::int64_t rdma = csv.non_negative_integer(*c_rdma);
      if (rdma > kMaxRdmaPercent) csv.fail(*c_rdma, fmt::format("{} is out of range (at most {})", rdma, kMaxRdmaPercent));
      node.rdma_percent = static_cast<std::int32_t>(rdma);
    }
    if (c_labels) parse_labels(csv, *c_labels, node.labels);
    spec.nodes.push_back(std::move(node));
  }
  if (spec.nodes.empty()) {
    throw core::InputError(fmt::format("{}: no nodes", spec.source));
  }
  spec.skipped_lines = csv.skipped_lines();
  return spec;
}

Workload read_openb_pods(std::istream& in, const std::string& name, const GpuCatalog& catalog) {
  CsvReader csv(in, name);
  const std::size_t c_name = csv.require_column("name");
  const std::size_t c_cpu = csv.require_column("cpu_milli");
  const std::size_t c_memory = csv.require_column("memory_mib");
  const std::size_t c_count = csv.require_column("num_gpu");
  const std::size_t c_milli = csv.require_column("gpu_milli");
  // The multigpu files have only the five columns above.
  const auto c_spec = csv.column("gpu_spec");
  const auto c_qos = csv.column("qos");
  const auto c_created = csv.column("creation_time");
  const auto c_deleted = csv.column("deletion_time");
  const auto c_scheduled = csv.column("scheduled_time");
  const auto c_phase = csv.column("pod_phase");

  Workload workload;
  workload.source = name;
  workload.has_times = c_created.has_value() && c_deleted.has_value();
  std::unordered_map<std::string, int> seen;
  while (csv.next()) {
    cluster::PodSpec pod;
    pod.name = std::string(csv.field(c_name));
    if (pod.name.empty()) csv.fail(c_name, "empty pod name");
    check_unique(seen, pod.name, csv, c_name, "pod");
    pod.cpu_milli = size_field(csv, c_cpu);
    pod.memory_mib = size_field(csv, c_memory);
    const std::int64_t count = csv.non_negative_integer(c_count);
    const std::int64_t milli = csv.non_negative_integer(c_milli);
    if (count > cluster::kMaxGpusPerNode) csv.fail(c_count, fmt::format("{} GPUs is too many", count));
    if (milli > kMilliPerGpu) csv.fail(c_milli, fmt::format("{} exceeds {} (one whole GPU)", milli, kMilliPerGpu));
    if (count == 0 && milli != 0) csv.fail(c_milli, "non-zero share with num_gpu 0");
    if (count > 0 && milli == 0) csv.fail(c_milli, "zero share with num_gpu > 0");
    if (count > 1 && milli != kMilliPerGpu) {
      csv.fail(c_milli, "a fraction of a GPU is only allowed with num_gpu 1");
    }
    pod.gpu_count = static_cast<std::int32_t>(count);
    pod.gpu_milli = static_cast<std::int32_t>(milli);
    if (c_spec) {
      pod.allowed_models = parse_models(csv, *c_spec, catalog);
      if (count == 0 && !pod.allowed_models.any()) csv.fail(*c_spec, "GPU model given for a pod without GPUs");
    }
    if (c_qos) pod.qos = parse_qos(csv, *c_qos);
    if (c_phase) pod.phase = parse_phase(csv, *c_phase);
    pod.priority = priority_of(pod.qos);
    if (workload.has_times) {
      pod.creation_time = seconds_field(csv, *c_created);
      pod.deletion_time = seconds_field(csv, *c_deleted);
      if (*pod.deletion_time < *pod.creation_time) csv.fail(*c_deleted, "before creation_time");
      core::Time started = *pod.creation_time;
      if (c_scheduled && !csv.field(*c_scheduled).empty()) {
        started = seconds_field(csv, *c_scheduled);
        if (started < *pod.creation_time) csv.fail(*c_scheduled, "before creation_time");
        if (started > *pod.deletion_time) csv.fail(*c_scheduled, "after deletion_time");
      }
      pod.duration = *pod.deletion_time - started;
    }
    workload.pods.push_back(std::move(pod));
  }
  if (workload.pods.empty()) throw core::InputError(fmt::format("{}: no pods", workload.source));
  workload.skipped_lines = csv.skipped_lines();
  return workload;
}

}  // namespace gpusim::traces
