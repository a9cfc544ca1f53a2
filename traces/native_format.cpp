#include "traces/native_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"

namespace gpusim::traces {
namespace {

using nlohmann::json;
constexpr std::string_view kFormatName = "gpusim-trace";
// Sizes and times are bounded as the CSV readers bound them, so totals and time sums never overflow.
constexpr std::int64_t kMaxSize = 1'000'000'000'000;
constexpr std::int64_t kMaxMicros = core::Time::kMaxInputSeconds * core::Time::kMicrosPerSecond;
constexpr std::int64_t kMaxRdmaPercent = 1'000'000;

// One line of the file being read: its number for messages, and typed access to its fields.
class Line {
 public:
  Line(const std::string& file, int number, const json& object) : file_(file), number_(number), object_(object) {}

  [[noreturn]] void fail(std::string_view field, std::string_view reason) const {
    throw core::InputError(fmt::format("{}:{}: {}: {}", file_, number_, field, reason));
  }
  bool has(const char* field) const { return object_.contains(field); }
  // Every field must be one of `known`: a misspelt field is an error, never silently a default.
  void check_fields(std::initializer_list<std::string_view> known) const {
    for (const auto& [key, value] : object_.items()) {
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        fail(key, fmt::format("unknown field (known: {})", fmt::join(known, ", ")));
      }
    }
  }
  std::int64_t integer(const char* field, std::int64_t low, std::int64_t high, std::int64_t fallback) const {
    const auto it = object_.find(field);
    if (it == object_.end()) return fallback;
    if (!it->is_number_integer()) fail(field, fmt::format("{} is not an integer", it->dump()));
    // Unsigned values above int64's range are out of range, not wrapped.
    if (it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(high)) {
      fail(field, fmt::format("{} is out of range [{}, {}]", it->dump(), low, high));
    }
    const auto value = it->get<std::int64_t>();
    if (value < low || value > high) fail(field, fmt::format("{} is out of range [{}, {}]", value, low, high));
    return value;
  }
  std::optional<core::Time> time(const char* field) const {
    if (!has(field)) return std::nullopt;
    return core::Time::from_micros(integer(field, 0, kMaxMicros, 0));
  }
  std::string string(const char* field, bool required) const {
    const auto it = object_.find(field);
    if (it == object_.end()) {
      if (required) fail(field, "missing");
      return {};
    }
    if (!it->is_string()) fail(field, fmt::format("{} is not a string", it->dump()));
    auto text = it->get<std::string>();
    if (text.empty()) fail(field, "empty");
    return text;
  }
  const json& at(const char* field) const { return object_.at(field); }

 private:
  const std::string& file_;
  int number_;
  const json& object_;
};

const char* qos_name(cluster::Qos qos) {
  switch (qos) {
    case cluster::Qos::kLatencySensitive: return "LS";
    case cluster::Qos::kBestEffort: return "BE";
    case cluster::Qos::kBurstable: return "Burstable";
    case cluster::Qos::kGuaranteed: return "Guaranteed";
    case cluster::Qos::kUnspecified: return "";
  }
  return "";
}

const char* phase_name(cluster::TracePhase phase) {
  switch (phase) {
    case cluster::TracePhase::kRunning: return "Running";
    case cluster::TracePhase::kSucceeded: return "Succeeded";
    case cluster::TracePhase::kFailed: return "Failed";
    case cluster::TracePhase::kPending: return "Pending";
    case cluster::TracePhase::kUnknown: return "";
  }
  return "";
}

// A list of distinct non-empty names (the header's queues and apps), with its index.
std::map<std::string, std::int32_t, std::less<>> names(const Line& line, const char* field, std::size_t limit,
                                                       std::vector<std::string>& out) {
  std::map<std::string, std::int32_t, std::less<>> index;
  if (!line.has(field)) return index;
  const json& list = line.at(field);
  if (!list.is_array()) line.fail(field, "not a list of names");
  if (list.size() > limit) line.fail(field, fmt::format("more than {} names", limit));
  for (const json& item : list) {
    if (!item.is_string() || item.get<std::string>().empty()) line.fail(field, fmt::format("{} is not a name", item.dump()));
    const auto [it, inserted] = index.emplace(item.get<std::string>(), static_cast<std::int32_t>(out.size()));
    if (!inserted) line.fail(field, fmt::format("'{}' is listed twice", it->first));
    out.push_back(it->first);
  }
  return index;
}

// A name that must be one of the header's list.
std::int32_t named(const Line& line, const char* field, const std::map<std::string, std::int32_t, std::less<>>& index,
                   const char* header_field) {
  const std::string name = line.string(field, false);
  if (name.empty()) return -1;
  const auto it = index.find(name);
  if (it == index.end()) line.fail(field, fmt::format("'{}' is not in the header's {}", name, header_field));
  return it->second;
}

// Pods with the same nodeSelector share one rules object, as the readers that make them do: the
// scheduler tells pod shapes apart by it, so a converted trace schedules exactly as its source.
using SelectorCache = std::map<cluster::Labels, std::shared_ptr<const cluster::PodConstraints>>;

cluster::PodSpec read_pod(const Line& line, const cluster::GpuCatalog& catalog,
                          const std::map<std::string, std::int32_t, std::less<>>& queues,
                          const std::map<std::string, std::int32_t, std::less<>>& apps, SelectorCache& selectors) {
  line.check_fields({"name", "cpu_milli", "memory_mib", "gpus", "gpu_milli", "gpu_demand_milli", "gpu_models", "qos",
                     "priority", "phase", "created_us", "deleted_us", "duration_us", "gang", "queue", "app",
                     "max_per_node", "rdma_percent", "node_selector"});
  cluster::PodSpec pod;
  pod.name = line.string("name", true);
  pod.cpu_milli = line.integer("cpu_milli", 0, kMaxSize, 0);
  pod.memory_mib = line.integer("memory_mib", 0, kMaxSize, 0);
  pod.gpu_count = static_cast<std::int32_t>(line.integer("gpus", 0, cluster::kMaxGpusPerNode, 0));
  if (pod.gpu_count == 0) {
    for (const char* field : {"gpu_milli", "gpu_demand_milli", "gpu_models"}) {
      if (line.has(field)) line.fail(field, "given for a pod without GPUs");
    }
  } else {
    pod.gpu_milli = static_cast<std::int32_t>(line.integer("gpu_milli", 1, cluster::kMilliPerGpu, cluster::kMilliPerGpu));
    if (pod.gpu_count > 1 && pod.gpu_milli != cluster::kMilliPerGpu) {
      line.fail("gpu_milli", "a fraction of a GPU is only allowed with gpus 1");
    }
    pod.gpu_demand_milli = static_cast<std::int32_t>(line.integer("gpu_demand_milli", 1, cluster::kMilliPerGpu, 0));
  }
  if (line.has("gpu_models")) {
    const json& models = line.at("gpu_models");
    if (!models.is_array() || models.empty()) line.fail("gpu_models", "not a non-empty list of GPU model ids");
    for (const json& model : models) {
      if (!model.is_string()) line.fail("gpu_models", fmt::format("{} is not a GPU model id", model.dump()));
      const auto id = catalog.find(model.get<std::string>());
      if (!id) {
        line.fail("gpu_models", fmt::format("unknown GPU model '{}' (catalog ids: {})", model.get<std::string>(), catalog.ids()));
      }
      pod.allowed_models.add(*id);
    }
  }
  if (line.has("qos")) {
    const std::string qos = line.string("qos", true);
    if (qos == "LS") pod.qos = cluster::Qos::kLatencySensitive;
    else if (qos == "BE") pod.qos = cluster::Qos::kBestEffort;
    else if (qos == "Burstable") pod.qos = cluster::Qos::kBurstable;
    else if (qos == "Guaranteed") pod.qos = cluster::Qos::kGuaranteed;
    else line.fail("qos", fmt::format("unknown QoS '{}' (expected LS, BE, Burstable or Guaranteed)", qos));
  }
  pod.priority = static_cast<std::int32_t>(line.integer("priority", std::numeric_limits<std::int32_t>::min(),
                                                        std::numeric_limits<std::int32_t>::max(), 0));
  if (line.has("phase")) {
    const std::string phase = line.string("phase", true);
    if (phase == "Running") pod.phase = cluster::TracePhase::kRunning;
    else if (phase == "Succeeded") pod.phase = cluster::TracePhase::kSucceeded;
    else if (phase == "Failed") pod.phase = cluster::TracePhase::kFailed;
    else if (phase == "Pending") pod.phase = cluster::TracePhase::kPending;
    else line.fail("phase", fmt::format("unknown phase '{}' (expected Running, Succeeded, Failed or Pending)", phase));
  }
  pod.creation_time = line.time("created_us");
  pod.deletion_time = line.time("deleted_us");
  pod.duration = line.time("duration_us");
  if ((pod.deletion_time || pod.duration) && !pod.creation_time) line.fail("created_us", "missing (deleted_us or duration_us given)");
  if (pod.deletion_time && *pod.deletion_time < *pod.creation_time) line.fail("deleted_us", "before created_us");
  if (pod.deletion_time && pod.duration && *pod.duration > *pod.deletion_time - *pod.creation_time) {
    line.fail("duration_us", "longer than deleted_us - created_us");
  }
  if (pod.phase == cluster::TracePhase::kPending && pod.creation_time && !pod.deletion_time) {
    line.fail("deleted_us", "missing: a Pending pod waits until its deletion at most");
  }
  pod.gang = static_cast<std::uint32_t>(line.integer("gang", 0, std::numeric_limits<std::uint32_t>::max(), 0));
  pod.queue = static_cast<std::uint16_t>(std::max(0, named(line, "queue", queues, "queues")));
  pod.app = named(line, "app", apps, "apps");
  pod.max_per_node = static_cast<std::int32_t>(line.integer("max_per_node", 0, std::numeric_limits<std::int32_t>::max(), 0));
  if (pod.max_per_node > 0 && pod.app < 0) line.fail("max_per_node", "given without the pod's app");
  pod.rdma_percent = static_cast<std::int32_t>(line.integer("rdma_percent", 0, kMaxRdmaPercent, 0));
  if (line.has("node_selector")) {
    const json& selector = line.at("node_selector");
    if (!selector.is_object() || selector.empty()) line.fail("node_selector", "not an object of label: value pairs");
    cluster::Labels labels;
    for (const auto& [key, value] : selector.items()) {
      if (key.empty() || !value.is_string()) line.fail("node_selector", fmt::format("\"{}\": {} is not a label and its value", key, value.dump()));
      labels.emplace_back(key, value.get<std::string>());
    }
    auto& shared = selectors[labels];
    if (!shared) {
      auto constraints = std::make_shared<cluster::PodConstraints>();
      constraints->node_selector = labels;
      shared = std::move(constraints);
    }
    pod.constraints = shared;
  }
  return pod;
}

// Whether a pod's Kubernetes detail is a nodeSelector alone (what the native format holds).
bool only_node_selector(const cluster::PodConstraints& c) {
  return c.required_terms.empty() && c.tolerations.empty() && c.containers.empty() && c.init_containers.empty() &&
         c.gpu_resource == cluster::GpuResource::kAny && c.gpu_memory_gib == 0 && c.mig_profile.empty() &&
         c.scheduler_name == "default-scheduler" && c.priority_class.empty() && c.job < 0 &&
         c.hami.memory_mib == 0 && c.hami.memory_percent == 100 && c.hami.cores_percent == 0;
}

// A UTF-8 byte-order mark before the first line is not part of the JSON.
std::string_view strip_bom(const std::string& text, int number) {
  std::string_view view(text);
  if (number == 1 && view.starts_with("\xEF\xBB\xBF")) view.remove_prefix(3);
  return view;
}

bool skipped(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  return first == std::string::npos || text[first] == '#';
}

}  // namespace

bool is_native_header(const std::string& first_line) {
  std::string_view line(first_line);
  if (line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
  return line.starts_with("{") && line.find("\"gpusim-trace\"") != std::string_view::npos;
}

std::string native_default_cluster(const std::string& first_line) {
  std::string_view line(first_line);
  if (line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
  const json header = json::parse(line, nullptr, false);
  if (!header.is_object()) return {};
  const auto it = header.find("cluster");
  return it != header.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

Workload read_native_workload(std::istream& in, const std::string& name, const cluster::GpuCatalog& catalog) {
  Workload workload;
  workload.source = name;
  std::map<std::string, std::int32_t, std::less<>> queues, apps;
  std::unordered_map<std::string, int> line_of_pod;
  SelectorCache selectors;
  // Gangs are renumbered 1, 2, ... in order of first appearance: the file's numbers are labels, and
  // the scheduler indexes gangs by number.
  std::unordered_map<std::uint32_t, std::uint32_t> dense_gang;
  // A gang's pods are consecutive lines; the last gang seen and where each began.
  std::unordered_map<std::uint32_t, int> gang_line;
  std::uint32_t current_gang = 0;
  bool header_seen = false;
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    if (number == 1) text = std::string(strip_bom(text, number));
    if (skipped(text)) {
      ++workload.skipped_lines;
      continue;
    }
    // A key given twice is an error: nlohmann keeps the last silently.
    std::vector<std::vector<std::string>> keys_of_object;
    const json::parser_callback_t no_repeats = [&](int, json::parse_event_t event, json& parsed) {
      if (event == json::parse_event_t::object_start) keys_of_object.emplace_back();
      if (event == json::parse_event_t::object_end) keys_of_object.pop_back();
      if (event == json::parse_event_t::key) {
        auto& keys = keys_of_object.back();
        const std::string key = parsed.get<std::string>();
        if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
          throw core::InputError(fmt::format("{}:{}: {}: given twice", name, number, key));
        }
        keys.push_back(key);
      }
      return true;
    };
    json object;
    try {
      object = json::parse(text, no_repeats);
    } catch (const json::exception& e) {
      throw core::InputError(fmt::format("{}:{}: not a JSON object: {}", name, number, e.what()));
    }
    if (!object.is_object()) throw core::InputError(fmt::format("{}:{}: not a JSON object", name, number));
    const Line line(name, number, object);
    if (!header_seen) {
      header_seen = true;
      line.check_fields({"format", "version", "source", "cluster", "timed", "queues", "apps"});
      if (line.string("format", true) != kFormatName) line.fail("format", fmt::format("expected \"{}\"", kFormatName));
      const auto version = line.integer("version", 1, std::numeric_limits<std::int32_t>::max(), 0);
      if (version == 0) line.fail("version", "missing");
      if (version != kNativeFormatVersion) {
        line.fail("version", fmt::format("version {} is newer than this gpusim reads ({})", version, kNativeFormatVersion));
      }
      if (line.has("source")) (void)line.string("source", true);
      if (line.has("cluster")) (void)line.string("cluster", true);
      if (!line.has("timed") || !line.at("timed").is_boolean()) line.fail("timed", "missing, expected true or false");
      workload.has_times = line.at("timed").get<bool>();
      queues = names(line, "queues", 65'535, workload.queues);
      apps = names(line, "apps", std::numeric_limits<std::int32_t>::max(), workload.apps);
      continue;
    }
    cluster::PodSpec pod = read_pod(line, catalog, queues, apps, selectors);
    const auto [earlier, fresh] = line_of_pod.emplace(pod.name, number);
    if (!fresh) line.fail("name", fmt::format("duplicate pod name '{}' (first at line {})", pod.name, earlier->second));
    if (workload.has_times && (!pod.creation_time || !pod.duration)) {
      line.fail(pod.creation_time ? "duration_us" : "created_us", "missing (the header says the trace is timed)");
    }
    if (!workload.has_times && pod.creation_time) line.fail("created_us", "given, but the header says the trace is not timed");
    if (pod.gang != 0 && pod.gang != current_gang) {
      const auto [first, is_new] = gang_line.emplace(pod.gang, number);
      if (!is_new) line.fail("gang", fmt::format("gang {}'s pods must be consecutive lines (its first is line {})", pod.gang, first->second));
    }
    current_gang = pod.gang;
    if (pod.gang != 0) pod.gang = dense_gang.emplace(pod.gang, static_cast<std::uint32_t>(dense_gang.size() + 1)).first->second;
    workload.has_gangs = workload.has_gangs || pod.gang != 0;
    workload.pods.push_back(std::move(pod));
  }
  if (!header_seen) throw core::InputError(fmt::format("{}: empty, expected a header line {{\"format\": \"{}\", ...}}", name, kFormatName));
  if (workload.pods.empty()) throw core::InputError(fmt::format("{}: no pods", name));
  return workload;
}

Workload read_native_workload(const std::filesystem::path& path, const cluster::GpuCatalog& catalog) {
  io::require_file(path, "native trace");
  std::ifstream in(path, std::ios::binary);
  return read_native_workload(in, path.string(), catalog);
}

void write_native_workload(std::ostream& out, const Workload& workload, const cluster::GpuCatalog& catalog,
                           const std::string& cluster) {
  if (!workload.jobs.empty()) {
    throw core::InputError(fmt::format("{}: Kubernetes Jobs cannot be converted; manifests are read directly", workload.source));
  }
  nlohmann::ordered_json header;
  header["format"] = kFormatName;
  header["version"] = kNativeFormatVersion;
  header["source"] = workload.source;
  if (!cluster.empty()) header["cluster"] = cluster;
  header["timed"] = workload.has_times;
  if (!workload.queues.empty()) header["queues"] = workload.queues;
  if (!workload.apps.empty()) header["apps"] = workload.apps;
  out << header.dump() << '\n';
  for (const cluster::PodSpec& pod : workload.pods) {
    if (pod.constraints && !only_node_selector(*pod.constraints)) {
      throw core::InputError(fmt::format("{}: pod {} has Kubernetes detail (containers, affinity, ...) the native format "
                                         "does not hold; manifests are read directly", workload.source, pod.name));
    }
    nlohmann::ordered_json line;
    line["name"] = pod.name;
    if (pod.cpu_milli != 0) line["cpu_milli"] = pod.cpu_milli;
    if (pod.memory_mib != 0) line["memory_mib"] = pod.memory_mib;
    if (pod.gpu_count != 0) {
      line["gpus"] = pod.gpu_count;
      if (pod.gpu_milli != cluster::kMilliPerGpu) line["gpu_milli"] = pod.gpu_milli;
      if (pod.gpu_demand_milli != 0) line["gpu_demand_milli"] = pod.gpu_demand_milli;
      if (!pod.allowed_models.any()) {
        auto& models = line["gpu_models"] = nlohmann::ordered_json::array();
        for (std::size_t id = 0; id < catalog.size(); ++id) {
          if (pod.allowed_models.allows(static_cast<cluster::GpuModelId>(id))) models.push_back(catalog.at(static_cast<cluster::GpuModelId>(id)).id);
        }
      }
    }
    if (pod.qos != cluster::Qos::kUnspecified) line["qos"] = qos_name(pod.qos);
    if (pod.priority != 0) line["priority"] = pod.priority;
    if (pod.phase != cluster::TracePhase::kUnknown) line["phase"] = phase_name(pod.phase);
    if (pod.creation_time) line["created_us"] = pod.creation_time->micros();
    if (pod.deletion_time) line["deleted_us"] = pod.deletion_time->micros();
    if (pod.duration) line["duration_us"] = pod.duration->micros();
    if (pod.gang != 0) line["gang"] = pod.gang;
    if (!workload.queues.empty()) line["queue"] = workload.queues.at(pod.queue);
    if (pod.app >= 0) line["app"] = workload.apps.at(static_cast<std::size_t>(pod.app));
    if (pod.max_per_node != 0) line["max_per_node"] = pod.max_per_node;
    if (pod.rdma_percent != 0) line["rdma_percent"] = pod.rdma_percent;
    if (pod.constraints) {
      auto& selector = line["node_selector"] = nlohmann::ordered_json::object();
      for (const auto& [key, value] : pod.constraints->node_selector) selector[key] = value;
    }
    out << line.dump() << '\n';
  }
}

}  // namespace gpusim::traces
