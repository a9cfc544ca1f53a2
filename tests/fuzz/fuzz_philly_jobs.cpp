// Fuzz target: the Philly job-log reader. Bad input may only throw core::InputError; an accepted log
// must give pods that replay can use: 1..8 GPUs each (8 GPUs per node, as the bundled Philly-like
// cluster: larger jobs become gangs), whole GPUs, times from 0, a queue that exists, and gangs of at
// least two consecutive workers.
#include <cstdlib>
#include <sstream>

#include "sim/core/status.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "traces/philly_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  std::istringstream in(fuzz::as_text(data, size));
  try {
    const traces::Workload w = traces::read_philly_jobs(in, "fuzz-philly.csv", 8);
    const auto check = [](bool ok) {
      if (!ok) std::abort();
    };
    check(!w.pods.empty() && w.has_times && !w.queues.empty());
    std::uint32_t last_gang = 0;
    std::size_t workers = 0;
    for (const auto& pod : w.pods) {
      check(pod.gpu_count >= 1 && pod.gpu_count <= 8 && pod.gpu_milli == cluster::kMilliPerGpu);
      check(pod.creation_time && pod.creation_time->micros() >= 0 && pod.duration && pod.duration->micros() >= 0);
      check(pod.queue < w.queues.size());
      if (pod.gang != last_gang) {
        check(last_gang == 0 || workers >= 2);  // a finished gang had two workers or more
        check(pod.gang == 0 || pod.gang == last_gang + 1 || last_gang == 0);
        workers = 0;
      }
      if (pod.gang != 0) ++workers;
      if (pod.gang != 0) last_gang = pod.gang;
      else last_gang = 0;
    }
    check(last_gang == 0 || workers >= 2);
  } catch (const core::InputError&) {
  }
  return 0;
}
