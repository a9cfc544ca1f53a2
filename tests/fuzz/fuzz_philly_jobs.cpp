// Fuzz target: the Philly job-log reader. Bad input may only throw core::InputError.
#include <sstream>

#include "sim/core/status.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "traces/philly_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  std::istringstream in(fuzz::as_text(data, size));
  try {
    // 8 GPUs per node, as the bundled Philly-like cluster: larger jobs become gangs.
    traces::read_philly_jobs(in, "fuzz-philly.csv", 8);
  } catch (const core::InputError&) {
  }
  return 0;
}
