// Fuzz target: Gavel's throughput table reader and the job-type draw over it. Bad input may only
// throw core::InputError.
#include <cstdlib>

#include "sim/core/status.hpp"
#include "sim/perf/job_type_speeds.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "traces/gavel_table.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  try {
    auto table = traces::parse_gavel_throughputs(fuzz::as_text(data, size), "fuzz-throughputs.json");
    const perf::JobTypeSpeeds speeds(std::move(table), fuzz::bundled_catalog());
    std::vector<cluster::NodeSpec> nodes;
    for (const char* id : {"k80", "p100-pcie-16gb", "v100-pcie"}) {
      nodes.push_back({id, 1000, 1000, 8, *fuzz::bundled_catalog().find(id), {}, {}, false});
    }
    std::vector<cluster::PodSpec> pods(3);
    pods[0].gpu_count = 1;
    pods[1].gpu_count = 4;
    pods[2].gpu_count = 8;
    pods[2].gang = 1;
    speeds.assign(pods, nodes, 7);
    for (const cluster::PodSpec& pod : pods) {
      for (cluster::GpuModelId model = 0; model < fuzz::bundled_catalog().size(); ++model) {
        if (speeds.worker_type_of(model)) (void)speeds.time_factor(pod, model);
      }
    }
    // Every pair of the drawn jobs, on every GPU type, placed either way: a pair speed is in [0, 1].
    for (const cluster::PodSpec& a : pods) {
      for (const cluster::PodSpec& b : pods) {
        for (std::size_t worker = 0; worker < traces::kGavelWorkerTypes.size(); ++worker) {
          for (const bool spread : {false, true}) {
            const double v = speeds.colocated_speed(speeds.pair_class(a, worker, spread), speeds.pair_class(b, worker, spread));
            if (!(v >= 0 && v <= 1)) std::abort();
          }
        }
      }
    }
  } catch (const core::InputError&) {
  }
  return 0;
}
