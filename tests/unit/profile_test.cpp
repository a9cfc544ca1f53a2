#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/core/status.hpp"
#include "policies/register_builtin.hpp"
#include "sim/config/profiles.hpp"
#include "sim/sched/profile.hpp"

namespace gpusim::sched {
namespace {

// Per-test directory: ctest runs tests in parallel processes.
std::filesystem::path write(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "profile" /
                   ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path;
}

TEST(Profile, LoadsYaml) {
  const auto path = write("p.yaml",
                          "name: mix\nfilter: [node-resources-fit, gpu-fit]\n"
                          "score:\n  - {name: fgd, weight: 2}\n  - {name: best-fit}\n"
                          "gpuSelection: best\ntieBreak: node-index\n");
  const Profile profile = load_profile(path);
  EXPECT_EQ(profile.name, "mix");
  ASSERT_EQ(profile.score.size(), 2U);
  EXPECT_EQ(profile.score[0].weight, 2);
  EXPECT_EQ(profile.score[1].weight, 1);
  EXPECT_EQ(profile.tie_break, TieBreak::kNodeIndex);
  EXPECT_EQ(config::resolve_profiles(path.string(), policy::builtin_registry()).at(0).name, "mix");
}

TEST(Profile, BadYamlNamesFileLineAndField) {
  const auto path = write("bad.yaml", "name: x\nfilter: [gpu-fit]\nscore:\n  - {name: fgd, weight: -1}\n");
  try {
    load_profile(path);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.yaml:4: score.weight"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_profile(write("typo.yaml", "filtr: [gpu-fit]\n")), core::InputError);
  EXPECT_THROW(config::builtin_profile("nope"), core::InputError);
}

TEST(Profile, BuiltinsMatchTheArtifactSettings) {
  EXPECT_EQ(config::builtin_profile("fgd").gpu_selection, "fgd");
  EXPECT_EQ(config::builtin_profile("random").gpu_selection, "random");
  EXPECT_EQ(config::builtin_profile("dotprod").gpu_selection, "best");
  EXPECT_EQ(config::builtin_profile("bestfit").score.front().name, "best-fit");
}

}  // namespace
}  // namespace gpusim::sched
