#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "policies/register_builtin.hpp"
#include "sim/config/profiles.hpp"
#include "sim/config/retired_profile_yaml.hpp"
#include "sim/core/status.hpp"
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

// The message a --policy file gets, or "" if it is accepted.
std::string refusal(const std::filesystem::path& path) {
  try {
    config::resolve_profiles(path.string(), policy::builtin_registry());
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(RetiredProfileYaml, IsRefusedWithTheConfigurationThatGivesTheSameProfile) {
  const auto path = write("p.yaml",
                          "name: mix\nfilter: [node-resources-fit, gpu-fit]\n"
                          "score:\n  - {name: fgd, weight: 2}\n  - {name: best-fit}\n"
                          "gpuSelection: best\ntieBreak: node-index\n");
  const std::string message = refusal(path);
  EXPECT_TRUE(has(message, "p.yaml: gpusim's own profile YAML is retired")) << message;
  EXPECT_TRUE(has(message, "(it gives the same profile)")) << message;
  // The lines after the blank one are the file to save: it runs as the older file ran.
  const std::string lines = message.substr(message.find("\n\n") + 2);
  EXPECT_TRUE(has(lines, "filter: {enabled: [{name: NodeResourcesFit}]}")) << lines;
  EXPECT_TRUE(has(lines, "score: {enabled: [{name: fgd, weight: 2}, {name: best-fit, weight: 1}]}")) << lines;
  const auto replacement = write("mix.yaml", lines);
  const std::vector<Profile> profiles = config::resolve_profiles(replacement.string(), policy::builtin_registry());
  ASSERT_EQ(profiles.size(), 1U);
  const Profile& profile = profiles.front();
  EXPECT_EQ(profile.name, "mix");
  EXPECT_EQ(profile.filter, (std::vector<std::string>{"node-resources-fit", "gpu-fit"}));
  ASSERT_EQ(profile.score.size(), 2U);
  EXPECT_EQ(profile.score[0].name, "fgd");
  EXPECT_EQ(profile.score[0].weight, 2);
  EXPECT_EQ(profile.score[1].weight, 1);
  EXPECT_EQ(profile.gpu_selection, "best");
  EXPECT_EQ(profile.tie_break, TieBreak::kNodeIndex);
  EXPECT_EQ(profile.percentage_of_nodes_to_score, 100);
  EXPECT_EQ(profile.queue_sort, "priority");
  EXPECT_EQ(profile.bind, "default-binder");
}

TEST(RetiredProfileYaml, EveryFieldOfTheOlderFormatCarriesOver) {
  const auto path = write("full.yaml",
                          "name: kube\nqueueSort: fifo\nfilter: [node-resources-fit, gpu-fit, node-affinity, taint-toleration]\n"
                          "score:\n  - {name: least-allocated}\n  - {name: balanced-allocation, weight: 3}\n"
                          "gpuSelection: first-fit\nreserve: [gpu-clustering]\nbind: default-binder\ntieBreak: seeded-rank\n");
  const std::string message = refusal(path);
  EXPECT_TRUE(has(message, "(it gives the same profile)")) << message;
  EXPECT_TRUE(has(message, "queueSort: {enabled: [{name: fifo}]}")) << message;
  EXPECT_TRUE(has(message, "reserve: {enabled: [{name: gpu-clustering}]}")) << message;
  EXPECT_TRUE(has(message, "tieBreak: SeededRank")) << message;
}

TEST(RetiredProfileYaml, SaysWhatTheConfigurationNeedsFirst) {
  // Named by its file, as a built-in policy: the configuration must be renamed before it runs.
  const std::string builtin = refusal(write("fgd.yaml", "filter: [node-resources-fit, gpu-fit]\n"));
  EXPECT_TRUE(has(builtin, "(it gives the same profile; but give schedulerName a name of its own first: 'fgd' is a built-in policy's)"))
      << builtin;
  // A file name that cannot name an output folder gets a stand-in.
  const std::string odd = refusal(write("my policy.yaml", "filter: [node-resources-fit, gpu-fit]\n"));
  EXPECT_TRUE(has(odd, "schedulerName my-policy stands in for your file's name")) << odd;
  EXPECT_TRUE(has(odd, "  - schedulerName: my-policy\n")) << odd;
  // kube-scheduler's names, and the plugins a configuration turns into settings, count as the same.
  const std::string kube = refusal(write("kube.yaml", "name: k\nqueueSort: PrioritySort\nfilter: [NodeResourcesFit, gpu-fit]\n"
                                                      "postFilter: [DefaultPreemption]\nbind: DefaultBinder\n"));
  EXPECT_TRUE(has(kube, "(it gives the same profile)")) << kube;
}

TEST(RetiredProfileYaml, SaysWhatDiffersOrWhyTheConfigurationIsRefused) {
  // kube-scheduler's NodeResourcesFit checks GPUs too: the older file left them out.
  const std::string cpu_only = refusal(write("cpu.yaml", "filter: [node-resources-fit]\nscore:\n  - {name: most-allocated}\n"));
  EXPECT_TRUE(has(cpu_only, "it differs from your file's profile, as gpusim's reader of that file builds it: filter: "
                            "[node-resources-fit] in your file, [node-resources-fit, gpu-fit] in the configuration"))
      << cpu_only;
  const std::string gpu_only = refusal(write("gpu.yaml", "filter: [gpu-fit]\n"));
  EXPECT_TRUE(has(gpu_only, "gpusim refuses it as it stands, so edit it first: the configuration below:"));
  EXPECT_TRUE(has(gpu_only, "NodeResourcesFit must be enabled")) << gpu_only;
}

TEST(RetiredProfileYaml, BadFilesNameFileLineAndField) {
  EXPECT_TRUE(has(refusal(write("bad.yaml", "name: x\nfilter: [gpu-fit]\nscore:\n  - {name: fgd, weight: -1}\n")),
                  "bad.yaml:4: score[0].weight: '-1' is out of range (1 to 1000000)"));
  EXPECT_TRUE(has(refusal(write("unknown.yaml", "filter: [gpu-fit]\nfilters: []\n")), "unknown.yaml:2: filters: unknown field"));
  EXPECT_TRUE(has(refusal(write("typo.yaml", "filtr: [gpu-fit]\nscore: []\n")), "typo.yaml:1: filtr: unknown field"));
  EXPECT_TRUE(has(refusal(write("no-filter.yaml", "name: x\nscore: [{name: fgd}]\n")),
                  "no-filter.yaml:1: filter: at least one filter plugin is required"));
  // Each key once, one document, every entry a name or {name, weight}.
  EXPECT_TRUE(has(refusal(write("twice.yaml", "filter: [gpu-fit]\nfilter: [node-resources-fit]\n")), "twice.yaml:2: filter: repeated key"));
  EXPECT_TRUE(has(refusal(write("two.yaml", "filter: [gpu-fit]\n---\nfilter: [gpu-fit]\n")),
                  "two.yaml:3: document: a profile YAML file holds one profile"));
  EXPECT_TRUE(has(refusal(write("typo2.yaml", "filter: [gpu-fit]\nscore: [{name: fgd, wieght: 2}]\n")), "typo2.yaml:2: score[0].wieght: unknown field"));
  EXPECT_TRUE(has(refusal(write("scalar.yaml", "filter: [gpu-fit]\nscore: [fgd]\n")), "scalar.yaml:2: score[0]: expected a mapping"));
  EXPECT_TRUE(has(refusal(write("heavy.yaml", "filter: [gpu-fit]\nscore: [{name: fgd, weight: 1e3}]\n")), "heavy.yaml:2: score[0].weight:"));
  // Neither apiVersion nor the older fields: the file is named for what it is not.
  EXPECT_TRUE(has(refusal(write("other.yaml", "foo: 1\n")), "other.yaml:1: not a KubeSchedulerConfiguration"));
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
