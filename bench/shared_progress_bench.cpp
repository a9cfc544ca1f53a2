// The cost of one change on a shared GPU (a pod arrives, then leaves) with k pods already on it,
// in a cluster of n GPUs: it should grow with k and not with n.
#include <benchmark/benchmark.h>

#include "sim/k8s/shared_progress.hpp"

namespace {

using namespace gpusim;

void BM_SharedRateChange(benchmark::State& state) {
  const auto pods_on_gpu = static_cast<std::uint32_t>(state.range(0));
  const auto gpus = static_cast<std::size_t>(state.range(1));
  k8s::SharedProgress progress{std::vector<k8s::SharedGpuModel>(gpus)};
  const std::vector<std::uint32_t> gpu0 = {0};
  core::Time now = core::Time::zero();
  for (std::uint32_t p = 0; p < pods_on_gpu; ++p) progress.add(p, gpu0, 0.3, 1e12, false, now);
  for (auto _ : state) {
    now = now + core::Time::from_micros(1000);
    progress.add(pods_on_gpu, gpu0, 0.5, 1e9, false, now);
    benchmark::DoNotOptimize(progress.moved().data());
    now = now + core::Time::from_micros(1000);
    progress.remove(pods_on_gpu, now);
  }
  state.SetLabel("one arrival and one departure");
}
BENCHMARK(BM_SharedRateChange)->Args({1, 8})->Args({8, 8})->Args({32, 8})->Args({8, 8192})->Unit(benchmark::kMicrosecond);

}  // namespace
