#include "sim/config/policy_plugin_args.hpp"

#include <fmt/format.h>

#include "sim/sched/names.hpp"

namespace gpusim::config {
namespace {

bool is(std::string_view name, std::string_view known) { return sched::name_key(name) == sched::name_key(known); }

core::Time seconds(const io::YamlFields& fields, const YAML::Node& node, const std::string& field, std::int64_t low) {
  return core::Time::from_seconds(fields.integer(node, field, low, 10'000'000));
}

// Tiresias (Gu et al., NSDI'19) as its simulator has it (SymbioticLab/Tiresias, simulator/jobs.py).
void read_tiresias(const io::YamlFields& f, const YAML::Node& args, const std::string& field, sched::Profile& profile) {
  f.only(args, field, {"queueThresholdsGpuSeconds", "starvationKnob", "queueOrder"});
  if (const YAML::Node list = args["queueThresholdsGpuSeconds"]) {
    const std::string at = field + ".queueThresholdsGpuSeconds";
    if (!list.IsSequence() || list.size() == 0) f.fail(list, at, "expected a list of GPU-seconds, increasing");
    std::vector<std::int64_t> thresholds;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::int64_t value = f.integer(list[i], fmt::format("{}[{}]", at, i), 1, 1'000'000'000'000);
      if (!thresholds.empty() && value <= thresholds.back()) {
        f.fail(list[i], fmt::format("{}[{}]", at, i), fmt::format("thresholds must increase ({} after {})", value, thresholds.back()));
      }
      thresholds.push_back(value);
    }
    profile.tiresias.thresholds_gpu_s = std::move(thresholds);
  }
  if (args["starvationKnob"]) profile.tiresias.starvation_knob = f.integer(args["starvationKnob"], field + ".starvationKnob", 0, 1000);
  if (const YAML::Node order = args["queueOrder"]) {
    const std::string value = f.text(order, field + ".queueOrder");
    if (value == "Creation") profile.tiresias.queue_order = sched::TiresiasQueueOrder::kCreation;
    else if (value == "Simulator") profile.tiresias.queue_order = sched::TiresiasQueueOrder::kSimulator;
    else f.fail(order, field + ".queueOrder", fmt::format("'{}': expected Creation or Simulator", value));
  }
}

// Gavel (Narayanan et al., OSDI'20): its policy's objective, whether the LP sees each job's speed
// on each GPU type (the *_perf policies), and the round length (its scheduler's default, 360 s).
void read_gavel(const io::YamlFields& f, const YAML::Node& args, const std::string& field, sched::Profile& profile) {
  f.only(args, field, {"objective", "heterogeneityAware", "roundLengthSeconds"});
  if (const YAML::Node objective = args["objective"]) {
    const std::string value = f.text(objective, field + ".objective");
    if (value == "MaxMin") profile.time_share = sched::TimeSharePolicy::kMaxMin;
    else if (value == "FinishTimeFairness") profile.time_share = sched::TimeSharePolicy::kFinishTimeFair;
    else f.fail(objective, field + ".objective", fmt::format("'{}': expected MaxMin or FinishTimeFairness", value));
  }
  if (args["heterogeneityAware"]) profile.heterogeneity_aware = f.boolean(args["heterogeneityAware"], field + ".heterogeneityAware");
  if (args["roundLengthSeconds"]) profile.round_length = seconds(f, args["roundLengthSeconds"], field + ".roundLengthSeconds", 60);
}

// Themis (Mahajan et al., NSDI'20), approximated: the fairness knob and the lease length.
void read_themis(const io::YamlFields& f, const YAML::Node& args, const std::string& field, sched::Profile& profile) {
  f.only(args, field, {"fairness", "leaseSeconds"});
  if (args["fairness"]) profile.themis_fairness = f.number(args["fairness"], field + ".fairness", 0, 0.999);
  if (args["leaseSeconds"]) profile.round_length = seconds(f, args["leaseSeconds"], field + ".leaseSeconds", 60);
}

// kubernetes-sigs/scheduler-plugins' CoschedulingArgs (apis/config/v1/types.go):
// permitWaitingTimeSeconds (default 60) and podGroupBackoffSeconds; gpusim's default backoff is the
// older deniedPGExpirationTimeSeconds' 20 s, which is read under that name too.
void read_coscheduling(const io::YamlFields& f, const YAML::Node& args, const std::string& field, sched::Profile& profile) {
  f.only(args, field, {"permitWaitingTimeSeconds", "podGroupBackoffSeconds", "deniedPGExpirationTimeSeconds"});
  if (args["permitWaitingTimeSeconds"]) {
    profile.gang_timeout = seconds(f, args["permitWaitingTimeSeconds"], field + ".permitWaitingTimeSeconds", 1);
  }
  if (args["deniedPGExpirationTimeSeconds"] && args["podGroupBackoffSeconds"]) {
    f.fail(args["podGroupBackoffSeconds"], field + ".podGroupBackoffSeconds",
           "give deniedPGExpirationTimeSeconds or podGroupBackoffSeconds, not both (gpusim has one backoff)");
  }
  for (const char* key : {"deniedPGExpirationTimeSeconds", "podGroupBackoffSeconds"}) {
    if (args[key]) profile.gang_denied_backoff = seconds(f, args[key], field + "." + key, 1);
  }
}

}  // namespace

bool is_policy_plugin_with_args(std::string_view name) {
  return is(name, "Tiresias") || is(name, "Gavel") || is(name, "Themis") || is(name, "Coscheduling");
}

void read_policy_args(const io::YamlFields& fields, std::string_view name, const YAML::Node& args, const std::string& field,
                      sched::Profile& profile) {
  if (!args.IsDefined() || args.IsNull()) return;
  if (!args.IsMap()) fields.fail(args, field, "expected a mapping of args");
  if (is(name, "Tiresias")) read_tiresias(fields, args, field, profile);
  else if (is(name, "Gavel")) read_gavel(fields, args, field, profile);
  else if (is(name, "Themis")) read_themis(fields, args, field, profile);
  else read_coscheduling(fields, args, field, profile);
}

}  // namespace gpusim::config
