#pragma once
// The --kube pools' `labels`, set on the pool's nodes before anything reads them, as
// `kubectl label node` would: a device-plugin ConfigMap's config is chosen by a node label, and
// CSV clusters (openb) have no such labels of their own.
#include <vector>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/node.hpp"
#include "sim/k8s/settings.hpp"

namespace gpusim::k8s {

// Each node gets the labels of the first pool that matches it (the pool resolve_node_setup gives
// it). A label the node already has with another value is refused, as kubectl refuses it without
// --overwrite. Throws core::InputError, also for a pool naming an unknown GPU model.
void label_pool_nodes(const KubeSettings& settings, const cluster::GpuCatalog& catalog, std::vector<cluster::NodeSpec>& nodes);

}  // namespace gpusim::k8s
