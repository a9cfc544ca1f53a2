#pragma once
// Names for the data bundled with gpusim, so users can write `--cluster openb` instead of a
// path. The data root is the repository checkout (compiled in), unless overridden.
#include <filesystem>
#include <string>
#include <vector>

namespace gpusim::traces {

// The checkout gpusim was built from; the CLI lets GPUSIM_DATA_DIR override it.
std::filesystem::path default_data_root();
// Where bundled data is read from: $GPUSIM_DATA_DIR when set, else default_data_root().
std::filesystem::path data_root();

// "openb" (GPU-node list, as the FGD paper), "openb:all" (all nodes) or a path.
std::filesystem::path resolve_cluster(const std::string& name_or_path, const std::filesystem::path& root);
// "philly" (the Philly-like cluster of traces/data/philly) and "philly-gavel" (its machines with
// Gavel's K80, P100 and V100 GPUs, traces/data/gavel) are cluster names too.
// "openb:default", "openb:gpushare40", ..., "philly" (Microsoft's Philly job log), "dlrm"
// (Alibaba's DLRM serving instances, 2025) or a path. "dlrm" is a cluster name too (a documented
// CN/HN fleet for that trace, traces/data/dlrm).
std::filesystem::path resolve_workload(const std::string& name_or_path, const std::filesystem::path& root);
// The cluster a bundled workload runs on when --cluster is not given: "philly" for the Philly job
// log, "dlrm" for the DLRM trace, "openb" otherwise (files: traces/read_workload.hpp).
std::string default_cluster_for(const std::string& workload);
// Whether `name` is a bundled workload's name rather than a path.
bool is_bundled_workload(const std::string& name);
// The bundled GPU catalog.
std::filesystem::path default_catalog(const std::filesystem::path& root);
// The openb pod-list variants that are bundled, in a fixed order.
std::vector<std::string> openb_variants();

}  // namespace gpusim::traces
