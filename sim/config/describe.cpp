#include "sim/config/describe.hpp"

#include <fmt/format.h>

namespace gpusim::config {
namespace {

constexpr int kColumn = 16;

void point(std::string& out, std::string_view name, const std::string& plugins) {
  if (!plugins.empty()) out += fmt::format("  {:<{}}{}\n", name, kColumn, plugins);
}

// One arg: its value, and its default when it differs (then the file set it). `given`: the file
// is known to set it, even to the default's value.
void arg(std::string& out, std::string_view name, const std::string& value, const std::string& fallback, const std::string& source,
         bool given = false) {
  if (value == fallback && given) out += fmt::format("      {}: {}  (the default; set in {})\n", name, value, source);
  else if (value == fallback) out += fmt::format("      {}: {}  (default)\n", name, value);
  else out += fmt::format("      {}: {}  (default {}; set in {})\n", name, value, fallback, source);
}

std::string seconds(core::Time t) { return fmt::format("{}", t.seconds_floor()); }

void framework_args(std::string& out, const sched::Profile& p, const sched::Registry& registry, const std::string& name,
                    const std::string& source) {
  const auto given = p.plugin_args.find(name);
  const std::shared_ptr<const sched::PluginArgs> defaults = registry.default_args(name);
  if (given == p.plugin_args.end() && defaults == nullptr) return;
  const auto lines = (given != p.plugin_args.end() ? given->second : defaults)->describe();
  const auto default_lines = defaults ? defaults->describe() : lines;
  out += fmt::format("    {} args:\n", name);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string fallback = i < default_lines.size() ? default_lines[i].value : lines[i].value;
    arg(out, lines[i].name, lines[i].value, fallback, source, !lines[i].is_default);
  }
}

}  // namespace

std::string describe_profile(const sched::Profile& p, const sched::Registry& registry, const std::string& source) {
  const sched::Profile d;  // the defaults of gpusim's policy plugins' args
  std::string out = fmt::format("policy {}\n  from {}\n", p.name, source);
  const auto join = [](const std::vector<std::string>& names) { return fmt::format("{}", fmt::join(names, ", ")); };
  std::vector<std::string> scores;
  for (const auto& s : p.score) scores.push_back(fmt::format("{} (weight {})", s.name, s.weight));
  out += "extension points:\n";
  point(out, "queueSort", p.queue_sort);
  point(out, "preFilter", join(p.pre_filter));
  point(out, "filter", join(p.filter));
  point(out, "postFilter", p.preemption == sched::Preemption::kPriority ? "DefaultPreemption" : join(p.post_filter));
  point(out, "score", join(scores));
  point(out, "reserve", join(p.reserve));
  // gpusim's points: the configuration's name of a built-in plugin, else the registry's (a plugin
  // registered beside the built-in ones).
  const auto or_plugin = [](std::string builtin, const std::string& plugin) { return builtin.empty() ? plugin : builtin; };
  point(out, "permit", p.gang_permit ? "Coscheduling" : or_plugin(join(p.permit), p.gang_permit_plugin));
  point(out, "bind", p.bind);
  point(out, "gpuSelection", p.gpu_selection);
  point(out, "jobRank", or_plugin(p.preemption == sched::Preemption::kSrtf ? "Srtf" : p.preemption == sched::Preemption::kTiresias ? "Tiresias" : "",
                                  p.job_rank_plugin == "default-preemption" ? "" : p.job_rank_plugin));
  point(out, "round", or_plugin(p.time_share == sched::TimeSharePolicy::kThemis ? "Themis" : p.time_share != sched::TimeSharePolicy::kNone ? "Gavel" : "",
                                p.round_plugin));
  std::string admission;
  if (p.queue_mode == sched::QueueMode::kStrict) admission = "Strict";
  if (p.queue_mode == sched::QueueMode::kBackfill) admission = "Backfill";
  if (p.drf) admission = "Drf";
  if (p.queue_quotas == sched::QueueQuotaMode::kProportion) admission = "Proportion";
  if (p.queue_quotas == sched::QueueQuotaMode::kCapacity) admission = "Capacity";
  point(out, "queueAdmission", or_plugin(admission, p.queue_admission_plugin));
  out += "args:\n";
  out += fmt::format("    profile:\n");
  arg(out, "percentageOfNodesToScore", std::to_string(p.percentage_of_nodes_to_score), "0", source);
  arg(out, "tieBreak", p.tie_break == sched::TieBreak::kNodeIndex ? "NodeIndex" : "SeededRank", "SeededRank", source);
  std::vector<std::string> names = p.filter;
  for (const auto& s : p.score) names.push_back(s.name);
  names.push_back(p.gpu_selection);
  if (p.preemption == sched::Preemption::kPriority) names.emplace_back("default-preemption");
  for (const std::string* plugin : {&p.job_rank_plugin, &p.round_plugin, &p.queue_admission_plugin, &p.gang_permit_plugin}) {
    if (!plugin->empty()) names.push_back(*plugin);  // those with args readers (plugins registered beside the built-in ones)
  }
  std::vector<std::string> described;
  for (const std::string& name : names) {
    if (std::find(described.begin(), described.end(), name) != described.end()) continue;
    described.push_back(name);
    framework_args(out, p, registry, name, source);
  }
  if (p.preemption == sched::Preemption::kTiresias) {
    out += "    Tiresias args:\n";
    arg(out, "queueThresholdsGpuSeconds", fmt::format("[{}]", fmt::join(p.tiresias.thresholds_gpu_s, ", ")),
        fmt::format("[{}]", fmt::join(d.tiresias.thresholds_gpu_s, ", ")), source);
    arg(out, "starvationKnob", std::to_string(p.tiresias.starvation_knob), std::to_string(d.tiresias.starvation_knob), source);
    arg(out, "queueOrder", p.tiresias.queue_order == sched::TiresiasQueueOrder::kSimulator ? "Simulator" : "Creation", "Creation", source);
  }
  if (p.time_share == sched::TimeSharePolicy::kThemis) {
    out += "    Themis args:\n";
    arg(out, "fairness", fmt::format("{}", p.themis_fairness), fmt::format("{}", d.themis_fairness), source);
    arg(out, "leaseSeconds", seconds(p.round_length), seconds(d.round_length), source);
  } else if (p.time_share != sched::TimeSharePolicy::kNone) {
    out += "    Gavel args:\n";
    arg(out, "objective", p.time_share == sched::TimeSharePolicy::kMaxMin ? "MaxMin" : "FinishTimeFairness", "MaxMin", source);
    arg(out, "heterogeneityAware", p.heterogeneity_aware ? "true" : "false", "true", source);
    arg(out, "roundLengthSeconds", seconds(p.round_length), seconds(d.round_length), source);
  }
  if (p.gang_permit) {
    out += "    Coscheduling args:\n";
    arg(out, "permitWaitingTimeSeconds", seconds(p.gang_timeout), seconds(d.gang_timeout), source);
    arg(out, "deniedPGExpirationTimeSeconds", seconds(p.gang_denied_backoff), seconds(d.gang_denied_backoff), source);
  }
  return out;
}

}  // namespace gpusim::config
