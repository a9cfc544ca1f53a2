// The scheduling cycle allocates nothing once its tables have grown to their working size (issue
// 33): operator new is counted while a cycle runs, over thousands of cycles of a steady workload.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "policies/register_builtin.hpp"
#include "sim/config/profiles.hpp"
#include "sim/sched/framework.hpp"
#include "tests/scenario/test_cluster.hpp"

namespace {
// Counted only while the test sets it (this binary holds this test alone).
bool g_counting = false;
long g_allocations = 0;

void count_allocation() {
  if (g_counting) ++g_allocations;
  // ALLOC_ABORT=1: stop at the first counted allocation, for its backtrace in gdb.
  if (g_counting && std::getenv("ALLOC_ABORT") != nullptr) std::abort();
}
}  // namespace

// AddressSanitizer's runtime provides operator new itself and reports each allocation to a hook;
// elsewhere operator new is replaced. Both builds count. GCC says so with __SANITIZE_ADDRESS__,
// clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define GPUSIM_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUSIM_ADDRESS_SANITIZER 1
#endif
#endif
#ifdef GPUSIM_ADDRESS_SANITIZER
extern "C" void __sanitizer_malloc_hook(const volatile void*, std::size_t) { count_allocation(); }
#else
void* operator new(std::size_t size) {
  count_allocation();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace gpusim::testing {
namespace {

TEST(NoAllocation, SteadySchedulingCyclesAllocateNothing) {
  // The counter sees an allocation (the replacement is the one linked).
  g_allocations = 0;
  g_counting = true;
  auto probe = std::make_unique<std::vector<int>>(3);
  g_counting = false;
  ASSERT_EQ(g_allocations, 2) << "the vector and its elements";
  probe.reset();
  const cluster::GpuCatalog catalog = two_model_catalog();
  std::vector<cluster::NodeSpec> nodes;
  for (int i = 0; i < 60; ++i) {
    nodes.push_back({"n" + std::to_string(i), 16000 + 8000 * (i % 4), 65536, 1 + i % 8,
                     static_cast<cluster::GpuModelId>(i % 3 == 0 ? 1 : 0), {}, {}});
  }
  const sched::Registry registry = policy::builtin_registry();
  for (const char* profile_name : {"fgd", "fifo", "bestfit", "gpu-packing", "dotprod", "kube-default", "tiresias"}) {
    cluster::ClusterState state(catalog, nodes);
    std::vector<cluster::PodSpec> workload;
    for (int s = 0; s < 12; ++s) {
      const std::int32_t milli = s % 4 == 3 ? 0 : s % 2 == 0 ? 1000 : 100 + 80 * s;
      workload.push_back(pod(1000 * (1 + s % 5), milli == 0 ? 0 : milli < 1000 ? 1 : 1 + s % 3, milli));
    }
    const sched::PluginContext context{&catalog, workload, 7, state.node_count()};
    sched::Framework framework(config::builtin_profile(profile_name), registry, context, state);
    std::mt19937 rng(5);
    std::vector<std::pair<cluster::PodSpec, cluster::Placement>> running;
    running.reserve(100000);
    long counted_cycles = 0;
    for (int cycle = 0; cycle < 6000; ++cycle) {
      if (!running.empty() && rng() % 2 == 0) {
        const std::size_t victim = rng() % running.size();
        framework.release(running[victim].first, running[victim].second);
        running[victim] = running.back();
        running.pop_back();
        continue;
      }
      const cluster::PodSpec& p = workload[rng() % workload.size()];
      const bool count = cycle >= 3000;  // the first half grows the tables
      g_allocations = 0;
      g_counting = count;
      const auto placed = framework.schedule(p);
      g_counting = false;
      if (count) {
        ++counted_cycles;
        EXPECT_EQ(g_allocations, 0) << profile_name << " cycle " << cycle;
        if (g_allocations != 0) break;
      }
      if (placed) running.emplace_back(p, *placed);
    }
    EXPECT_GT(counted_cycles, 1000) << profile_name;
  }
}

}  // namespace
}  // namespace gpusim::testing
