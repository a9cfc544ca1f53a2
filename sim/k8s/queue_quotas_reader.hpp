#pragma once
// Reads per-queue quotas (sim/k8s/queue_quotas.hpp) from YAML (format in policies/README.md):
//   queues:
//     vc1: {deserved: 96, guarantee: 16, capability: 400, weight: 2, reclaimable: true}
//   default: {weight: 1}        # optional: every queue the file does not name
// GPU amounts may have up to three decimals. Errors name the file, the line and the field.
#include <filesystem>
#include <string>
#include <vector>

#include "sim/k8s/queue_quotas.hpp"

namespace gpusim::k8s {

// `queue_names`: the workload's queues (Workload::queues); every queue named must be one of them.
QueueQuotas load_queue_quotas(const std::filesystem::path& path, const std::vector<std::string>& queue_names);
QueueQuotas parse_queue_quotas(const std::string& text, const std::string& source, const std::vector<std::string>& queue_names);
// Every queue with the defaults (weight 1, nothing else): policy proportion without a file.
QueueQuotas default_queue_quotas(std::size_t queues);

}  // namespace gpusim::k8s
