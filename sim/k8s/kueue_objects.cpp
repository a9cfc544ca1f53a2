#include "sim/k8s/kueue_objects.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "sim/core/status.hpp"
#include "traces/k8s/labels.hpp"
#include "traces/k8s/object_fields.hpp"
#include "traces/k8s/object_meta.hpp"
#include "traces/k8s/pod_placement.hpp"
#include "traces/k8s/qualified_name.hpp"
#include "traces/k8s/yaml_documents.hpp"
#include "traces/k8s_quantity.hpp"

namespace gpusim::k8s::kueue {
namespace {

using traces::k8s::Fields;
using traces::k8s::Where;

constexpr std::string_view kGroup = "kueue.x-k8s.io/";
constexpr std::string_view kTraceQueuesAnnotation = "gpusim.io/trace-queues";
constexpr std::string_view kConfigGroup = "config.kueue.x-k8s.io/";
// Far above any cluster's quota (10^15 bytes is a petabyte), and sums of thousands of queues stay
// within int64.
constexpr std::int64_t kMaxAmount = 1'000'000'000'000'000;
// The CRDs' and webhooks' bounds (clusterqueue_types.go, resourceflavor_types.go).
constexpr std::size_t kMaxResourceGroups = 16;
constexpr std::size_t kMaxPerGroup = 64;
constexpr std::size_t kMaxFlavorEntries = 8;  // nodeLabels, nodeTaints, tolerations

enum class Version : std::uint8_t { kV1alpha1, kV1beta1, kV1beta2 };

// Every key of `f` must be one of `known`.
void only(const Fields& f, std::initializer_list<std::string_view> known) {
  for (const auto& entry : f.node()) {
    const std::string& key = entry.first.Scalar();
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      f.where().fail(entry.first, f.path(key), fmt::format("unknown field (known: {})", fmt::join(known, ", ")));
    }
  }
}

// One of a field's allowed values, or `fallback` when it is absent.
template <typename E>
E choice(const Fields& f, const std::string& key, std::initializer_list<std::pair<std::string_view, E>> options, E fallback) {
  const auto text = f.string(key);
  if (!text) return fallback;
  for (const auto& [name, value] : options) {
    if (*text == name) return value;
  }
  std::vector<std::string_view> names;
  for (const auto& option : options) names.push_back(option.first);
  f.fail(key, fmt::format("'{}' is not one of {}", traces::k8s::truncated(*text), fmt::join(names, ", ")));
}

// A quantity as Kueue holds it: cpu in millicores, anything else in whole units, rounded up.
std::int64_t amount(const Fields& f, const std::string& key, const std::string& resource) {
  const std::string text = traces::k8s::quantity_text(f, key);
  const auto value = resource == "cpu" ? traces::cpu_millicores(text) : traces::units_rounded_up(text, kMaxAmount);
  if (!value) f.fail(key, value.error);
  return *value.value;
}

// fairSharing.weight: a quantity, default 1, at least 0; a positive weight must be above 10^-9.
double fair_sharing_weight(const Fields& spec) {
  const auto fair = spec.map("fairSharing");
  if (!fair) return 1.0;
  only(*fair, {"weight"});
  if (!fair->has("weight")) return 1.0;
  const std::string text = traces::k8s::quantity_text(*fair, "weight");
  const auto q = traces::parse_quantity(text);
  if (!q) fair->fail("weight", q.error);
  if (q.value->is_zero()) return 0.0;
  const std::string head = q.value->digits.substr(0, 18);
  const auto dropped = static_cast<double>(q.value->digits.size() - head.size());
  const double weight = std::stod(head) * std::pow(10.0, static_cast<double>(q.value->exp10) + dropped) *
                        std::ldexp(1.0, q.value->exp2);
  if (weight <= 1e-9) fair->fail("weight", "when not 0, weight must be > 10e-9 (Kueue's webhook)");
  if (!std::isfinite(weight) || weight > 1e9) fair->fail("weight", fmt::format("'{}' is out of range", text));
  return weight;
}

StopPolicy stop_policy(const Fields& spec) {
  return choice<StopPolicy>(spec, "stopPolicy",
                            {{"None", StopPolicy::kNone}, {"Hold", StopPolicy::kHold}, {"HoldAndDrain", StopPolicy::kHoldAndDrain}},
                            StopPolicy::kNone);
}

// The Cohort a field names ("" when absent), which must be an object name.
std::string cohort_reference(const Fields& spec, const char* key) {
  std::string name = spec.string(key).value_or("");
  if (!name.empty() && !traces::k8s::dns_subdomain(name)) {
    spec.fail(key, fmt::format("'{}' is not a Cohort name", traces::k8s::truncated(name)));
  }
  return name;
}

// A qualified name (resource names, label keys), or an error at the field.
void check_qualified(const Fields& f, const std::string& key, const std::string& value) {
  if (const auto why = traces::k8s::qualified_name_error(value)) f.fail(key, fmt::format("'{}': {}", value, *why));
}

// resourceGroups of a ClusterQueue or a Cohort. Limits need a cohort (a ClusterQueue's) or a parent
// (a Cohort's); a ClusterQueue may lend at most its nominal quota (validateLendingLimit).
std::vector<ResourceGroup> read_resource_groups(const Fields& spec, bool may_have_limits, bool is_cluster_queue) {
  const char* limits_need = is_cluster_queue ? "must be nil when cohort is empty" : "must be nil when parent is empty";
  std::vector<ResourceGroup> groups;
  std::set<std::string> resources_seen;
  std::set<std::string> flavors_seen;
  const auto items = spec.list("resourceGroups");
  if (items.size() > kMaxResourceGroups) spec.fail("resourceGroups", fmt::format("at most {} resource groups", kMaxResourceGroups));
  for (const auto& [node, path] : items) {
    const Fields g(spec.where(), node, path);
    only(g, {"coveredResources", "flavors"});
    ResourceGroup group;
    const auto covered = g.list("coveredResources");
    if (covered.empty() || covered.size() > kMaxPerGroup) g.fail("coveredResources", fmt::format("1 to {} resource names", kMaxPerGroup));
    for (const auto& [name_node, name_path] : covered) {
      if (!name_node.IsScalar()) spec.where().fail(name_node, name_path, "expected a resource name");
      const std::string name = name_node.Scalar();
      if (const auto why = traces::k8s::qualified_name_error(name)) spec.where().fail(name_node, name_path, fmt::format("'{}': {}", name, *why));
      if (!resources_seen.insert(name).second) spec.where().fail(name_node, name_path, fmt::format("'{}' is covered by another group too (Duplicate)", name));
      group.covered_resources.push_back(name);
    }
    const auto flavors = g.list("flavors");
    if (flavors.empty() || flavors.size() > kMaxPerGroup) g.fail("flavors", fmt::format("1 to {} flavors", kMaxPerGroup));
    for (const auto& [flavor_node, flavor_path] : flavors) {
      const Fields fl(spec.where(), flavor_node, flavor_path);
      only(fl, {"name", "resources"});
      FlavorQuotas quotas;
      quotas.flavor = fl.required_string("name");
      if (!traces::k8s::dns_subdomain(quotas.flavor)) fl.fail("name", fmt::format("'{}' is not a ResourceFlavor name", quotas.flavor));
      if (!flavors_seen.insert(quotas.flavor).second) fl.fail("name", fmt::format("flavor '{}' is listed twice (Duplicate)", quotas.flavor));
      const auto resources = fl.list("resources");
      if (resources.size() != group.covered_resources.size()) {
        fl.fail("resources", fmt::format("must list the {} covered resources ({}), in that order", group.covered_resources.size(),
                                         fmt::join(group.covered_resources, ", ")));
      }
      for (std::size_t i = 0; i < resources.size(); ++i) {
        const Fields r(spec.where(), resources[i].first, resources[i].second);
        only(r, {"name", "nominalQuota", "borrowingLimit", "lendingLimit"});
        ResourceQuota quota;
        quota.resource = r.required_string("name");
        if (quota.resource != group.covered_resources[i]) {
          r.fail("name", fmt::format("'{}' must match the name in coveredResources: {}", quota.resource, group.covered_resources[i]));
        }
        if (!r.has("nominalQuota")) r.missing("nominalQuota");
        quota.nominal = amount(r, "nominalQuota", quota.resource);
        if (r.has("borrowingLimit")) {
          if (!may_have_limits) r.fail("borrowingLimit", limits_need);
          quota.borrowing_limit = amount(r, "borrowingLimit", quota.resource);
        }
        if (r.has("lendingLimit")) {
          if (!may_have_limits) r.fail("lendingLimit", limits_need);
          quota.lending_limit = amount(r, "lendingLimit", quota.resource);
          if (is_cluster_queue && *quota.lending_limit > quota.nominal) r.fail("lendingLimit", "must be less than or equal to the nominalQuota");
        }
        quotas.resources.push_back(std::move(quota));
      }
      group.flavors.push_back(std::move(quotas));
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

LabelSelector read_label_selector(const Fields& selector) {
  only(selector, {"matchLabels", "matchExpressions"});
  LabelSelector out;
  for (const auto& e : traces::k8s::string_map(selector, "matchLabels")) out.match_labels.emplace_back(e.key, e.value);
  for (const auto& [node, path] : selector.list("matchExpressions")) {
    const Fields m(selector.where(), node, path);
    only(m, {"key", "operator", "values"});
    cluster::SelectorRequirement req;
    req.key = m.required_string("key");
    check_qualified(m, "key", req.key);
    req.op = choice<cluster::SelectorOperator>(m, "operator",
                                               {{"In", cluster::SelectorOperator::kIn},
                                                {"NotIn", cluster::SelectorOperator::kNotIn},
                                                {"Exists", cluster::SelectorOperator::kExists},
                                                {"DoesNotExist", cluster::SelectorOperator::kDoesNotExist}},
                                               cluster::SelectorOperator::kIn);
    if (!m.has("operator")) m.missing("operator");
    for (const auto& [value_node, value_path] : m.list("values")) {
      if (!value_node.IsScalar()) m.where().fail(value_node, value_path, "expected a string");
      req.values.push_back(value_node.Scalar());
    }
    const bool set_op = req.op == cluster::SelectorOperator::kIn || req.op == cluster::SelectorOperator::kNotIn;
    if (set_op && req.values.empty()) m.fail("values", "must be non-empty for operators In and NotIn");
    if (!set_op && !req.values.empty()) m.fail("values", "must be empty for operators Exists and DoesNotExist");
    out.match_expressions.push_back(std::move(req));
  }
  return out;
}

PreemptionPolicy read_preemption(const Fields& spec) {
  PreemptionPolicy out;
  const auto p = spec.map("preemption");
  if (!p) return out;
  only(*p, {"withinClusterQueue", "reclaimWithinCohort", "borrowWithinCohort"});
  out.within_cluster_queue = choice<WithinClusterQueue>(
      *p, "withinClusterQueue",
      {{"Never", WithinClusterQueue::kNever}, {"LowerPriority", WithinClusterQueue::kLowerPriority},
       {"LowerOrNewerEqualPriority", WithinClusterQueue::kLowerOrNewerEqualPriority}},
      WithinClusterQueue::kNever);
  out.reclaim_within_cohort = choice<ReclaimWithinCohort>(
      *p, "reclaimWithinCohort",
      {{"Never", ReclaimWithinCohort::kNever}, {"LowerPriority", ReclaimWithinCohort::kLowerPriority}, {"Any", ReclaimWithinCohort::kAny}},
      ReclaimWithinCohort::kNever);
  if (const auto b = p->map("borrowWithinCohort")) {
    only(*b, {"policy", "maxPriorityThreshold"});
    out.borrow_within_cohort = choice<BorrowWithinCohort>(
        *b, "policy", {{"Never", BorrowWithinCohort::kNever}, {"LowerPriority", BorrowWithinCohort::kLowerPriority}},
        BorrowWithinCohort::kNever);
    if (const auto t = b->integer("maxPriorityThreshold", traces::k8s::kInt32Min, traces::k8s::kInt32Max)) {
      out.max_priority_threshold = static_cast<std::int32_t>(*t);
    }
    if (out.reclaim_within_cohort == ReclaimWithinCohort::kNever && out.borrow_within_cohort != BorrowWithinCohort::kNever) {
      b->fail("policy", "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never (Kueue refuses the pair)");
    }
  }
  return out;
}

FlavorFungibility read_fungibility(const Fields& spec, Version version) {
  FlavorFungibility out;
  const auto f = spec.map("flavorFungibility");
  if (!f) return out;
  only(*f, {"whenCanBorrow", "whenCanPreempt", "preference"});
  const bool old_names = version == Version::kV1beta1;  // v1beta1 also takes Borrow and Preempt (MayStopSearch)
  const auto policy = [&](const char* key, std::string_view old_name, FungibilityPolicy fallback) {
    if (old_names && f->string(key) == std::string(old_name)) return FungibilityPolicy::kMayStopSearch;
    return choice<FungibilityPolicy>(*f, key, {{"MayStopSearch", FungibilityPolicy::kMayStopSearch}, {"TryNextFlavor", FungibilityPolicy::kTryNextFlavor}},
                                     fallback);
  };
  out.when_can_borrow = policy("whenCanBorrow", "Borrow", FungibilityPolicy::kMayStopSearch);
  out.when_can_preempt = policy("whenCanPreempt", "Preempt", FungibilityPolicy::kTryNextFlavor);
  if (f->has("preference")) {
    if (out.when_can_borrow != FungibilityPolicy::kTryNextFlavor || out.when_can_preempt != FungibilityPolicy::kTryNextFlavor) {
      f->fail("preference", "only when whenCanBorrow and whenCanPreempt are both TryNextFlavor");
    }
    out.preference = choice<FungibilityPreference>(
        *f, "preference",
        {{"BorrowingOverPreemption", FungibilityPreference::kBorrowingOverPreemption},
         {"PreemptionOverBorrowing", FungibilityPreference::kPreemptionOverBorrowing}},
        FungibilityPreference::kBorrowingOverPreemption);
  }
  return out;
}

// Names unique per kind, across every file read into `into`.
void check_new_name(const std::vector<std::pair<std::string, std::string>>& seen, const std::string& name, const Fields& object,
                    std::string_view kind) {
  for (const auto& [other, where] : seen) {
    if (other == name) object.required_map("metadata").fail("name", fmt::format("a second {} named '{}' (the first: {})", kind, name, where));
  }
}

template <typename T>
std::vector<std::pair<std::string, std::string>> names_of(const std::vector<T>& objects) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const T& o : objects) out.emplace_back(o.name, fmt::format("{}:{}", o.file, o.line));
  return out;
}

class Reader {
 public:
  Reader(const std::string& source, Objects& into) : source_(source), where_(source_), into_(into) {}

  void object(const YAML::Node& node, const std::string& at) {
    const Fields object(where_, node, at);
    const std::string api = object.required_string("apiVersion");
    const std::string kind = object.required_string("kind");
    if (api.starts_with(kConfigGroup)) {
      configuration(object, api, kind);
      return;
    }
    const Version version = api == "kueue.x-k8s.io/v1beta1"   ? Version::kV1beta1
                            : api == "kueue.x-k8s.io/v1beta2" ? Version::kV1beta2
                            : api == "kueue.x-k8s.io/v1alpha1" && kind == "Cohort"
                                ? Version::kV1alpha1
                                : fail_version(object, api, kind);
    if (kind == "WorkloadPriorityClass") {
      only(object, {"apiVersion", "kind", "metadata", "value", "description"});
    } else {
      only(object, {"apiVersion", "kind", "metadata", "spec", "status"});
    }
    const traces::k8s::Meta meta = traces::k8s::read_meta(object);
    const int line = where_.line(object.required_map("metadata").get("name"));
    if (kind == "LocalQueue" && !object.has("spec")) object.missing("spec");
    const std::optional<Fields> spec = object.map("spec");
    const Fields empty_spec(where_, YAML::Node(YAML::NodeType::Map), object.path("spec"));
    const Fields& s = spec ? *spec : empty_spec;
    if (kind == "ResourceFlavor") {
      check_new_name(names_of(into_.resource_flavors), meta.name, object, kind);
      into_.resource_flavors.push_back(resource_flavor(s, meta.name, line));
    } else if (kind == "ClusterQueue") {
      check_new_name(names_of(into_.cluster_queues), meta.name, object, kind);
      into_.cluster_queues.push_back(cluster_queue(s, version, meta.name, line));
    } else if (kind == "Cohort") {
      check_new_name(names_of(into_.cohorts), meta.name, object, kind);
      into_.cohorts.push_back(cohort(s, version, meta.name, line));
    } else if (kind == "LocalQueue") {
      local_queue(object, s, meta, line);
    } else if (kind == "WorkloadPriorityClass") {
      check_new_name(names_of(into_.priority_classes), meta.name, object, kind);
      WorkloadPriorityClass wpc{meta.name, 0, source_, line};
      const auto value = object.integer("value", traces::k8s::kInt32Min, traces::k8s::kInt32Max);
      if (!value) object.missing("value");
      wpc.value = static_cast<std::int32_t>(*value);
      into_.priority_classes.push_back(std::move(wpc));
    } else {
      object.fail("kind", fmt::format("'{}' is not a Kueue kind gpusim reads (ResourceFlavor, ClusterQueue, Cohort, LocalQueue, "
                                      "WorkloadPriorityClass; Workloads come from the trace's Jobs)",
                                      traces::k8s::truncated(kind)));
    }
  }

 private:
  [[noreturn]] Version fail_version(const Fields& object, const std::string& api, const std::string& kind) const {
    object.fail("apiVersion", fmt::format("'{}': gpusim reads Kueue's {} as kueue.x-k8s.io/v1beta1 or v1beta2{}",
                                          traces::k8s::truncated(api), traces::k8s::truncated(kind),
                                          kind == "Cohort" ? " (or the older v1alpha1)" : ""));
  }

  ResourceFlavor resource_flavor(const Fields& spec, const std::string& name, int line) {
    only(spec, {"nodeLabels", "nodeTaints", "tolerations", "topologyName"});
    ResourceFlavor flavor;
    flavor.name = name;
    flavor.file = source_;
    flavor.line = line;
    const traces::k8s::Entries labels = traces::k8s::string_map(spec, "nodeLabels");
    if (labels.size() > kMaxFlavorEntries) spec.fail("nodeLabels", fmt::format("at most {} labels", kMaxFlavorEntries));
    for (const auto& e : labels) {
      if (!traces::k8s::label_key_valid(e.key)) where_.fail(e.node, e.path, fmt::format("'{}' is not a label key", traces::k8s::truncated(e.key)));
      if (!traces::k8s::label_value_valid(e.value)) where_.fail(e.node, e.path, fmt::format("'{}' is not a label value", traces::k8s::truncated(e.value)));
      flavor.node_labels.emplace_back(e.key, e.value);
    }
    const auto taints = spec.list("nodeTaints");
    if (taints.size() > kMaxFlavorEntries) spec.fail("nodeTaints", fmt::format("at most {} taints", kMaxFlavorEntries));
    for (const auto& [node, path] : taints) {
      const Fields t(where_, node, path);
      only(t, {"key", "value", "effect", "timeAdded"});
      cluster::Taint taint;
      taint.key = t.required_string("key");
      check_qualified(t, "key", taint.key);
      taint.value = t.string("value").value_or("");
      if (!traces::k8s::label_value_valid(taint.value)) t.fail("value", fmt::format("'{}' is not a label value", traces::k8s::truncated(taint.value)));
      taint.effect = t.required_string("effect");
      if (taint.effect != "NoSchedule" && taint.effect != "PreferNoSchedule" && taint.effect != "NoExecute") {
        t.fail("effect", fmt::format("'{}' is not NoSchedule, PreferNoSchedule or NoExecute", traces::k8s::truncated(taint.effect)));
      }
      for (const cluster::Taint& other : flavor.node_taints) {
        if (other.key == taint.key && other.effect == taint.effect) t.fail("key", "a second taint with this key and effect");
      }
      flavor.node_taints.push_back(std::move(taint));
    }
    flavor.tolerations = traces::k8s::read_tolerations(spec);
    if (flavor.tolerations.size() > kMaxFlavorEntries) spec.fail("tolerations", fmt::format("at most {} tolerations", kMaxFlavorEntries));
    if (spec.has("topologyName")) {
      into_.notes.push_back(fmt::format("ResourceFlavor {}: topologyName ignored: gpusim does not model Kueue's topology-aware "
                                        "scheduling", name));
    }
    return flavor;
  }

  ClusterQueue cluster_queue(const Fields& spec, Version version, const std::string& name, int line) {
    const char* cohort_key = version == Version::kV1beta2 ? "cohortName" : "cohort";
    only(spec, {cohort_key, "namespaceSelector", "queueingStrategy", "resourceGroups", "preemption", "flavorFungibility",
                "fairSharing", "stopPolicy", "admissionChecks", "admissionChecksStrategy", "admissionScope"});
    ClusterQueue cq;
    cq.name = name;
    cq.file = source_;
    cq.line = line;
    cq.cohort = cohort_reference(spec, cohort_key);
    if (const auto selector = spec.map("namespaceSelector")) cq.namespace_selector = read_label_selector(*selector);
    cq.queueing_strategy = choice<QueueingStrategy>(
        spec, "queueingStrategy", {{"BestEffortFIFO", QueueingStrategy::kBestEffortFifo}, {"StrictFIFO", QueueingStrategy::kStrictFifo}},
        QueueingStrategy::kBestEffortFifo);
    cq.resource_groups = read_resource_groups(spec, !cq.cohort.empty(), true);
    cq.preemption = read_preemption(spec);
    cq.flavor_fungibility = read_fungibility(spec, version);
    cq.fair_sharing_weight = fair_sharing_weight(spec);
    cq.stop_policy = stop_policy(spec);
    if (spec.has("admissionChecks") || spec.has("admissionChecksStrategy")) {
      into_.notes.push_back(fmt::format("ClusterQueue {}: admission checks not modelled: gpusim admits a workload when it "
                                        "reserves quota, as if every check passed at once", name));
    }
    if (spec.has("admissionScope")) {
      into_.notes.push_back(fmt::format("ClusterQueue {}: admissionScope ignored: gpusim does not model admission fair sharing", name));
    }
    return cq;
  }

  Cohort cohort(const Fields& spec, Version version, const std::string& name, int line) {
    const char* parent_key = version == Version::kV1alpha1 ? "parent" : "parentName";
    only(spec, {parent_key, "resourceGroups", "fairSharing"});
    Cohort c;
    c.name = name;
    c.file = source_;
    c.line = line;
    c.parent = cohort_reference(spec, parent_key);
    c.resource_groups = read_resource_groups(spec, !c.parent.empty(), false);
    c.fair_sharing_weight = fair_sharing_weight(spec);
    return c;
  }

  void local_queue(const Fields& object, const Fields& spec, const traces::k8s::Meta& meta, int line) {
    only(spec, {"clusterQueue", "stopPolicy", "fairSharing"});
    const std::string& name = meta.name;
    LocalQueue lq;
    lq.name = name;
    static constexpr std::string_view kKnown[] = {kTraceQueuesAnnotation};
    traces::k8s::check_gpusim_annotations(where_, meta.annotations, kKnown, "LocalQueue");
    if (const traces::k8s::Entry* e = traces::k8s::find(meta.annotations, kTraceQueuesAnnotation)) {
      lq.trace_queues = traces::k8s::comma_list(where_, *e, "queue name");
    }
    lq.file = source_;
    lq.line = line;
    lq.namespace_name = object.required_map("metadata").string("namespace").value_or("default");
    if (!traces::k8s::dns_label(lq.namespace_name)) {
      object.required_map("metadata").fail("namespace", fmt::format("'{}' is not a namespace name (lower-case letters, digits and '-', "
                                                                    "at most 63)", traces::k8s::truncated(lq.namespace_name)));
    }
    for (const LocalQueue& other : into_.local_queues) {
      if (other.namespace_name == lq.namespace_name && other.name == name) {
        object.required_map("metadata").fail("name", fmt::format("a second LocalQueue {}/{} (the first: {}:{})", lq.namespace_name,
                                                                 name, other.file, other.line));
      }
    }
    lq.cluster_queue = spec.required_string("clusterQueue");
    lq.stop_policy = stop_policy(spec);
    if (spec.has("fairSharing")) {
      into_.notes.push_back(fmt::format("LocalQueue {}/{}: fairSharing ignored: gpusim does not model admission fair sharing",
                                        lq.namespace_name, name));
    }
    into_.local_queues.push_back(std::move(lq));
  }

  void configuration(const Fields& object, const std::string& api, const std::string& kind) {
    const bool v1beta1 = api == "config.kueue.x-k8s.io/v1beta1";
    if (!v1beta1 && api != "config.kueue.x-k8s.io/v1beta2") {
      object.fail("apiVersion", fmt::format("'{}': gpusim reads Kueue's Configuration as config.kueue.x-k8s.io/v1beta1 or v1beta2",
                                            traces::k8s::truncated(api)));
    }
    if (kind != "Configuration") object.fail("kind", fmt::format("'{}': expected Configuration", traces::k8s::truncated(kind)));
    if (into_.configuration) {
      object.fail("kind", fmt::format("a second Kueue Configuration (the first: {})", into_.configuration->file));
    }
    // The controller manager's own settings (ports, certificates, leader election, integrations, ...)
    // change nothing gpusim simulates.
    only(object, {"apiVersion", "kind", "namespace", "manageJobsWithoutQueueName", "managedJobsNamespaceSelector",
                  "internalCertManagement", "waitForPodsReady", "clientConnection", "integrations", "queueVisibility",
                  "multiKueue", "fairSharing", "admissionFairSharing", "resources", "featureGates", "objectRetentionPolicies",
                  "health", "metrics", "webhook", "leaderElection", "controller", "pprofBindAddress", "cacheSyncTimeout"});
    Configuration config;
    config.file = source_;
    config.manage_jobs_without_queue_name = object.boolean("manageJobsWithoutQueueName").value_or(false);
    if (const auto fair = object.map("fairSharing")) {
      config.fair_sharing_line = where_.line(fair->node());
      if (v1beta1) {
        only(*fair, {"enable", "preemptionStrategies"});
        config.fair_sharing = fair->boolean("enable").value_or(false);
      } else {
        only(*fair, {"preemptionStrategies"});
        config.fair_sharing = true;  // v1beta2: the section's presence turns fair sharing on
      }
      const auto strategies = fair->list("preemptionStrategies");
      if (!strategies.empty()) {
        config.preemption_strategies.clear();
        for (const auto& [node, path] : strategies) {
          const std::string s = node.IsScalar() ? node.Scalar() : "";
          if (s == "LessThanOrEqualToFinalShare") config.preemption_strategies.push_back(FairSharingStrategy::kLessThanOrEqualToFinalShare);
          else if (s == "LessThanInitialShare") config.preemption_strategies.push_back(FairSharingStrategy::kLessThanInitialShare);
          else where_.fail(node, path, "expected LessThanOrEqualToFinalShare or LessThanInitialShare");
        }
        // pkg/config/validation.go, validStrategySets: [LTEFS], [LTIS] or [LTEFS, LTIS].
        const auto& got = config.preemption_strategies;
        const bool valid = got.size() == 1 || (got.size() == 2 && got[0] == FairSharingStrategy::kLessThanOrEqualToFinalShare &&
                                               got[1] == FairSharingStrategy::kLessThanInitialShare);
        if (!valid) {
          fair->fail("preemptionStrategies", "must be [LessThanOrEqualToFinalShare], [LessThanInitialShare] or "
                                             "[LessThanOrEqualToFinalShare, LessThanInitialShare]");
        }
      }
    }
    if (const auto resources = object.map("resources")) {
      only(*resources, v1beta1 ? std::initializer_list<std::string_view>{"excludeResourcePrefixes", "transformations"}
                               : std::initializer_list<std::string_view>{"excludeResourcePrefixes", "transformations", "quotaCheckStrategy"});
      for (const auto& [node, path] : resources->list("excludeResourcePrefixes")) {
        if (!node.IsScalar()) where_.fail(node, path, "expected a resource-name prefix");
        config.exclude_resource_prefixes.push_back(node.Scalar());
      }
      if (resources->has("transformations")) {
        resources->fail("transformations", "resource transformations are not modelled: gpusim counts each pod's requests as written");
      }
      if (!v1beta1) {
        config.ignore_undeclared_resources =
            choice<bool>(*resources, "quotaCheckStrategy", {{"BlockUndeclared", false}, {"IgnoreUndeclared", true}}, false);
      }
    }
    if (const auto wait = object.map("waitForPodsReady")) {
      config.wait_for_pods_ready = v1beta1 ? wait->boolean("enable").value_or(false) : true;
      if (config.wait_for_pods_ready) {
        into_.notes.push_back("Configuration: waitForPodsReady not modelled: an admitted workload keeps its quota while "
                              "its pods wait for nodes, as with the section off");
      }
    }
    if (object.has("admissionFairSharing")) {
      into_.notes.push_back("Configuration: admissionFairSharing ignored: gpusim does not model admission fair sharing");
    }
    into_.configuration = std::move(config);
  }

  const std::string& source_;
  Where where_;
  Objects& into_;
};

bool is_kueue_object(const YAML::Node& doc) {
  if (!doc.IsMap() || !doc["apiVersion"] || !doc["apiVersion"].IsScalar()) return false;
  const std::string& api = doc["apiVersion"].Scalar();
  return api.starts_with(kGroup) || api.starts_with(kConfigGroup);
}

bool is_list(const YAML::Node& doc) {
  return doc.IsMap() && doc["kind"] && doc["kind"].IsScalar() && doc["kind"].Scalar() == "List";
}

}  // namespace

bool is_kueue_file(const YAML::Node& first_document) {
  try {
    if (is_list(first_document)) {
      const YAML::Node items = first_document["items"];
      return items && items.IsSequence() && items.size() > 0 && is_kueue_object(items[0]);
    }
    return is_kueue_object(first_document);
  } catch (const YAML::Exception&) {
    return false;
  }
}

void parse_kueue_objects(const std::string& text, const std::string& source, Objects& into) {
  Reader reader(source, into);
  try {
    for (const YAML::Node& doc : traces::load_yaml_documents(text, source)) {
      if (!doc || doc.IsNull()) continue;
      if (is_list(doc)) {
        const Fields list(Where(source), doc, "");
        only(list, {"apiVersion", "kind", "metadata", "items"});
        for (const auto& [node, path] : list.list("items")) reader.object(node, path);
      } else {
        reader.object(doc, "");
      }
    }
  } catch (const YAML::Exception& e) {
    throw core::InputError(fmt::format("{}:{}: yaml: {}", source, e.mark.line + 1, e.msg));
  }
}

void check_kueue_references(const Objects& objects) {
  std::set<std::string> flavors;
  for (const ResourceFlavor& f : objects.resource_flavors) flavors.insert(f.name);
  const auto check_flavors = [&](const std::vector<ResourceGroup>& groups, const std::string& kind, const std::string& name,
                                 const std::string& file, int line) {
    for (const ResourceGroup& g : groups) {
      for (const FlavorQuotas& q : g.flavors) {
        if (!flavors.contains(q.flavor)) {
          throw core::InputError(fmt::format("{}:{}: {} {}: flavor '{}' has no ResourceFlavor (Kueue would keep the queue "
                                             "inactive, admitting nothing)",
                                             file, line, kind, name, q.flavor));
        }
      }
    }
  };
  for (const ClusterQueue& cq : objects.cluster_queues) check_flavors(cq.resource_groups, "ClusterQueue", cq.name, cq.file, cq.line);
  for (const Cohort& c : objects.cohorts) check_flavors(c.resource_groups, "Cohort", c.name, c.file, c.line);
  std::set<std::string> cluster_queues;
  for (const ClusterQueue& cq : objects.cluster_queues) cluster_queues.insert(cq.name);
  for (const LocalQueue& lq : objects.local_queues) {
    if (!cluster_queues.contains(lq.cluster_queue)) {
      throw core::InputError(fmt::format("{}:{}: LocalQueue {}/{}: spec.clusterQueue '{}' names no ClusterQueue (its workloads "
                                         "would wait for ever)",
                                         lq.file, lq.line, lq.namespace_name, lq.name, lq.cluster_queue));
    }
  }
  // A cycle of parents makes every queue of the tree inactive (pkg/cache/scheduler/resource_node.go).
  std::map<std::string, const Cohort*> by_name;
  for (const Cohort& c : objects.cohorts) by_name.emplace(c.name, &c);
  for (const Cohort& start : objects.cohorts) {
    std::set<std::string> path{start.name};
    for (const Cohort* c = &start; !c->parent.empty();) {
      if (!path.insert(c->parent).second) {
        throw core::InputError(fmt::format("{}:{}: Cohort {}: its parents form a cycle ({}); Kueue would keep every queue "
                                           "under it inactive",
                                           start.file, start.line, start.name, fmt::join(path, ", ")));
      }
      const auto it = by_name.find(c->parent);
      if (it == by_name.end()) break;  // an implicit root cohort with no quota
      c = it->second;
    }
  }
}

std::vector<QueueRoute> routes_of_trace_queues(const Objects& objects, const std::vector<std::string>& queues) {
  const std::vector<std::string> names = queues.empty() ? std::vector<std::string>{"default"} : queues;
  std::vector<QueueRoute> out(names.size());
  for (std::size_t q = 0; q < names.size(); ++q) {
    const LocalQueue* claimed = nullptr;
    // A manifest's queue is "<namespace>/<LocalQueue>" (its kueue.x-k8s.io/queue-name label); a
    // trace's names a LocalQueue in namespace default.
    const std::size_t slash = names[q].find('/');
    const std::string_view ns = slash == std::string::npos ? std::string_view("default") : std::string_view(names[q]).substr(0, slash);
    const std::string_view local = slash == std::string::npos ? std::string_view(names[q]) : std::string_view(names[q]).substr(slash + 1);
    for (const LocalQueue& lq : objects.local_queues) {
      const bool named = lq.namespace_name == ns && lq.name == local;
      const bool listed = std::find(lq.trace_queues.begin(), lq.trace_queues.end(), names[q]) != lq.trace_queues.end();
      if (!named && !listed) continue;
      if (claimed != nullptr && claimed != &lq) {
        throw core::InputError(fmt::format("{}:{}: LocalQueue {}/{}: the trace's queue '{}' is claimed by LocalQueue {}/{} too ({}:{})",
                                           lq.file, lq.line, lq.namespace_name, lq.name, names[q], claimed->namespace_name,
                                           claimed->name, claimed->file, claimed->line));
      }
      claimed = &lq;
    }
    if (claimed != nullptr) {
      out[q] = QueueRoute{claimed->cluster_queue, claimed->namespace_name, claimed->name, claimed->stop_policy != StopPolicy::kNone};
    }
  }
  return out;
}

}  // namespace gpusim::k8s::kueue
