#pragma once
// Which device-plugin model, device choice and topology each node gets: what its Node object's
// gpusim annotations say (manifests), else the first pool of the settings that matches it, else
// the settings' defaults.
#include <vector>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/node.hpp"
#include "sim/k8s/settings.hpp"
#include "sim/topology/topology.hpp"
#include "traces/workload.hpp"

namespace gpusim::k8s {

// Throws core::InputError for a pool naming an unknown GPU model or topology, or a topology
// whose GPU count differs from a node it matches.
std::vector<NodeSetup> resolve_node_setup(const KubeSettings& settings, const traces::ClusterSpec& cluster,
                                          const cluster::GpuCatalog& catalog, const topology::Library& topologies);

}  // namespace gpusim::k8s
