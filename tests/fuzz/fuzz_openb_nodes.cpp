// Fuzz target: the openb node-list reader. Bad input may only throw core::InputError; a node list
// it accepts must also build a valid cluster state.
#include <sstream>

#include "sim/cluster/cluster_state.hpp"
#include "sim/core/status.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "traces/openb_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  std::istringstream in(fuzz::as_text(data, size));
  try {
    traces::ClusterSpec spec = traces::read_openb_nodes(in, "fuzz-nodes.csv", fuzz::bundled_catalog());
    const cluster::ClusterState state(fuzz::bundled_catalog(), std::move(spec.nodes));
    state.check_invariants();
  } catch (const core::InputError&) {
  }
  return 0;
}
