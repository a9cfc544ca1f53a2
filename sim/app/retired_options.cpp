#include "sim/app/retired_options.hpp"

#include <fmt/format.h>

#include "sim/app/simulate_command.hpp"
#include "sim/sched/profile.hpp"

#include <sstream>
#include <type_traits>
#include <vector>

namespace gpusim::app {
namespace {

// "3600,7200" as a YAML list; anything else as given (the reader then says what is wrong with it).
std::string yaml_list(const std::string& csv) { return "[" + csv + "]"; }
std::string or_default(const std::string& given, const char* fallback) { return given.empty() ? fallback : given; }

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream stream(list);
  for (std::string item; std::getline(stream, item, ',');) items.push_back(item);
  return items;
}

std::string how_to(const char* policy, const char* plugin, const std::string& args) {
  return fmt::format(
      "policy parameters are plugin args in a KubeSchedulerConfiguration now. Start from the built-in policy's file "
      "and give the profile a name of its own:\n"
      "  gpusim config show {0} > my-{0}.yaml      (then: schedulerName: my-{0})\n"
      "and set its args there:\n"
      "  pluginConfig:\n"
      "  - name: {1}\n"
      "    args: {2}\n"
      "then run it with --policy my-{0}.yaml (`gpusim policies --describe {0}` lists every arg and its default)",
      policy, plugin, args);
}

}  // namespace

void add_retired_policy_options(CLI::App& command, RetiredPolicyOptions& r) {
  const char* names[] = {"--tiresias-thresholds", "--tiresias-starvation", "--tiresias-queue-order", "--themis-fairness",
                         "--round-length",        "--gang-timeout",         "--gang-backoff",          "--queue-quotas"};
  std::string* values[] = {&r.tiresias_thresholds, &r.tiresias_starvation, &r.tiresias_queue_order, &r.themis_fairness,
                           &r.round_length,        &r.gang_timeout,        &r.gang_backoff,         &r.queue_quotas};
  static_assert(std::size(names) == std::extent_v<decltype(RetiredPolicyOptions::options)>);
  for (std::size_t i = 0; i < std::size(names); ++i) {
    r.options[i] = command.add_option(names[i], *values[i], "retired: see the message it gives")->group("");
  }
}

void refuse_retired_policy_options(const RetiredPolicyOptions& r, const std::string& policies) {
  const auto given = [&](std::size_t i) { return r.options[i] != nullptr && r.options[i]->count() > 0; };
  if (given(0) || given(1) || given(2)) {
    const std::string name = given(0) ? "--tiresias-thresholds" : given(1) ? "--tiresias-starvation" : "--tiresias-queue-order";
    const std::string order = r.tiresias_queue_order == "simulator" ? "Simulator" : "Creation";
    throw UsageError(fmt::format("{} is gone: {}", name,
                                 how_to("tiresias", "Tiresias",
                                        fmt::format("{{queueThresholdsGpuSeconds: {}, starvationKnob: {}, queueOrder: {}}}",
                                                    yaml_list(or_default(r.tiresias_thresholds, "3250,7200")),
                                                    or_default(r.tiresias_starvation, "0"), order))));
  }
  if (given(3)) {
    throw UsageError(fmt::format("--themis-fairness is gone: {}",
                                 how_to("themis", "Themis", fmt::format("{{fairness: {}, leaseSeconds: {}}}", r.themis_fairness,
                                                                        or_default(r.round_length, "360")))));
  }
  if (given(4)) {
    // The time-sharing policy the run names, else Gavel's max-min; its rounds are its plugin's arg.
    std::string policy = "gavel-maxmin";
    for (const char* name : {"gavel-maxmin", "gavel-ftf", "maxmin", "ftf", "themis"}) {
      for (const std::string& item : split_list(policies)) {
        if (sched::builtin_policy_name(item) == std::string(name)) policy = name;
      }
    }
    const char* objective = policy.ends_with("ftf") ? "FinishTimeFairness" : "MaxMin";
    const char* aware = policy.starts_with("gavel-") ? "true" : "false";
    const std::string args = policy == "themis"
                                 ? fmt::format("{{fairness: 0.8, leaseSeconds: {}}}", r.round_length)
                                 : fmt::format("{{objective: {}, heterogeneityAware: {}, roundLengthSeconds: {}}}", objective,
                                               aware, r.round_length);
    throw UsageError(fmt::format("--round-length is gone: {} (rounds last at least 60 s)",
                                 how_to(policy.c_str(), policy == "themis" ? "Themis" : "Gavel", args)));
  }
  if (given(5) || given(6)) {
    throw UsageError(fmt::format("{} is gone: {}", given(5) ? "--gang-timeout" : "--gang-backoff",
                                 how_to("gang", "Coscheduling",
                                        fmt::format("{{permitWaitingTimeSeconds: {}, deniedPGExpirationTimeSeconds: {}}}",
                                                    or_default(r.gang_timeout, "60"), or_default(r.gang_backoff, "20")))));
  }
  if (given(7)) {
    // gpusim's own quota YAML is gone: Volcano's Queue objects say the same (whole GPUs, as
    // Volcano's admission webhook takes nvidia.com/gpu).
    const std::string bundled =
        r.queue_quotas == "philly"
            ? "The bundled Philly quotas are Volcano Queues now: --config traces/queues/philly-capacity-queues.yaml "
              "(each virtual cluster deserves its share of the log's GPU-hours, in whole GPUs; weight 1 each).\n"
            : "";
    throw UsageError(fmt::format(
        "--queue-quotas is gone: queue quotas are Volcano Queue objects (scheduling.volcano.sh/v1beta1) given with "
        "--config, one per queue (several in one file, separated by ---).\n{}"
        "A Queue looks like this (one per queue of your file, with its values):\n"
        "  apiVersion: scheduling.volcano.sh/v1beta1\n"
        "  kind: Queue\n"
        "  metadata:\n"
        "    name: queue-name\n"
        "  spec:\n"
        "    weight: 1            # proportion's share (1..65535)\n"
        "    reclaimable: true\n"
        "    deserved: {{nvidia.com/gpu: 8}}     # capacity's deserved GPUs, whole GPUs\n"
        "    guarantee: {{resource: {{nvidia.com/gpu: 2}}}}\n"
        "    capability: {{nvidia.com/gpu: 16}}\n"
        "Every queue of the workload needs a Queue (Volcano leaves the jobs of a missing one pending); gpusim's "
        "'default:' entry has no counterpart. `gpusim config check FILE` validates the file",
        bundled));
  }
}

}  // namespace gpusim::app
