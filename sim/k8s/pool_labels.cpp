#include "sim/k8s/pool_labels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "sim/core/status.hpp"

namespace gpusim::k8s {

void label_pool_nodes(const KubeSettings& settings, const cluster::GpuCatalog& catalog, std::vector<cluster::NodeSpec>& nodes) {
  const bool any = std::any_of(settings.pools.begin(), settings.pools.end(), [](const NodePool& p) { return !p.labels.empty(); });
  if (!any) return;
  std::vector<std::optional<cluster::GpuModelId>> models;
  for (const NodePool& pool : settings.pools) {
    std::optional<cluster::GpuModelId> model;
    if (!pool.match.gpu_model.empty()) {
      model = catalog.find(pool.match.gpu_model);
      if (!model) {
        throw core::InputError(fmt::format("pool {}: unknown GPU model '{}' (catalog ids: {})", pool.name,
                                           pool.match.gpu_model, catalog.ids()));
      }
    }
    models.push_back(model);
  }
  for (cluster::NodeSpec& node : nodes) {
    for (std::size_t p = 0; p < settings.pools.size(); ++p) {
      const NodePool& pool = settings.pools[p];
      // The same test as resolve_node_setup's.
      const bool name_ok = node.name.starts_with(pool.match.name_prefix);
      const bool model_ok = !models[p] || (node.gpu_count > 0 && node.gpu_model == *models[p]);
      if (!name_ok || !model_ok) continue;
      for (const auto& label : pool.labels) {
        auto own = std::find_if(node.labels.begin(), node.labels.end(), [&](const auto& l) { return l.first == label.first; });
        if (own == node.labels.end()) {
          node.labels.push_back(label);
        } else if (own->second != label.second) {
          throw core::InputError(fmt::format("node {}: pool {} labels it {}={}, but the node has {}={} (kubectl label "
                                             "would refuse it without --overwrite)",
                                             node.name, pool.name, label.first, label.second, label.first, own->second));
        }
      }
      break;
    }
  }
}

}  // namespace gpusim::k8s
