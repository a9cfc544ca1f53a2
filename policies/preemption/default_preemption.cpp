#include "policies/preemption/default_preemption.hpp"

#include "policies/job_rank/job_rank_plugin.hpp"

#include <fmt/format.h>

#include <limits>

#include "policies/args_yaml.hpp"

namespace gpusim::policy {

std::vector<sched::ArgLine> DefaultPreemptionArgs::describe() const {
  return {{"minCandidateNodesPercentage", std::to_string(min_candidate_nodes_percentage), !percentage_given},
          {"minCandidateNodesAbsolute", std::to_string(min_candidate_nodes_absolute), !absolute_given}};
}

k8s::CandidateSampling DefaultPreemptionArgs::sampling() const {
  return {min_candidate_nodes_percentage, min_candidate_nodes_absolute};
}

std::shared_ptr<const sched::PluginArgs> read_default_preemption_args(const YAML::Node& args, const io::YamlFields& fields,
                                                                      const std::string& field) {
  auto out = std::make_shared<DefaultPreemptionArgs>();
  if (!given(args)) return out;
  check_args_keys(args, fields, field, "DefaultPreemptionArgs", {"minCandidateNodesPercentage", "minCandidateNodesAbsolute"});
  const YAML::Node percentage = args["minCandidateNodesPercentage"];
  const YAML::Node absolute = args["minCandidateNodesAbsolute"];
  if (given(percentage)) {
    const std::int64_t v = fields.integer(percentage, field + ".minCandidateNodesPercentage", INT32_MIN, INT32_MAX);
    if (v < 0 || v > 100) fields.fail(percentage, field + ".minCandidateNodesPercentage", fmt::format("{} not in valid range [0, 100]", v));
    out->min_candidate_nodes_percentage = static_cast<std::int32_t>(v);
    out->percentage_given = true;
  }
  if (given(absolute)) {
    const std::int64_t v = fields.integer(absolute, field + ".minCandidateNodesAbsolute", INT32_MIN, INT32_MAX);
    if (v < 0) fields.fail(absolute, field + ".minCandidateNodesAbsolute", fmt::format("{} not in valid range [0, inf)", v));
    out->min_candidate_nodes_absolute = static_cast<std::int32_t>(v);
    out->absolute_given = true;
  }
  if (out->min_candidate_nodes_percentage == 0 && out->min_candidate_nodes_absolute == 0) {
    fields.fail(given(percentage) ? percentage : absolute, field + ".minCandidateNodesPercentage",
                "cannot be zero at the same time as minCandidateNodesAbsolute");
  }
  return out;
}

void register_default_preemption(sched::Registry& registry) {
  registry.add_queueing(
      "default-preemption",
      [](const sched::PluginContext& context) {
        const auto* args = dynamic_cast<const DefaultPreemptionArgs*>(context.args);
        return make_job_rank_plugin("default-preemption", args != nullptr ? args->sampling() : k8s::CandidateSampling{});
      },
      read_default_preemption_args);
}

}  // namespace gpusim::policy
