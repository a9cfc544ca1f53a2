// Fuzz target: the GPU catalog JSON reader. Bad input may only throw core::InputError.
#include "sim/core/status.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  try {
    const auto catalog = cluster::GpuCatalog::parse(fuzz::as_text(data, size), "fuzz-catalog.json");
    for (cluster::GpuModelId id = 0; id < catalog.size(); ++id) (void)catalog.find(catalog.at(id).id);
  } catch (const core::InputError&) {
  }
  return 0;
}
