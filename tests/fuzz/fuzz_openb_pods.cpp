// Fuzz target: the openb pod-list reader. Bad input may only throw core::InputError.
#include <sstream>

#include "sim/core/status.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "traces/openb_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  std::istringstream in(fuzz::as_text(data, size));
  try {
    traces::read_openb_pods(in, "fuzz-pods.csv", fuzz::bundled_catalog());
  } catch (const core::InputError&) {
  }
  return 0;
}
