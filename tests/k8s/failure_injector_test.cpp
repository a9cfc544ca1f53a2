// The random GPU-failure process is drawn up front but fed to the queue one event per GPU
// (sim/k8s/failure_injector.hpp): the messages must be those of publishing every failure and
// repair up front, in the same order, ties included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

#include "sim/core/rng.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/failure_injector.hpp"

namespace gpusim::k8s {
namespace {

struct Seen {
  std::int64_t at_us;
  std::uint32_t node;
  int gpu;
  std::int64_t xid;
  bool operator==(const Seen&) const = default;
};

class GpuEventLog final : public Component {
 public:
  void on_message(const Message& message, core::Time now) override {
    for (int g = 0; g < 64; ++g) {
      if (message.gpus.contains(g)) seen.push_back({now.micros(), message.node, g, message.value});
    }
  }
  std::vector<Seen> seen;
};

// At the first GPU event, publishes one message at a later instant (a reply set up long before).
class LaterReply final : public Component {
 public:
  LaterReply(Bus& bus, core::Time at) : bus_(bus), at_(at) {}
  void on_message(const Message&, core::Time) override {
    if (sent_) return;
    sent_ = true;
    Message reply;
    reply.topic = Topic::kGpuEvent;
    reply.node = 99;
    reply.gpus.add(0);
    reply.value = 1;
    bus_.publish(reply, at_);
  }

 private:
  Bus& bus_;
  core::Time at_;
  bool sent_ = false;
};

TEST(FailureInjector, FeedsTheQueueInTheOrderOfPublishingEverythingUpFront) {
  const cluster::GpuCatalog catalog =
      cluster::GpuCatalog::from_models({{"v100", "V100", {"V100"}, 32768, 0, 0, 0, 0, ""}});
  std::vector<cluster::NodeSpec> nodes;
  for (int n = 0; n < 6; ++n) nodes.push_back({"n" + std::to_string(n), 8000, 65536, n == 2 ? 0 : 1 + n % 4, 0, {}, {}});
  KubeSettings settings;
  settings.mtbf_hours = 3;
  settings.random_failure_xid = 79;
  settings.repair_time = core::Time::from_seconds(1800);
  std::vector<cluster::PodSpec> pods(1);
  pods[0].duration = core::Time::from_seconds(200 * 3600);
  WorkloadTimes times;
  times.arrival = {core::Time::zero()};
  times.deadline = {core::Time::zero()};

  // The process as documented: one stream, node by node, GPU by GPU, each failure then its repair.
  struct Drawn {
    Seen event;
    std::size_t order;
  };
  std::vector<Drawn> expected;
  core::Rng rng = core::Rng::stream(7, "gpu-failures");
  const double horizon = 200 * 3600 * 1e6;
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    for (int g = 0; g < nodes[n].gpu_count; ++g) {
      double at = 0;
      while (true) {
        at += -std::log(1.0 - rng.uniform_unit()) * 3 * 3600 * 1e6;
        if (at > horizon) break;
        const auto when = static_cast<std::int64_t>(at);
        expected.push_back({{when, n, g, 79}, expected.size()});
        expected.push_back({{when + 1800 * 1'000'000LL, n, g, 0}, expected.size()});
        at += 1800 * 1e6;
      }
    }
  }
  ASSERT_GT(expected.size(), 1000U);
  // A listed failure at the instant of the first random one comes before it (published first).
  const Seen listed{expected.front().event.at_us, 5, 0, 48};
  settings.gpu_failures.push_back({core::Time::from_micros(listed.at_us), listed.node, listed.gpu, 48});
  std::stable_sort(expected.begin(), expected.end(),
                   [](const Drawn& a, const Drawn& b) { return a.event.at_us < b.event.at_us; });

  // The earliest event's GPU fails again at `again`, an event the injector sets only once that
  // GPU is repaired, long after the reply to the earliest event was published for `again`. Up
  // front, the failure was published first, so it must come first.
  const Seen earliest = expected.front().event;
  const auto again = std::find_if(expected.begin() + 2, expected.end(), [&](const Drawn& d) {
    return d.event.node == earliest.node && d.event.gpu == earliest.gpu && d.event.xid != 0;
  });
  ASSERT_NE(again, expected.end());
  const Seen reply{again->event.at_us, 99, 0, 1};

  Bus bus;
  GpuEventLog log;
  LaterReply replier(bus, core::Time::from_micros(reply.at_us));
  bus.subscribe(Topic::kGpuEvent, log);
  bus.subscribe(Topic::kGpuEvent, replier);
  const FailureInjector injector(bus, settings, catalog, nodes, times, pods, 7);
  bus.run();

  // The listed failure was published before the random process, so it comes first at its instant.
  // The reply comes after every event of its instant.
  std::vector<Seen> want;
  for (const Drawn& d : expected) {
    if (d.event.at_us > reply.at_us && !want.empty() && want.back().at_us <= reply.at_us) want.push_back(reply);
    if (d.event.at_us == listed.at_us && d.order == 0) want.push_back(listed);
    want.push_back(d.event);
  }
  ASSERT_EQ(log.seen.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_TRUE(log.seen[i] == want[i]) << "message " << i << ": at " << log.seen[i].at_us << " us, node "
                                        << log.seen[i].node << " GPU " << log.seen[i].gpu << "; expected at "
                                        << want[i].at_us << " us, node " << want[i].node << " GPU " << want[i].gpu;
  }
  EXPECT_EQ(injector.gpu_failures(), static_cast<std::int64_t>(expected.size() / 2 + 1));
}

}  // namespace
}  // namespace gpusim::k8s
