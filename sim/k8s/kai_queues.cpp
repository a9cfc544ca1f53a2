#include "sim/k8s/kai_queues.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "sim/core/status.hpp"
#include "traces/k8s/object_fields.hpp"
#include "traces/k8s/object_meta.hpp"
#include "traces/k8s/yaml_documents.hpp"
#include "traces/k8s_quantity.hpp"

namespace gpusim::k8s::kai {
namespace {

using traces::k8s::Fields;
using traces::k8s::Where;

constexpr std::string_view kApiVersion = "scheduling.run.ai/v2";
constexpr std::string_view kTraceQueuesAnnotation = "gpusim.io/trace-queues";
constexpr std::string_view kDefaultQueue = "default-queue";  // the podgrouper's default
// Far above any cluster (10^12 GPUs, millicores or megabytes), so that sums stay exact in a double.
constexpr double kMaxAmount = 1e12;

QueueResource queue_resource(const Fields& resources, const std::string& key) {
  QueueResource r;
  const auto f = resources.map(key);
  if (!f) return r;
  f->only({"quota", "overQuotaWeight", "limit"});
  const auto amount = [&](const char* field) {
    const double v = f->number(field).value_or(0.0);
    if (v != kUnlimited && (v < 0 || v > kMaxAmount)) {
      f->fail(field, fmt::format("'{}': KAI gives meaning to -1 (unlimited) and to amounts from 0 up, no other", v));
    }
    return v;
  };
  r.quota = amount("quota");
  r.limit = amount("limit");
  r.over_quota_weight = f->number("overQuotaWeight").value_or(0.0);
  if (r.over_quota_weight < 0 || r.over_quota_weight > kMaxAmount) {
    f->fail("overQuotaWeight", fmt::format("'{}': a weight is 0 (never over quota) or more", r.over_quota_weight));
  }
  return r;
}

std::optional<core::Time> min_runtime(const Fields& spec, const std::string& key) {
  const auto text = spec.string(key);
  if (!text) return std::nullopt;
  const auto d = traces::parse_go_duration(*text);
  if (!d) spec.fail(key, d.error);
  if (*d.value < core::Time::zero()) spec.fail(key, "a duration of 0 or more");
  return *d.value;
}

class Reader {
 public:
  Reader(const std::string& source, Queues& into) : source_(source), where_(source_), into_(into) {}

  void object(const YAML::Node& node, const std::string& at) {
    const Fields object(where_, node, at);
    const std::string api = object.required_string("apiVersion");
    const std::string kind = object.required_string("kind");
    if (api != kApiVersion) {
      object.fail("apiVersion", fmt::format("'{}': gpusim reads KAI's Queues as {}", traces::k8s::truncated(api), kApiVersion));
    }
    if (kind != "Queue") {
      object.fail("kind", fmt::format("'{}': gpusim reads KAI's Queues (PodGroups come from the trace's jobs)", traces::k8s::truncated(kind)));
    }
    object.only({"apiVersion", "kind", "metadata", "spec", "status"});
    const traces::k8s::Meta meta = traces::k8s::read_meta(object);
    Queue q;
    q.name = meta.name;
    q.file = source_;
    q.line = where_.line(object.required_map("metadata").get("name"));
    for (const Queue& other : into_.queues) {
      if (other.name == q.name) {
        object.required_map("metadata").fail("name", fmt::format("a second Queue named '{}' (the first: {}:{})", q.name, other.file, other.line));
      }
    }
    static constexpr std::string_view kKnown[] = {kTraceQueuesAnnotation};
    traces::k8s::check_gpusim_annotations(where_, meta.annotations, kKnown, "Queue");
    if (const traces::k8s::Entry* e = traces::k8s::find(meta.annotations, kTraceQueuesAnnotation)) {
      q.trace_queues = traces::k8s::comma_list(where_, *e, "queue name");
    }
    // The admission webhook's one rule (queue_validator.go): resources must be specified.
    if (!object.has("spec")) object.missing("spec");
    const Fields spec = object.required_map("spec");
    spec.only({"displayName", "parentQueue", "resources", "priority", "preemptMinRuntime", "reclaimMinRuntime"});
    if (!spec.has("resources")) spec.fail("resources", "resources must be specified (KAI's admission webhook)");
    q.display_name = spec.string("displayName").value_or("");
    q.parent = spec.string("parentQueue").value_or("");
    if (q.parent == q.name) spec.fail("parentQueue", "a queue cannot be its own parent");
    q.priority = static_cast<std::int32_t>(spec.integer("priority", traces::k8s::kInt32Min, traces::k8s::kInt32Max).value_or(100));
    const Fields resources = spec.required_map("resources");
    resources.only({"gpu", "cpu", "memory"});
    q.gpu = queue_resource(resources, "gpu");
    q.cpu = queue_resource(resources, "cpu");
    q.memory = queue_resource(resources, "memory");
    // KAI reads an omitted limit as 0, a hard cap (capacity_policy/max_allowed_check.go): worth saying
    // when the quota is above it (KAI's own docs' ml-team example is such a queue).
    for (const auto& [key, res] : {std::pair{"gpu", &q.gpu}, std::pair{"cpu", &q.cpu}, std::pair{"memory", &q.memory}}) {
      if (res->limit != kUnlimited && res->quota != kUnlimited && res->limit < res->quota) {
        into_.notes.push_back(fmt::format("Queue {}: {} limit {:g} is below its quota {:g} (an omitted limit is 0): KAI caps the queue at "
                                          "{:g}, so a job asking more {} than that never runs in it",
                                          q.name, key, res->limit, res->quota, res->limit, key));
      }
    }
    q.preempt_min_runtime = min_runtime(spec, "preemptMinRuntime");
    q.reclaim_min_runtime = min_runtime(spec, "reclaimMinRuntime");
    if (q.preempt_min_runtime || q.reclaim_min_runtime) {
      into_.notes.push_back(fmt::format("Queue {}: preemptMinRuntime and reclaimMinRuntime ignored: gpusim does not model KAI's minruntime "
                                        "plugin (as with KAI's default of 0, no victim is protected)",
                                        q.name));
    }
    if (object.has("status")) into_.notes.push_back(fmt::format("Queue {}: status ignored: the simulation computes it", q.name));
    into_.queues.push_back(std::move(q));
  }

 private:
  const std::string& source_;
  Where where_;
  Queues& into_;
};

bool is_kai_object(const YAML::Node& doc) {
  return doc.IsMap() && doc["apiVersion"] && doc["apiVersion"].IsScalar() && doc["apiVersion"].Scalar() == kApiVersion &&
         doc["kind"] && doc["kind"].IsScalar() && doc["kind"].Scalar() == "Queue";
}

bool is_list(const YAML::Node& doc) { return doc.IsMap() && doc["kind"] && doc["kind"].IsScalar() && doc["kind"].Scalar() == "List"; }

}  // namespace

bool is_kai_file(const YAML::Node& first_document) {
  try {
    if (is_list(first_document)) {
      const YAML::Node items = first_document["items"];
      return items && items.IsSequence() && items.size() > 0 && is_kai_object(items[0]);
    }
    return is_kai_object(first_document);
  } catch (const YAML::Exception&) {
    return false;
  }
}

void parse_kai_queues(const std::string& text, const std::string& source, Queues& into) {
  Reader reader(source, into);
  try {
    for (const YAML::Node& doc : traces::load_yaml_documents(text, source)) {
      if (!doc || doc.IsNull()) continue;
      if (is_list(doc)) {
        const Fields list(Where(source), doc, "");
        list.only({"apiVersion", "kind", "metadata", "items"});
        for (const auto& [node, path] : list.list("items")) reader.object(node, path);
      } else {
        reader.object(doc, "");
      }
    }
  } catch (const YAML::Exception& e) {
    throw core::InputError(fmt::format("{}:{}: yaml: {}", source, e.mark.line + 1, e.msg));
  }
}

void check_kai_parent_cycles(const Queues& queues) {
  std::map<std::string, const Queue*> by_name;
  for (const Queue& q : queues.queues) by_name.emplace(q.name, &q);
  for (const Queue& start : queues.queues) {
    std::set<std::string> path{start.name};
    for (const Queue* q = &start; !q->parent.empty();) {
      if (!path.insert(q->parent).second) {
        throw core::InputError(fmt::format("{}:{}: Queue {}: its parents form a cycle through '{}'", start.file, start.line, start.name, q->parent));
      }
      const auto it = by_name.find(q->parent);
      if (it == by_name.end()) break;  // a parent in another file, or none: check_kai_queues says
      q = it->second;
    }
  }
}

void check_kai_queues(const Queues& queues) {
  std::set<std::string> names;
  for (const Queue& q : queues.queues) names.insert(q.name);
  for (const Queue& q : queues.queues) {
    if (!q.parent.empty() && !names.contains(q.parent)) {
      throw core::InputError(fmt::format("{}:{}: Queue {}: spec.parentQueue '{}' names no Queue (KAI drops an orphan queue and its "
                                         "subtree, leaving their jobs pending)",
                                         q.file, q.line, q.name, q.parent));
    }
  }
  check_kai_parent_cycles(queues);
}

std::vector<std::uint32_t> leaves_of_trace_queues(const Queues& queues, const std::vector<std::string>& trace_queues) {
  const std::vector<std::string> names = trace_queues.empty() ? std::vector<std::string>{"default"} : trace_queues;
  const auto has_children = [&](const Queue& q) {
    return std::any_of(queues.queues.begin(), queues.queues.end(), [&](const Queue& c) { return c.parent == q.name; });
  };
  std::vector<std::uint32_t> out;
  for (const std::string& name : names) {
    const Queue* claimed = nullptr;
    for (const Queue& q : queues.queues) {
      const bool named = q.name == name && !trace_queues.empty();
      const bool listed = std::find(q.trace_queues.begin(), q.trace_queues.end(), name) != q.trace_queues.end();
      if (!named && !listed) continue;
      if (claimed != nullptr && claimed != &q) {
        throw core::InputError(fmt::format("{}:{}: Queue {}: the trace's queue '{}' is claimed by Queue {} too ({}:{})", q.file, q.line,
                                           q.name, name, claimed->name, claimed->file, claimed->line));
      }
      claimed = &q;
    }
    if (claimed == nullptr) {
      const auto fallback = std::find_if(queues.queues.begin(), queues.queues.end(), [](const Queue& q) { return q.name == kDefaultQueue; });
      if (fallback == queues.queues.end()) {
        throw core::InputError(fmt::format("the trace's queue '{}' has no KAI Queue: name a Queue after it, list it in a Queue's "
                                           "gpusim.io/trace-queues annotation, or define {} (KAI would leave its jobs pending: "
                                           "QueueDoesNotExist)",
                                           name, kDefaultQueue));
      }
      claimed = &*fallback;
    }
    if (has_children(*claimed)) {
      throw core::InputError(fmt::format("{}:{}: Queue {}: it has child queues, and only leaf queues schedule jobs (the trace's queue '{}' "
                                         "submits to it)",
                                         claimed->file, claimed->line, claimed->name, name));
    }
    out.push_back(static_cast<std::uint32_t>(claimed - queues.queues.data()));
  }
  return out;
}

}  // namespace gpusim::k8s::kai
