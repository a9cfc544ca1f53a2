#include "policies/score/node_resources_fit_args.hpp"

#include <fmt/format.h>

#include "policies/args_yaml.hpp"
#include "traces/k8s/qualified_name.hpp"

namespace gpusim::policy {
namespace {

// MaxNodeScore / MaxCustomPriorityScore (pkg/scheduler/apis/config/types.go: 10).
constexpr std::int64_t kShapeScoreScale = 10;
constexpr std::int64_t kMaxCustomPriorityScore = 10;

std::vector<std::string> read_names(const YAML::Node& node, const io::YamlFields& fields, const std::string& field,
                                    bool group) {
  std::vector<std::string> out;
  const YAML::Node items = sequence(node, fields, field);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string at = fmt::format("{}[{}]", field, i);
    std::string name = fields.text(items[i], at);
    if (group && name.find('/') != std::string::npos) fields.fail(items[i], at, "resource group name can't contain '/'");
    if (const auto why = traces::k8s::qualified_name_error(name)) fields.fail(items[i], at, *why);
    out.push_back(std::move(name));
  }
  return out;
}

// `ratio` is requestedToCapacityRatio; `field` names its shape.
std::vector<UtilizationShapePoint> read_shape(const YAML::Node& ratio, const io::YamlFields& fields, const std::string& field) {
  const YAML::Node items = sequence(ratio["shape"], fields, field);
  if (items.size() == 0) fields.fail(given(ratio["shape"]) ? ratio["shape"] : ratio, field, "at least one point must be specified");
  std::vector<UtilizationShapePoint> out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string at = fmt::format("{}[{}]", field, i);
    fields.only(items[i], at, {"utilization", "score"});
    UtilizationShapePoint point;
    // Both are int32 fields that default to 0 when left out.
    if (given(items[i]["utilization"])) {
      point.utilization = static_cast<std::int32_t>(fields.integer(items[i]["utilization"], at + ".utilization", 0, 100));
    }
    if (given(items[i]["score"])) {
      point.score = static_cast<std::int32_t>(fields.integer(items[i]["score"], at + ".score", 0, kMaxCustomPriorityScore));
    }
    if (!out.empty() && out.back().utilization >= point.utilization) {
      fields.fail(items[i], at + ".utilization", "values must be sorted in increasing order");
    }
    out.push_back(point);
  }
  return out;
}

std::optional<std::string> fit_weight(const std::string& name, std::int64_t weight) {
  if (weight <= 0 || weight > 100) return fmt::format("resource weight of {} not in valid range (0, 100]", name);
  return std::nullopt;
}

ScoringStrategy read_type(const YAML::Node& node, const io::YamlFields& fields, const std::string& field) {
  const std::string type = fields.text(node, field);
  if (type == "LeastAllocated") return ScoringStrategy::kLeastAllocated;
  if (type == "MostAllocated") return ScoringStrategy::kMostAllocated;
  if (type == "RequestedToCapacityRatio") return ScoringStrategy::kRequestedToCapacityRatio;
  fields.fail(node, field,
              fmt::format("unsupported value '{}': supported values: LeastAllocated, MostAllocated, RequestedToCapacityRatio", type));
}

}  // namespace

const char* to_string(ScoringStrategy type) {
  switch (type) {
    case ScoringStrategy::kLeastAllocated: return "LeastAllocated";
    case ScoringStrategy::kMostAllocated: return "MostAllocated";
    case ScoringStrategy::kRequestedToCapacityRatio: return "RequestedToCapacityRatio";
  }
  return "?";
}

FitScoring NodeResourcesFitArgs::scoring() const {
  FitScoring out{type, resources, {}, false};
  for (const UtilizationShapePoint& p : shape) out.shape.push_back({p.utilization, p.score * kShapeScoreScale});
  return out;
}

std::vector<sched::ArgLine> NodeResourcesFitArgs::describe() const {
  const auto list = [](const std::vector<std::string>& names) { return fmt::format("[{}]", fmt::join(names, ", ")); };
  std::vector<sched::ArgLine> lines{
      {"scoringStrategy.type", to_string(type), !strategy_given},
      {"scoringStrategy.resources", describe_resources(resources), !strategy_given},
  };
  if (!shape.empty()) {
    std::vector<std::string> points;
    for (const UtilizationShapePoint& p : shape) points.push_back(fmt::format("{{utilization: {}, score: {}}}", p.utilization, p.score));
    lines.push_back({"scoringStrategy.requestedToCapacityRatio.shape", list(points), false});
  }
  lines.push_back({"ignoredResources", list(ignored_resources), ignored_resources.empty()});
  lines.push_back({"ignoredResourceGroups", list(ignored_resource_groups), ignored_resource_groups.empty()});
  return lines;
}

std::vector<std::string> NodeResourcesFitArgs::notes() const {
  if (ignored_resources.empty() && ignored_resource_groups.empty()) return {};
  return {"NodeResourcesFit's ignoredResources and ignoredResourceGroups change nothing in gpusim: its node-resources-fit "
          "checks no extended resource, and GPUs are always checked by gpu-fit (the device plugin's or an extender's "
          "accounting)"};
}

std::shared_ptr<const sched::PluginArgs> read_node_resources_fit_args(const YAML::Node& args, const io::YamlFields& fields,
                                                                      const std::string& field) {
  auto out = std::make_shared<NodeResourcesFitArgs>();
  if (!given(args)) return out;
  check_args_keys(args, fields, field, "NodeResourcesFitArgs", {"ignoredResources", "ignoredResourceGroups", "scoringStrategy"});
  out->ignored_resources = read_names(args["ignoredResources"], fields, field + ".ignoredResources", false);
  out->ignored_resource_groups = read_names(args["ignoredResourceGroups"], fields, field + ".ignoredResourceGroups", true);
  const YAML::Node strategy = args["scoringStrategy"];
  if (!given(strategy)) return out;  // nil: LeastAllocated over cpu and memory
  const std::string at = field + ".scoringStrategy";
  fields.only(strategy, at, {"type", "resources", "requestedToCapacityRatio"});
  out->strategy_given = true;
  // Given a scoringStrategy, kube-scheduler defaults its resources but not its type.
  if (!given(strategy["type"])) {
    fields.fail(strategy, at + ".type", "required (LeastAllocated, MostAllocated or RequestedToCapacityRatio)");
  }
  out->type = read_type(strategy["type"], fields, at + ".type");
  out->resources = read_resource_list(strategy["resources"], fields, at + ".resources", fit_weight);
  const YAML::Node ratio = strategy["requestedToCapacityRatio"];
  if (given(ratio)) {
    fields.only(ratio, at + ".requestedToCapacityRatio", {"shape"});
    out->shape = read_shape(ratio, fields, at + ".requestedToCapacityRatio.shape");
  }
  if (out->type == ScoringStrategy::kRequestedToCapacityRatio && out->shape.empty()) {
    fields.fail(strategy, at + ".requestedToCapacityRatio.shape",
                "type RequestedToCapacityRatio needs a shape (at least one point)");
  }
  return out;
}

}  // namespace gpusim::policy
