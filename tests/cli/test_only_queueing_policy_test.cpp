// A queueing policy defined only here, in the test: a queueAdmission plugin (sim/k8s/
// queueing_plugin.hpp) with an arg, registered by the test and named in a KubeSchedulerConfiguration,
// runs through the command line's own code path (app::run_simulate, as main calls it) with nothing
// added under sim/ or policies/. It walks the queue by GPUs asked, largest first (or smallest, its
// `order` arg), so which pods start when a node frees shows that the plugin ran and got its arg.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "policies/register_builtin.hpp"
#include "sim/core/status.hpp"
#include "sim/k8s/queueing_plugin.hpp"
#include "tests/cli/run_gpusim.hpp"
#include "tests/cli/run_in_process.hpp"

namespace gpusim::testing {
namespace {

struct OrderArgs final : sched::PluginArgs {
  bool largest_first = true;
  std::vector<sched::ArgLine> describe() const override {
    return {{"order", largest_first ? "LargestFirst" : "SmallestFirst", largest_first}};
  }
};

class BySize final : public k8s::QueueingPlugin {
 public:
  explicit BySize(bool largest_first) : largest_first_(largest_first) {}
  std::string_view name() const override { return "by-size"; }
  void attach(k8s::SchedulerHandle& handle) override { h_ = &handle; }

  // Every pending pod in GPU order (ties: queue order), each placed if it fits now.
  bool run_cycle(core::Time now) override {
    std::vector<k8s::PodId>& pending = h_->pending();
    std::vector<k8s::PodId> order = pending;
    std::stable_sort(order.begin(), order.end(), [&](k8s::PodId a, k8s::PodId b) {
      const int ga = h_->spec_of(a).gpu_count, gb = h_->spec_of(b).gpu_count;
      return largest_first_ ? ga > gb : ga < gb;
    });
    for (const k8s::PodId id : order) {
      if (h_->place(id, h_->spec_of(id), now)) std::erase(pending, id);
    }
    return true;
  }

 private:
  bool largest_first_;
  k8s::SchedulerHandle* h_ = nullptr;
};

sched::Registry registry_with_by_size() {
  sched::Registry registry = policy::builtin_registry();
  registry.add_queueing(
      "by-size",
      [](const sched::PluginContext& c) { return std::make_unique<BySize>(dynamic_cast<const OrderArgs&>(*c.args).largest_first); },
      [](const YAML::Node& args, const io::YamlFields& fields, const std::string& field) {
        auto out = std::make_shared<OrderArgs>();
        if (args.IsDefined() && !args.IsNull()) {
          fields.only(args, field, {"order"});
          if (args["order"]) {
            const std::string order = fields.text(args["order"], field + ".order");
            if (order != "LargestFirst" && order != "SmallestFirst") {
              fields.fail(args["order"], field + ".order", "expected LargestFirst or SmallestFirst");
            }
            out->largest_first = order == "LargestFirst";
          }
        }
        return std::shared_ptr<const sched::PluginArgs>(out);
      });
  return registry;
}

TEST(TestOnlyQueueingPolicy, PlugsInAtQueueAdmissionThroughTheCommandLinesCodePath) {
  const auto dir = fresh_dir("test_only_queueing_policy");
  // One node of 4 GPUs, full until 100 s; then 1, 4 and 2 GPUs wait, in that order.
  std::ofstream(dir / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,v100-sxm2-16gb\n";
  std::ofstream(dir / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                     "2017-10-01 00:00:00,100.0,4,400.0,vc\n2017-10-01 00:00:10,100.0,1,100.0,vc\n"
                                     "2017-10-01 00:00:20,100.0,4,400.0,vc\n2017-10-01 00:00:30,100.0,2,200.0,vc\n";
  for (const bool largest : {true, false}) {
    const std::string name = largest ? "largest" : "smallest";
    std::ofstream(dir / (name + ".yaml")) << "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                                             "profiles:\n- schedulerName: " << name << R"(
  plugins:
    queueAdmission:
      enabled: [{name: by-size}]
  pluginConfig:
  - name: by-size
    args: {order: )" << (largest ? "LargestFirst" : "SmallestFirst") << "}\n";
    const auto in = [&](const std::string& file) { return (dir / file).string(); };
    ASSERT_EQ(run_as_main({"--workload", in("jobs.csv"), "--cluster", in("nodes.csv"), "--mode", "replay", "--policy",
                           in(name + ".yaml"), "--out", in("out-" + name), "--quiet"},
                          registry_with_by_size()),
              0);
    const auto pods = pods_by_name(dir / ("out-" + name) / "pods.csv");
    const auto start = [&](const char* pod) { return pods.at(pod).at("start_s"); };
    ASSERT_EQ(pods.size(), 4U);
    if (largest) {
      // At 100 s the 4-GPU job goes first and fills the node; the others wait for it.
      EXPECT_EQ(start("job-00002"), "100.000000");
      EXPECT_EQ(start("job-00001"), "200.000000");
      EXPECT_EQ(start("job-00003"), "200.000000");
    } else {
      // Smallest first: the 1- and 2-GPU jobs start at 100 s, the 4-GPU one when they end.
      EXPECT_EQ(start("job-00001"), "100.000000");
      EXPECT_EQ(start("job-00003"), "100.000000");
      EXPECT_EQ(start("job-00002"), "200.000000");
    }
  }
  // The binary's own registry does not know the plugin: the same file is refused.
  EXPECT_THROW(run_as_main({"--workload", (dir / "jobs.csv").string(), "--cluster", (dir / "nodes.csv").string(), "--mode",
                            "replay", "--policy", (dir / "largest.yaml").string(), "--out", (dir / "out2").string()},
                           policy::builtin_registry()),
               core::InputError);
}

// A test-only jobRank plugin that evicts: its PostFilter evicts the first pod bound (kEvictRequest
// kind 3: it keeps its work) for a pod that does not fit, once. The run must give it what the
// built-in job rankings get: pods' starts (pod_running), and kubelets that act on the eviction.
struct EvictionLog {
  int running = 0;
  int asked = 0;
};

class EvictFirst final : public k8s::QueueingPlugin {
 public:
  explicit EvictFirst(EvictionLog& log) : log_(log) {}
  std::string_view name() const override { return "evict-first"; }
  bool evicts() const override { return true; }
  void attach(k8s::SchedulerHandle& handle) override { h_ = &handle; }
  void pod_running(k8s::PodId, std::uint32_t, core::Time) override { ++log_.running; }
  void pod_bound(k8s::PodId id, const cluster::Placement&, core::Time) override {
    if (first_ == k8s::kNoPod) first_ = id;
  }
  bool post_filter(k8s::PodId, const cluster::PodSpec&, core::Time now) override {
    if (asked_ || first_ == k8s::kNoPod) return false;
    asked_ = true;
    ++log_.asked;
    h_->request_eviction(first_, 3, now);
    return true;
  }

 private:
  EvictionLog& log_;
  k8s::SchedulerHandle* h_ = nullptr;
  k8s::PodId first_ = k8s::kNoPod;
  bool asked_ = false;
};

TEST(TestOnlyQueueingPolicy, AJobRankPluginThatEvictsIsHeardByTheKubelets) {
  const auto dir = fresh_dir("test_only_job_rank");
  std::ofstream(dir / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,v100-sxm2-16gb\n";
  std::ofstream(dir / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                     "2017-10-01 00:00:00,100.0,4,400.0,vc\n2017-10-01 00:00:10,100.0,1,100.0,vc\n";
  std::ofstream(dir / "evict.yaml") << R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: evict-first
  plugins:
    multiPoint: {disabled: [{name: '*'}]}
    queueSort: {enabled: [{name: PrioritySort}]}
    filter: {enabled: [{name: NodeResourcesFit}]}
    bind: {enabled: [{name: DefaultBinder}]}
    jobRank: {enabled: [{name: evict-first}]}
)";
  EvictionLog log;
  sched::Registry registry = policy::builtin_registry();
  registry.add_queueing("evict-first", [&log](const sched::PluginContext&) { return std::make_unique<EvictFirst>(log); });
  const auto in = [&](const std::string& file) { return (dir / file).string(); };
  ASSERT_EQ(run_as_main({"--workload", in("jobs.csv"), "--cluster", in("nodes.csv"), "--mode", "replay", "--policy",
                         in("evict.yaml"), "--out", in("out"), "--quiet"},
                        registry),
            0);
  // The 1-GPU job arrives at 10 s to a full node: the plugin evicts the 4-GPU job, which the kubelet
  // stops, so the small job starts at once; the big one starts again after it.
  EXPECT_EQ(log.asked, 1);
  EXPECT_GE(log.running, 3);  // the big job, the small one, the big one again
  const auto pods = pods_by_name(dir / "out" / "pods.csv");
  const auto start = [&](const char* pod) { return pods.at(pod).at("start_s"); };
  EXPECT_EQ(start("job-00001"), "10.000000");
  // Fill mode has no queue over time: the plugin is refused there, not ignored.
  EXPECT_THROW(run_as_main({"--workload", in("jobs.csv"), "--cluster", in("nodes.csv"), "--mode", "fill", "--policy",
                            in("evict.yaml"), "--out", in("out-fill")},
                           registry),
               std::exception);
}

}  // namespace
}  // namespace gpusim::testing
