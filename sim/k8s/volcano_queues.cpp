#include "sim/k8s/volcano_queues.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>

#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "sim/io/yaml_fields.hpp"
#include "traces/k8s/yaml_documents.hpp"
#include "traces/k8s_quantity.hpp"

namespace gpusim::k8s {
namespace {

constexpr const char* kApiVersion = "scheduling.volcano.sh/v1beta1";
constexpr const char* kGpu = "nvidia.com/gpu";
// QueueSpec.Weight's CRD bounds (kubebuilder Minimum=1, Maximum=65535).
constexpr std::int64_t kMaxWeight = 65535;
// More GPUs than any cluster gpusim simulates; keeps sums far from overflow.
constexpr std::int64_t kMaxGpus = 1'000'000;

std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

// No key twice: yaml-cpp keeps the first of repeated keys silently; Kubernetes' strict decoding
// refuses them.
void keys_once(const io::YamlFields& r, const YAML::Node& map, const std::string& field) {
  std::map<std::string, int> seen;
  for (const auto& entry : map) {
    if (!entry.first.IsScalar()) r.fail(entry.first, field.empty() ? "object" : field, "expected a text key");
    const std::string key = entry.first.Scalar();
    const auto [it, fresh] = seen.emplace(key, entry.first.Mark().line + 1);
    if (!fresh) r.fail(entry.first, join(field, key), fmt::format("given twice (first on line {})", it->second));
  }
}

// io::YamlFields::only, each key once.
void only_once(const io::YamlFields& r, const YAML::Node& map, const std::string& field,
               std::initializer_list<const char*> known) {
  if (!map.IsMap()) r.fail(map, field.empty() ? "object" : field, "expected a mapping");
  keys_once(r, map, field);
  r.only(map, field, known);
}

// Kubernetes' object-name rule for Queues (a DNS-1123 subdomain, as QueueSpec.Parent's pattern):
// lower-case letters, digits, '-' and '.', starting and ending with a letter or digit.
bool is_dns_subdomain(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  const auto alnum = [](char c) { return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)); };
  if (!alnum(name.front()) || !alnum(name.back())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return alnum(c) || c == '-' || c == '.'; });
}

// One amount of a ResourceList: GPUs exactly (thousandths), anything else as a number to compare.
struct Amount {
  std::string text;
  long double value = 0;
  std::optional<std::int64_t> gpu_milli;
};
using Resources = std::map<std::string, Amount>;  // ordered: messages and notes are deterministic

long double approximate(const traces::Quantity& q) {
  if (q.is_zero()) return 0;
  // Digits beyond long double's precision do not change a comparison that matters here.
  const std::string head = q.digits.substr(0, 30);
  const long double mantissa = std::stold(head);
  const auto dropped = static_cast<long double>(q.digits.size() - head.size());
  return mantissa * std::pow(10.0L, static_cast<long double>(q.exp10) + dropped) * std::ldexp(1.0L, q.exp2);
}

Resources read_resources(const io::YamlFields& r, const YAML::Node& list, const std::string& field) {
  Resources out;
  if (!list || list.IsNull()) return out;
  if (!list.IsMap()) r.fail(list, field, "expected a mapping from resource names to quantities (e.g. nvidia.com/gpu: 8)");
  keys_once(r, list, field);  // any resource name may appear
  for (const auto& entry : list) {
    const std::string name = entry.first.Scalar();
    const std::string path = field + "." + name;
    if (name.empty()) r.fail(entry.first, field, "empty resource name");
    Amount amount;
    amount.text = r.text(entry.second, path);
    if (name == kGpu) {
      // Extended resources are whole numbers (the webhook's ValidateResourceQuantityValue).
      const auto count = traces::whole_count(amount.text, kMaxGpus);
      if (!count) r.fail(entry.second, path, count.error);
      amount.gpu_milli = *count.value * 1000;
      amount.value = static_cast<long double>(*count.value);
    } else {
      const auto q = traces::parse_quantity(amount.text);
      if (!q) r.fail(entry.second, path, q.error);
      amount.value = approximate(*q.value);
    }
    out.emplace(name, amount);
  }
  return out;
}

// Where each ignored resource amount was given, by resource name, for one note per resource.
using Ignored = std::map<std::string, std::vector<std::string>>;

void collect_ignored(const Resources& resources, const std::string& queue, const std::string& field, Ignored& ignored) {
  for (const auto& [name, amount] : resources) {
    if (name != kGpu) ignored[name].push_back(fmt::format("{} {}", queue, field));
  }
}

VolcanoQueue read_queue(const io::YamlFields& r, const YAML::Node& object, const std::string& at, Ignored& ignored,
                        std::vector<std::string>& notes) {
  only_once(r, object, at, {"apiVersion", "kind", "metadata", "spec", "status"});
  const YAML::Node api = object["apiVersion"];
  if (!api) r.fail(object, join(at, "apiVersion"), fmt::format("missing: a Queue's is {}", kApiVersion));
  if (r.text(api, join(at, "apiVersion")) != kApiVersion) {
    r.fail(api, join(at, "apiVersion"), fmt::format("'{}': Volcano serves Queues as {}", api.Scalar(), kApiVersion));
  }
  const YAML::Node meta = object["metadata"];
  if (!meta) r.fail(object, join(at, "metadata"), "missing: a Queue needs metadata.name");
  // ObjectMeta's fields: none but the name matters to scheduling.
  only_once(r, meta, join(at, "metadata"),
            {"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
             "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers",
             "managedFields"});
  const YAML::Node name_node = meta["name"];
  if (!name_node) r.fail(meta, join(at, "metadata.name"), "missing");
  VolcanoQueue queue;
  queue.name = r.text(name_node, join(at, "metadata.name"));
  queue.line = name_node.Mark().line + 1;
  if (!is_dns_subdomain(queue.name)) {
    r.fail(name_node, join(at, "metadata.name"),
           fmt::format("'{}' is not a Kubernetes object name (lower-case letters, digits, '-' and '.', starting and "
                       "ending with a letter or digit, at most 253)", queue.name));
  }
  if (const YAML::Node annotations = meta["annotations"]; annotations && annotations.IsMap()) {
    for (const auto& entry : annotations) {
      const std::string key = entry.first.Scalar();
      if (key == "volcano.sh/hierarchy" || key == "volcano.sh/hierarchy-weights") {
        notes.push_back(fmt::format("queue {}: annotation {} ignored: it serves drf's enableHierarchy (hierarchical DRF), "
                                    "which gpusim does not model", queue.name, key));
      }
    }
  }
  if (const YAML::Node status = object["status"]; status && status.IsMap() && status["state"] && status["state"].IsScalar() &&
                                                  status["state"].Scalar() != "Open") {
    notes.push_back(fmt::format("queue {}: status.state {} ignored: gpusim schedules every queue as Open", queue.name,
                                status["state"].Scalar()));
  }
  const YAML::Node spec = object["spec"];
  if (!spec || spec.IsNull()) return queue;  // every field defaulted: weight 1, reclaimable
  const std::string s = join(at, "spec");
  only_once(r, spec, s,
            {"weight", "capability", "reclaimable", "extendClusters", "guarantee", "affinity", "type", "parent", "deserved",
             "priority", "dequeueStrategy"});
  if (const YAML::Node w = spec["weight"]) {
    // The mutating webhook turns 0 (or an absent weight) into 1.
    queue.quota.weight = std::max<std::int64_t>(1, r.integer(w, s + ".weight", 0, kMaxWeight));
  }
  if (const YAML::Node reclaimable = spec["reclaimable"]) queue.quota.reclaimable = r.boolean(reclaimable, s + ".reclaimable");
  const Resources capability = read_resources(r, spec["capability"], s + ".capability");
  const Resources deserved = read_resources(r, spec["deserved"], s + ".deserved");
  Resources guarantee;
  if (const YAML::Node g = spec["guarantee"]; g && !g.IsNull()) {
    only_once(r, g, s + ".guarantee", {"resource"});
    guarantee = read_resources(r, g["resource"], s + ".guarantee.resource");
  }
  // The validating webhook (validateResourceQuantityOfQueue), resource by resource.
  for (const auto& [name, amount] : guarantee) {
    const auto it = deserved.find(name);
    const YAML::Node where = spec["guarantee"]["resource"][name];
    if (it == deserved.end()) {
      r.fail(where, s + ".deserved." + name,
             fmt::format("missing: Volcano requires deserved[{}] >= guarantee[{}] = {}", name, name, amount.text));
    }
    if (it->second.value < amount.value) {
      r.fail(spec["deserved"][name], s + ".deserved." + name,
             fmt::format("{} is less than guarantee.resource[{}] = {} (Volcano requires deserved >= guarantee)",
                         it->second.text, name, amount.text));
    }
  }
  for (const auto& [name, amount] : deserved) {
    const auto it = capability.find(name);
    if (it != capability.end() && amount.value > it->second.value) {
      r.fail(spec["deserved"][name], s + ".deserved." + name,
             fmt::format("{} is more than capability[{}] = {} (Volcano requires deserved <= capability)", amount.text,
                         name, it->second.text));
    }
  }
  const auto gpus = [](const Resources& list) -> std::optional<std::int64_t> {
    const auto it = list.find(kGpu);
    return it == list.end() ? std::nullopt : it->second.gpu_milli;
  };
  queue.quota.capability_milli = gpus(capability);
  queue.quota.deserved_milli = gpus(deserved);
  queue.quota.guarantee_milli = gpus(guarantee).value_or(0);
  collect_ignored(capability, queue.name, "capability", ignored);
  collect_ignored(deserved, queue.name, "deserved", ignored);
  collect_ignored(guarantee, queue.name, "guarantee", ignored);
  if (const YAML::Node parent = spec["parent"]) {
    const std::string p = r.text(parent, s + ".parent");
    if (!p.empty() && p != "root") {
      r.fail(parent, s + ".parent",
             fmt::format("'{}': hierarchical queues (capacity's enableHierarchy) are not modelled; gpusim's queues are "
                         "flat, children of root", p));
    }
  }
  if (const YAML::Node priority = spec["priority"]) {
    if (r.integer(priority, s + ".priority", 0, 2147483647) != 0) {
      r.fail(priority, s + ".priority",
             "queue priorities are not modelled: proportion and capacity serve a queue of higher priority first and "
             "reclaim from lower ones; gpusim orders queues by their share only (give 0 or leave it out)");
    }
  }
  if (const YAML::Node strategy = spec["dequeueStrategy"]) {
    const std::string v = r.text(strategy, s + ".dequeueStrategy");
    if (v == "fifo") {
      r.fail(strategy, s + ".dequeueStrategy",
             "fifo (a job that does not fit stops its queue) is not modelled: gpusim's queue walk tries the jobs behind "
             "it, as traverse (the default) does");
    }
    if (v != "traverse") r.fail(strategy, s + ".dequeueStrategy", fmt::format("'{}' is not fifo or traverse", v));
  }
  if (const YAML::Node affinity = spec["affinity"]; affinity && !affinity.IsNull()) {
    r.fail(affinity, s + ".affinity",
           "queue affinity (nodeGroupAffinity, enforced by the nodegroup plugin) is not modelled");
  }
  if (const YAML::Node clusters = spec["extendClusters"]; clusters && !clusters.IsNull()) {
    notes.push_back(fmt::format("queue {}: spec.extendClusters ignored: it serves multi-cluster dispatch, not the "
                                "scheduler of one cluster", queue.name));
  }
  if (const YAML::Node type = spec["type"]) r.text(type, s + ".type");  // a label for people; Volcano's scheduler ignores it
  return queue;
}

}  // namespace

bool is_volcano_queue_list(const YAML::Node& doc) {
  try {
    const auto is_queue = [](const YAML::Node& object) {
      if (!object.IsMap()) return false;
      const YAML::Node kind = object["kind"];
      const YAML::Node api = object["apiVersion"];
      return kind && kind.IsScalar() && kind.Scalar() == "Queue" && api && api.IsScalar() &&
             api.Scalar().starts_with("scheduling.volcano.sh/");
    };
    if (!doc || !doc.IsMap()) return false;
    if (is_queue(doc)) return true;
    const YAML::Node kind = doc["kind"];
    const YAML::Node items = doc["items"];
    return kind && kind.IsScalar() && (kind.Scalar() == "List" || kind.Scalar() == "QueueList") && items &&
           items.IsSequence() && items.size() > 0 && is_queue(items[0]);
  } catch (const YAML::Exception&) {
    return false;
  }
}

VolcanoQueueList load_volcano_queue_list(const std::filesystem::path& path) {
  return parse_volcano_queue_list(io::read_file(path, "Volcano Queue file"), path.string());
}

VolcanoQueueList parse_volcano_queue_list(const std::string& text, const std::string& source) {
  const io::YamlFields r(source);
  VolcanoQueueList list;
  list.file = source;
  Ignored ignored;
  try {
    const std::vector<YAML::Node> docs = traces::load_yaml_documents(text, source);
    std::map<std::string, int> lines;
    const auto add = [&](const YAML::Node& object, const std::string& at) {
      VolcanoQueue queue = read_queue(r, object, at, ignored, list.notes);
      const auto [it, fresh] = lines.emplace(queue.name, queue.line);
      if (!fresh) {
        r.fail(object["metadata"]["name"], join(at, "metadata.name"),
               fmt::format("queue '{}' is given twice (first on line {})", queue.name, it->second));
      }
      list.queues.push_back(std::move(queue));
    };
    for (const YAML::Node& doc : docs) {
      if (!doc || doc.IsNull()) continue;  // an empty document (a trailing '---')
      if (!doc.IsMap()) r.fail(doc, "object", "expected a mapping (a Queue, or a List of Queues)");
      const YAML::Node kind = doc["kind"];
      if (!kind) r.fail(doc, "kind", "missing: expected Queue (scheduling.volcano.sh/v1beta1) or List");
      const std::string k = r.text(kind, "kind");
      if (k == "Queue") {
        add(doc, "");
      } else if (k == "List" || k == "QueueList") {
        only_once(r, doc, "", {"apiVersion", "kind", "metadata", "items"});
        const YAML::Node items = doc["items"];
        if (!items || items.IsNull()) continue;
        if (!items.IsSequence()) r.fail(items, "items", "expected a list of Queues");
        for (std::size_t i = 0; i < items.size(); ++i) {
          const std::string at = fmt::format("items[{}]", i);
          const YAML::Node item = items[i];
          if (!item.IsMap()) r.fail(item, at, "expected a Queue (a mapping)");
          if (!item["kind"] || r.text(item["kind"], at + ".kind") != "Queue") {
            r.fail(item["kind"] ? item["kind"] : item, at + ".kind", "expected Queue");
          }
          add(item, at);
        }
      } else {
        r.fail(kind, "kind",
               fmt::format("'{}': a Volcano Queue file holds Queues (scheduling.volcano.sh/v1beta1), or Lists of them", k));
      }
    }
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(source, text, e));
  }
  if (list.queues.empty()) throw core::InputError(fmt::format("{}: no Queue objects", source));
  for (const auto& [resource, where] : ignored) {
    const std::size_t shown = std::min<std::size_t>(where.size(), 4);
    list.notes.push_back(fmt::format("{} amounts ignored: gpusim's queue quotas count {} only ({}{})", resource, kGpu,
                                     fmt::join(where.begin(), where.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
                                     shown < where.size() ? fmt::format(" and {} more", where.size() - shown) : ""));
  }
  return list;
}

QueueQuotas volcano_queue_quotas(const VolcanoQueueList& list, const std::vector<std::string>& workload_queues) {
  QueueQuotas quotas;
  quotas.file = list.file;
  std::map<std::string, std::size_t> index;
  for (std::size_t q = 0; q < list.queues.size(); ++q) index.emplace(list.queues[q].name, q);
  std::vector<std::uint8_t> used(list.queues.size(), 0);
  // A workload without queues runs in Volcano's queue "default".
  const std::vector<std::string> names = workload_queues.empty() ? std::vector<std::string>{"default"} : workload_queues;
  std::vector<std::string> missing;
  for (const std::string& name : names) {
    const auto it = index.find(name);
    if (it != index.end()) {
      quotas.queues.push_back(list.queues[it->second].quota);
      used[it->second] = 1;
    } else if (name == "default") {
      quotas.queues.push_back(QueueQuota{});  // Volcano creates it: weight 1, reclaimable, no limits
    } else {
      missing.push_back(name);
    }
  }
  if (!missing.empty()) {
    const std::size_t shown = std::min<std::size_t>(missing.size(), 8);
    throw core::InputError(fmt::format(
        "{}: the workload's queue{} {}{} {} no Queue object (Volcano leaves the jobs of a queue that does not exist "
        "pending)",
        list.file, missing.size() == 1 ? "" : "s", fmt::join(missing.begin(), missing.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
        shown < missing.size() ? ", ..." : "", missing.size() == 1 ? "has" : "have"));
  }
  for (std::size_t q = 0; q < list.queues.size(); ++q) {
    if (!used[q]) quotas.queues.push_back(list.queues[q].quota);
  }
  return quotas;
}

}  // namespace gpusim::k8s
