#include "traces/k8s/pod_placement.hpp"

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <string>

namespace gpusim::traces::k8s {

using YAML::Node;

namespace {

cluster::SelectorOperator selector_operator(const Fields& r) {
  const std::string op = r.required_string("operator");
  if (op == "In") return cluster::SelectorOperator::kIn;
  if (op == "NotIn") return cluster::SelectorOperator::kNotIn;
  if (op == "Exists") return cluster::SelectorOperator::kExists;
  if (op == "DoesNotExist") return cluster::SelectorOperator::kDoesNotExist;
  if (op == "Gt") return cluster::SelectorOperator::kGt;
  if (op == "Lt") return cluster::SelectorOperator::kLt;
  r.fail("operator", fmt::format("'{}' is not In, NotIn, Exists, DoesNotExist, Gt or Lt", op));
}

// One matchExpressions entry with Kubernetes' value rules.
cluster::SelectorRequirement read_requirement(const Fields& r) {
  cluster::SelectorRequirement req;
  req.key = r.required_string("key");
  req.op = selector_operator(r);
  for (const auto& [node, path] : r.list("values")) {
    if (!node.IsScalar()) r.where().fail(node, path, fmt::format("expected a string, found {}", shape(node)));
    req.values.push_back(node.Scalar());
  }
  switch (req.op) {
    case cluster::SelectorOperator::kIn:
    case cluster::SelectorOperator::kNotIn:
      if (req.values.empty()) r.fail("values", "In and NotIn need at least one value");
      break;
    case cluster::SelectorOperator::kExists:
    case cluster::SelectorOperator::kDoesNotExist:
      if (!req.values.empty()) r.fail("values", "Exists and DoesNotExist take no values");
      break;
    case cluster::SelectorOperator::kGt:
    case cluster::SelectorOperator::kLt: {
      if (req.values.size() != 1) r.fail("values", "Gt and Lt take exactly one value");
      std::int64_t bound = 0;
      const std::string& v = req.values.front();
      const auto [end, error] = std::from_chars(v.data(), v.data() + v.size(), bound);
      if (error != std::errc{} || end != v.data() + v.size()) {
        r.fail("values", fmt::format("'{}' is not an integer (Gt and Lt compare integers)", v));
      }
      break;
    }
  }
  return req;
}

}  // namespace

std::vector<cluster::NodeSelectorTerm> read_affinity(const Fields& affinity, AffinityFacts& facts) {
  std::vector<cluster::NodeSelectorTerm> terms;
  facts.pod_affinity = facts.pod_affinity || affinity.has("podAffinity") || affinity.has("podAntiAffinity");
  const auto node_affinity = affinity.map("nodeAffinity");
  if (!node_affinity) return terms;
  facts.preferred = facts.preferred || node_affinity->has("preferredDuringSchedulingIgnoredDuringExecution");
  const auto required = node_affinity->map("requiredDuringSchedulingIgnoredDuringExecution");
  if (!required) return terms;
  const auto items = required->list("nodeSelectorTerms");
  if (items.empty()) required->fail("nodeSelectorTerms", "at least one term is required");
  for (const auto& [node, path] : items) {
    const Fields term(affinity.where(), node, path);
    if (term.has("matchFields")) {
      term.fail("matchFields", "not modelled (gpusim reads matchExpressions on node labels)");
    }
    cluster::NodeSelectorTerm t;
    for (const auto& [rnode, rpath] : term.list("matchExpressions")) {
      t.match_expressions.push_back(read_requirement(Fields(affinity.where(), rnode, rpath)));
    }
    if (t.match_expressions.empty()) {
      term.where().fail(node, path, "a term without matchExpressions matches no node in Kubernetes");
    }
    terms.push_back(std::move(t));
  }
  return terms;
}

// scheduler.alpha.kubernetes.io/affinity: Kubernetes 1.6's annotation, a JSON string.
std::optional<std::vector<cluster::NodeSelectorTerm>> alpha_affinity(const Where& where, const Entries& annotations,
                                                                     AffinityFacts& facts) {
  const Entry* e = find(annotations, kAlphaAffinity);
  if (e == nullptr) return std::nullopt;
  Node doc;
  try {
    doc = YAML::Load(e->value);
  } catch (const YAML::Exception& ex) {
    where.fail(e->node, e->path, fmt::format("not valid JSON: {}", ex.msg));
  }
  const Where inside = where.inside_string_at(where.line(e->node));
  return read_affinity(Fields(inside, doc, e->path), facts);
}

std::vector<cluster::Toleration> read_tolerations(const Fields& spec) {
  std::vector<cluster::Toleration> out;
  for (const auto& [node, path] : spec.list("tolerations")) {
    const Fields t(spec.where(), node, path);
    cluster::Toleration tol;
    tol.key = t.string("key").value_or("");
    const std::string op = t.string("operator").value_or("Equal");
    if (op != "Equal" && op != "Exists") t.fail("operator", fmt::format("'{}' is not Equal or Exists", op));
    tol.exists = op == "Exists";
    tol.value = t.string("value").value_or("");
    tol.effect = t.string("effect").value_or("");
    if (tol.key.empty() && !tol.exists) t.fail("operator", "a toleration without a key must use Exists");
    if (tol.exists && !tol.value.empty()) t.fail("value", "must be empty with operator Exists");
    if (!tol.effect.empty() && tol.effect != "NoSchedule" && tol.effect != "PreferNoSchedule" &&
        tol.effect != "NoExecute") {
      t.fail("effect", fmt::format("'{}' is not NoSchedule, PreferNoSchedule or NoExecute", tol.effect));
    }
    tol.toleration_seconds = t.integer("tolerationSeconds", std::numeric_limits<std::int64_t>::min(),
                                       std::numeric_limits<std::int64_t>::max());
    if (tol.toleration_seconds && tol.effect != "NoExecute") t.fail("tolerationSeconds", "only with effect NoExecute");
    out.push_back(std::move(tol));
  }
  return out;
}

}  // namespace gpusim::traces::k8s
