// The plugin-args mechanism (sim/sched/plugin_args.hpp): a plugin registered with an args reader
// gets the profile's args when the framework builds it, else the reader's defaults; a plugin
// without a reader gets none. The plugin here is defined only in this test: its score is its
// `bonus` arg on node n1 and 0 elsewhere, so the node the framework picks shows which args it got.
#include <gtest/gtest.h>

#include "sim/config/profiles.hpp"
#include "sim/core/status.hpp"
#include "tests/scenario/test_cluster.hpp"

namespace gpusim {
namespace {

struct BonusArgs final : sched::PluginArgs {
  std::int64_t bonus = 0;  // default: no bonus
  bool given = false;
  std::vector<sched::ArgLine> describe() const override { return {{"bonus", std::to_string(bonus), !given}}; }
};

class BonusScore final : public sched::ScorePlugin {
 public:
  explicit BonusScore(const BonusArgs* args) : bonus_(args == nullptr ? -1 : args->bonus) {}
  std::string_view name() const override { return "bonus"; }
  std::int64_t score(const sched::PodSpec&, sched::NodeIndex n, const sched::ClusterState&, sched::CycleState&) override {
    return n == 1 ? bonus_ : 50;
  }

 private:
  std::int64_t bonus_;
};

std::shared_ptr<const sched::PluginArgs> read_bonus(const YAML::Node& args, const io::YamlFields& fields,
                                                    const std::string& field) {
  auto out = std::make_shared<BonusArgs>();
  if (args.IsDefined() && !args.IsNull()) {
    fields.only(args, field, {"bonus"});
    if (args["bonus"]) {
      out->bonus = fields.integer(args["bonus"], field + ".bonus", 0, 100);
      out->given = true;
    }
  }
  return out;
}

void register_bonus(sched::Registry& registry) {
  registry.add(
      "bonus", [](const sched::PluginContext& c) { return std::make_unique<BonusScore>(dynamic_cast<const BonusArgs*>(c.args)); },
      read_bonus);
}

sched::Profile bonus_profile() {
  sched::Profile profile = config::builtin_profile("fifo");  // best-fit (1), node-index ties
  profile.score = {{"bonus", 1}};
  return profile;
}

TEST(PluginArgs, DefaultsWhenTheProfileGivesNone) {
  testing::Bench bench;
  register_bonus(bench.registry);
  sched::Framework framework(bonus_profile(), bench.registry, bench.context(), bench.state);
  // Default bonus 0 on n1, 50 elsewhere: the lowest index among the top, n0.
  EXPECT_EQ(framework.schedule(testing::pod(1000, 1, 0))->node, 0U);
  const auto defaults = bench.registry.default_args("bonus");
  ASSERT_NE(defaults, nullptr);
  EXPECT_TRUE(defaults->describe().at(0).is_default);
}

TEST(PluginArgs, TheProfilesArgsReachThePlugin) {
  testing::Bench bench;
  register_bonus(bench.registry);
  sched::Profile profile = bonus_profile();
  const YAML::Node args = YAML::Load("{bonus: 90}");
  profile.plugin_args["bonus"] = (*bench.registry.args_reader("bonus"))(args, io::YamlFields("sched.yaml"), "pluginConfig[0].args");
  sched::Framework framework(profile, bench.registry, bench.context(), bench.state);
  EXPECT_EQ(framework.schedule(testing::pod(1000, 1, 0))->node, 1U);  // 90 beats 50
}

TEST(PluginArgs, ReaderErrorsNameFileLineAndField) {
  testing::Bench bench;
  register_bonus(bench.registry);
  const YAML::Node args = YAML::Load("\n{bonus: 900}");
  try {
    (*bench.registry.args_reader("bonus"))(args, io::YamlFields("sched.yaml"), "pluginConfig[0].args");
    FAIL() << "accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sched.yaml:2: pluginConfig[0].args.bonus:"), std::string::npos) << e.what();
  }
  EXPECT_EQ(bench.registry.args_reader("best-fit"), nullptr) << "a plugin without args has no reader";
  EXPECT_EQ(bench.registry.default_args("best-fit"), nullptr);
}

}  // namespace
}  // namespace gpusim
