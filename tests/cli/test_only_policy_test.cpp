// A policy defined only here, in the test: a score plugin with an arg, registered by the test and
// named in a KubeSchedulerConfiguration, runs through the command line's own code path
// (app::run_simulate, as main calls it) with nothing added under sim/. Its score puts every pod on
// its `favourite` node, so the placements show that the plugin ran and got its arg.
#include <gtest/gtest.h>

#include <fstream>

#include "policies/register_builtin.hpp"
#include "sim/core/status.hpp"
#include "tests/cli/run_gpusim.hpp"
#include "tests/cli/run_in_process.hpp"

namespace gpusim::testing {
namespace {

struct FavouriteArgs final : sched::PluginArgs {
  std::int64_t favourite = 0;
  std::vector<sched::ArgLine> describe() const override { return {{"favourite", std::to_string(favourite), favourite == 0}}; }
};

class FavouriteNode final : public sched::ScorePlugin {
 public:
  explicit FavouriteNode(std::int64_t favourite) : favourite_(favourite) {}
  std::string_view name() const override { return "favourite-node"; }
  std::int64_t score(const sched::PodSpec&, sched::NodeIndex n, const sched::ClusterState&, sched::CycleState&) override {
    return static_cast<std::int64_t>(n) == favourite_ ? sched::kMaxNodeScore : 0;
  }

 private:
  std::int64_t favourite_;
};

sched::Registry registry_with_favourite() {
  sched::Registry registry = policy::builtin_registry();
  registry.add(
      "favourite-node",
      [](const sched::PluginContext& c) { return std::make_unique<FavouriteNode>(dynamic_cast<const FavouriteArgs&>(*c.args).favourite); },
      [](const YAML::Node& args, const io::YamlFields& fields, const std::string& field) {
        auto out = std::make_shared<FavouriteArgs>();
        if (args.IsDefined() && !args.IsNull()) {
          fields.only(args, field, {"favourite"});
          if (args["favourite"]) out->favourite = fields.integer(args["favourite"], field + ".favourite", 0, 1000);
        }
        return std::shared_ptr<const sched::PluginArgs>(out);
      });
  return registry;
}

TEST(TestOnlyPolicy, PlugsInThroughTheCommandLinesCodePath) {
  const auto dir = fresh_dir("test_only_policy");
  std::ofstream(dir / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,8,v100-sxm2-16gb\n"
                                      "n1,64000,262144,8,v100-sxm2-16gb\nn2,64000,262144,8,v100-sxm2-16gb\n";
  std::ofstream(dir / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-01 00:00:00,100.0,1,100.0,vc\n"
                                     "2017-10-01 00:00:10,100.0,2,200.0,vc\n2017-10-01 00:00:20,100.0,1,100.0,vc\n";
  std::ofstream(dir / "favourite.yaml") << R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: favourite
  plugins:
    score:
      disabled: [{name: '*'}]
      enabled: [{name: favourite-node, weight: 1}]
  pluginConfig:
  - name: favourite-node
    args: {favourite: 2}
)";
  const auto in = [&](const char* file) { return (dir / file).string(); };
  const int code = run_as_main({"--workload", in("jobs.csv"), "--cluster", in("nodes.csv"), "--mode", "replay", "--policy",
                                in("favourite.yaml"), "--out", in("out"), "--quiet"},
                               registry_with_favourite());
  ASSERT_EQ(code, 0);
  const std::string pods = slurp(dir / "out" / "pods.csv");
  // Every pod on n2, the plugin's arg; least-allocated alone would have spread them over n0 and n1.
  std::size_t on_n2 = 0;
  for (std::size_t at = pods.find(",n2,"); at != std::string::npos; at = pods.find(",n2,", at + 1)) ++on_n2;
  EXPECT_EQ(on_n2, 3U) << pods;
  // The binary's own registry does not know the plugin: the same file is refused, naming it.
  EXPECT_THROW(run_as_main({"--workload", in("jobs.csv"), "--cluster", in("nodes.csv"), "--mode", "replay", "--policy",
                            in("favourite.yaml"), "--out", in("out2")},
                           policy::builtin_registry()),
               core::InputError);
}

}  // namespace
}  // namespace gpusim::testing
