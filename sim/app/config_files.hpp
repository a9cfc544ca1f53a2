#pragma once
// `--config FILE` (run, compare; repeatable): configuration files in the formats the projects
// gpusim models write, told apart by their content, not their names. Read today: Volcano's
// scheduler configuration (bare, or its ConfigMap; sim/k8s/volcano_scheduler_conf.hpp), which
// adds a policy, and Volcano's Queue objects (sim/k8s/volcano_queues.hpp), which give the queue
// quotas of the policies proportion and capacity; Kueue's objects (sim/k8s/kueue_objects.hpp), which
// the policy kueue admits by.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/k8s/kai_queues.hpp"
#include "sim/k8s/kueue_objects.hpp"
#include "sim/k8s/volcano_queues.hpp"
#include "sim/k8s/volcano_scheduler_conf.hpp"
#include "sim/sched/registry.hpp"

namespace gpusim::app {

struct ConfigFiles {
  struct Scheduler {
    std::string file;
    k8s::VolcanoSchedulerConf conf;
  };
  std::vector<Scheduler> schedulers;  // in the order given
  std::optional<k8s::VolcanoQueueList> queues;
  // Kueue's objects, from every file that holds them (their references checked across the files).
  std::shared_ptr<k8s::kueue::Objects> kueue;
  std::vector<std::string> kueue_files;
  // KAI's Queues (sim/k8s/kai_queues.hpp), which the policy kai schedules by.
  std::shared_ptr<k8s::kai::Queues> kai;
  std::vector<std::string> kai_files;
};

// Reads every file (each must exist and be of a kind gpusim reads; at most one Queue file) and
// prints their notes on stderr. Throws core::InputError.
ConfigFiles read_config_files(const std::vector<std::string>& files, const sched::Registry& registry);
// Whether a --config file is Volcano's or Kueue's (false when it cannot be read: its reader says why).
bool is_queueing_config_file(const std::string& file);

}  // namespace gpusim::app
