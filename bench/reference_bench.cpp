// A fixed CPU workload that has nothing to do with gpusim: the regression gate divides gpusim's
// times by it, so that a faster or slower machine (or a busy neighbour) moves both and the ratio
// stays put, while a slowdown in gpusim moves only the numerator (scripts/gate.sh).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {

void BM_ReferenceSort(benchmark::State& state) {
  std::vector<std::uint64_t> data(std::size_t{1} << 20);
  for (auto _ : state) {
    std::uint64_t x = 0x9E3779B97F4A7C15ULL;  // xorshift64: the same input every time
    for (auto& value : data) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      value = x;
    }
    std::sort(data.begin(), data.end());
    benchmark::DoNotOptimize(data.data());
  }
}
BENCHMARK(BM_ReferenceSort)->Unit(benchmark::kMillisecond);

}  // namespace
