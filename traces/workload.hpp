#pragma once
// What a trace reader produces: a cluster description and a list of pods, both in gpusim's own
// types, with the source they came from (for reports and manifests).
#include <string>
#include <vector>

#include "sim/cluster/node.hpp"
#include "sim/cluster/pod.hpp"

namespace gpusim::traces {

struct ClusterSpec {
  std::string source;  // path or bundled name
  std::vector<cluster::NodeSpec> nodes;
  int skipped_lines = 0;  // blank and comment lines in the file
};

struct Workload {
  std::string source;
  std::vector<cluster::PodSpec> pods;
  bool has_times = false;  // whether creation/deletion times were present
  int skipped_lines = 0;   // blank and comment lines in the file
};

}  // namespace gpusim::traces
