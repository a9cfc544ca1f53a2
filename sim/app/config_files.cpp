#include "sim/app/config_files.hpp"

#include "sim/config/kube_scheduler_config.hpp"
#include "sim/k8s/plugin_config_files.hpp"

#include <fmt/format.h>

#include "sim/config/config_files.hpp"
#include "sim/config/retired_profile_yaml.hpp"
#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "traces/k8s/yaml_documents.hpp"

namespace gpusim::app {

ConfigFiles read_config_files(const std::vector<std::string>& files, const sched::Registry& registry) {
  ConfigFiles out;
  for (const std::string& file : files) {
    const std::string text = io::read_file(file, "--config file");
    const std::vector<YAML::Node> docs = traces::load_yaml_documents(text, file);
    YAML::Node first;
    for (const YAML::Node& doc : docs) {
      if (doc && !doc.IsNull()) {
        first = doc;
        break;
      }
    }
    std::vector<std::string> notes;
    // Other kinds are read elsewhere: KubeSchedulerConfigurations as policies, device plugins' files
    // into the Kubernetes layer's settings (sim/app/simulate_command.cpp).
    if (config::is_kube_scheduler_config(first) || k8s::plugin_config_kind(first) != k8s::PluginConfigKind::kNone) continue;
    if (k8s::kueue::is_kueue_file(first)) {
      if (!out.kueue) out.kueue = std::make_shared<k8s::kueue::Objects>();
      const std::size_t notes_before = out.kueue->notes.size();
      k8s::kueue::parse_kueue_objects(text, file, *out.kueue);
      out.kueue_files.push_back(file);
      notes.assign(out.kueue->notes.begin() + static_cast<std::ptrdiff_t>(notes_before), out.kueue->notes.end());
    } else if (k8s::kai::is_kai_file(first)) {
      if (!out.kai) out.kai = std::make_shared<k8s::kai::Queues>();
      const std::size_t notes_before = out.kai->notes.size();
      k8s::kai::parse_kai_queues(text, file, *out.kai);
      out.kai_files.push_back(file);
      notes.assign(out.kai->notes.begin() + static_cast<std::ptrdiff_t>(notes_before), out.kai->notes.end());
    } else if (k8s::is_volcano_scheduler_conf(first)) {
      out.schedulers.push_back({file, k8s::parse_volcano_scheduler_conf(text, file, &registry)});
      notes = out.schedulers.back().conf.notes;
    } else if (k8s::is_volcano_queue_list(first)) {
      if (out.queues) {
        throw core::InputError(fmt::format("{}: a second file of Volcano Queues (the first: {}); give every Queue in one",
                                           file, out.queues->file));
      }
      out.queues = k8s::parse_volcano_queue_list(text, file);
      notes = out.queues->notes;
    } else {
      if (config::is_retired_profile_yaml(first)) throw core::InputError(config::retired_profile_yaml_message(text, file, registry));
      if (const auto typo = config::unknown_field_of_nearest_kind(first, file)) throw core::InputError(*typo);
      throw core::InputError(fmt::format("{}: not a configuration gpusim reads: expected a KubeSchedulerConfiguration, "
                                         "Volcano's scheduler configuration (actions and tiers, or its ConfigMap), Volcano "
                                         "Queues (scheduling.volcano.sh/v1beta1), Kueue's objects, KAI's Queues "
                                         "(scheduling.run.ai/v2), NVIDIA's device-plugin or mig-parted config, or HAMi's "
                                         "values or ConfigMaps", file));
    }
    for (const std::string& note : notes) fmt::print(stderr, "gpusim: note: {}: {}\n", file, note);
  }
  if (out.kueue) k8s::kueue::check_kueue_references(*out.kueue);
  if (out.kai) k8s::kai::check_kai_queues(*out.kai);
  return out;
}

bool is_queueing_config_file(const std::string& file) {
  try {
    const std::string text = io::read_file(file, "--config file");
    for (const YAML::Node& doc : traces::load_yaml_documents(text, file)) {
      if (doc && !doc.IsNull()) return k8s::is_volcano_scheduler_conf(doc) || k8s::is_volcano_queue_list(doc) || k8s::kueue::is_kueue_file(doc) ||
                                             k8s::kai::is_kai_file(doc);
    }
  } catch (const core::InputError&) {
  } catch (const YAML::Exception&) {
  }
  return false;
}

}  // namespace gpusim::app
