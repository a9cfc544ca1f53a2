#include "sim/k8s/queue_quotas_reader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "sim/io/yaml_fields.hpp"

namespace gpusim::k8s {
namespace {

constexpr double kMaxGpus = 1e6;

double gpus(std::int64_t milli) { return static_cast<double>(milli) / 1000; }

std::int64_t gpu_milli(const io::YamlFields& r, const YAML::Node& node, const std::string& field) {
  const double gpus = r.number(node, field, 0, kMaxGpus);
  const std::int64_t milli = std::llround(gpus * 1000);
  // Thousandths of a GPU are the finest unit: more decimals would be rounded away silently.
  if (std::abs(gpus * 1000 - static_cast<double>(milli)) > 1e-6) {
    r.fail(node, field, fmt::format("'{}' has more than three decimals (GPUs count in thousandths)", r.text(node, field)));
  }
  return milli;
}

QueueQuota read_quota(const io::YamlFields& r, const YAML::Node& map, const std::string& field, QueueQuota q) {
  r.only(map, field, {"deserved", "guarantee", "capability", "weight", "reclaimable"});
  if (map["weight"]) q.weight = r.integer(map["weight"], field + ".weight", 1, 1'000'000);
  if (map["deserved"]) q.deserved_milli = gpu_milli(r, map["deserved"], field + ".deserved");
  if (map["guarantee"]) q.guarantee_milli = gpu_milli(r, map["guarantee"], field + ".guarantee");
  if (map["capability"]) q.capability_milli = gpu_milli(r, map["capability"], field + ".capability");
  if (map["reclaimable"]) q.reclaimable = r.boolean(map["reclaimable"], field + ".reclaimable");
  // As Volcano's queue admission checks: guarantee <= deserved <= capability.
  if (q.capability_milli && q.guarantee_milli > *q.capability_milli) {
    r.fail(map, field + ".guarantee", fmt::format("{} GPUs is more than the capability, {}", gpus(q.guarantee_milli),
                                                  gpus(*q.capability_milli)));
  }
  if (q.deserved_milli && q.capability_milli && *q.deserved_milli > *q.capability_milli) {
    r.fail(map, field + ".deserved", fmt::format("{} GPUs is more than the capability, {}", gpus(*q.deserved_milli),
                                                 gpus(*q.capability_milli)));
  }
  if (q.deserved_milli && q.guarantee_milli > *q.deserved_milli) {
    r.fail(map, field + ".guarantee", fmt::format("{} GPUs is more than the deserved GPUs, {}", gpus(q.guarantee_milli),
                                                  gpus(*q.deserved_milli)));
  }
  return q;
}

}  // namespace

QueueQuotas default_queue_quotas(std::size_t queues) {
  QueueQuotas quotas;
  quotas.queues.assign(std::max<std::size_t>(1, queues), QueueQuota{});
  return quotas;
}

QueueQuotas load_queue_quotas(const std::filesystem::path& path, const std::vector<std::string>& queue_names) {
  return parse_queue_quotas(io::read_file(path, "--queue-quotas"), path.string(), queue_names);
}

QueueQuotas parse_queue_quotas(const std::string& text, const std::string& source, const std::vector<std::string>& queue_names) {
  const io::YamlFields r(source);
  if (queue_names.empty()) {
    throw core::InputError(fmt::format("{}: the workload has no queues: quotas need a trace with queues, "
                                       "such as Philly's virtual clusters", source));
  }
  QueueQuotas quotas;
  quotas.file = source;
  try {
    const YAML::Node doc = YAML::Load(text);
    if (!doc || doc.IsNull()) throw core::InputError(fmt::format("{}: empty file: expected a 'queues' mapping", source));
    r.only(doc, "", {"queues", "default"});
    QueueQuota fallback;
    if (const YAML::Node d = doc["default"]) fallback = read_quota(r, d, "default", fallback);
    quotas.queues.assign(queue_names.size(), fallback);
    const YAML::Node list = doc["queues"];
    if (!list) r.fail(doc, "queues", "missing: a mapping from queue names to their quotas");
    if (!list.IsMap()) r.fail(list, "queues", "expected a mapping from queue names to their quotas");
    std::map<std::string, std::size_t> index;
    for (std::size_t q = 0; q < queue_names.size(); ++q) index.emplace(queue_names[q], q);
    std::map<std::string, int> seen;
    for (const auto& entry : list) {
      const std::string name = r.text(entry.first, "queues");
      const auto it = index.find(name);
      if (it == index.end()) {
        const std::size_t shown = std::min<std::size_t>(queue_names.size(), 8);
        r.fail(entry.first, "queues." + name,
               fmt::format("the workload has no queue '{}' (its {} queues: {}{})", name, queue_names.size(),
                           fmt::join(queue_names.begin(), queue_names.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
                           shown < queue_names.size() ? ", ..." : ""));
      }
      if (!seen.emplace(name, entry.first.Mark().line + 1).second) {
        r.fail(entry.first, "queues." + name, fmt::format("named twice (first on line {})", seen[name]));
      }
      quotas.queues[it->second] = read_quota(r, entry.second, "queues." + name, fallback);
    }
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(source, text, e));
  }
  return quotas;
}

}  // namespace gpusim::k8s
