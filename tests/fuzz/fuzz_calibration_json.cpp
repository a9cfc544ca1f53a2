// Fuzz target: the calibration JSON reader, from the file's text as replays read it. A
// calibration it accepts also feeds the performance model, whose factors must then be finite and
// positive (a calibration for a model outside the catalog is an InputError there).
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>

#include "sim/core/status.hpp"
#include "sim/perf/calibration.hpp"
#include "sim/perf/performance_model.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  try {
    const auto& catalog = fuzz::bundled_catalog();
    // The loader replays use (PerformanceModel::load), JSON parsing included.
    const perf::Calibration c = perf::calibration_from_text(fuzz::as_text(data, size), "fuzz-calibration.json");
    const auto model = perf::PerformanceModel::from_calibrations(catalog, {c});
    const perf::JobProfile job{*catalog.find("V100M32"), 0.5, perf::Precision::kBf16};
    for (cluster::GpuModelId id = 0; id < catalog.size(); ++id) {
      for (const double factor : {model.time_factor(job, id), model.time_slice_factor(id, 3), model.spatial_share_factor(id, 3)}) {
        if (!std::isfinite(factor) || factor <= 0) std::abort();
      }
    }
  } catch (const core::InputError&) {
  }
  return 0;
}
