#pragma once
// Policy parameters that were command-line options and are now plugin args in a
// KubeSchedulerConfiguration, and gpusim's own queue-quota file, now Volcano's Queue objects
// (issue 30). They are still parsed, hidden from --help, so that a user who gives one is told the
// configuration lines that replace it, with the values given.
#include <CLI/CLI.hpp>
#include <string>

namespace gpusim::app {

struct RetiredPolicyOptions {
  std::string tiresias_thresholds, tiresias_starvation, tiresias_queue_order;
  std::string themis_fairness, round_length, gang_timeout, gang_backoff;
  std::string queue_quotas;
  CLI::Option* options[8] = {};
};

void add_retired_policy_options(CLI::App& command, RetiredPolicyOptions& retired);
// Throws UsageError for the first one given, with the lines that replace it.
// `policies`: the run's --policy / --policies, whose policy the message starts from.
void refuse_retired_policy_options(const RetiredPolicyOptions& retired, const std::string& policies);

}  // namespace gpusim::app
