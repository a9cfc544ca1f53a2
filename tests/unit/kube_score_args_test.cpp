// The args readers of node-resources-fit (NodeResourcesFitArgs), balanced-allocation
// (NodeResourcesBalancedAllocationArgs) and default-preemption (DefaultPreemptionArgs): defaults as
// kube-scheduler's v1 defaulting, and each validation error naming file, line and dotted field.
#include <gtest/gtest.h>

#include "policies/preemption/default_preemption.hpp"
#include "policies/register_builtin.hpp"
#include "policies/score/balanced_allocation_args.hpp"
#include "policies/score/node_resources_fit_args.hpp"
#include "sim/core/status.hpp"
#include "traces/k8s/qualified_name.hpp"

namespace gpusim {
namespace {

const sched::Registry& registry() {
  static const sched::Registry r = policy::builtin_registry();
  return r;
}

std::shared_ptr<const sched::PluginArgs> read(const std::string& plugin, const std::string& yaml) {
  return (*registry().args_reader(plugin))(YAML::Load(yaml), io::YamlFields("sched.yaml"), "pluginConfig[0].args");
}

// The message of the error reading `yaml` gives, or "" if it is accepted.
std::string error_of(const std::string& plugin, const std::string& yaml) {
  try {
    read(plugin, yaml);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ERROR(plugin, yaml, expected)                                              \
  do {                                                                                    \
    const std::string message = error_of(plugin, yaml);                                   \
    EXPECT_NE(message.find(expected), std::string::npos) << "got: '" << message << "'"; \
  } while (false)

TEST(NodeResourcesFitArgs, DefaultsAreLeastAllocatedOverCpuAndMemory) {
  const auto args = std::dynamic_pointer_cast<const policy::NodeResourcesFitArgs>(registry().default_args("node-resources-fit"));
  ASSERT_NE(args, nullptr);
  EXPECT_EQ(args->type, policy::ScoringStrategy::kLeastAllocated);
  ASSERT_EQ(args->resources.size(), 2U);
  EXPECT_EQ(args->resources[0].name, "cpu");
  EXPECT_EQ(args->resources[1].name, "memory");
  EXPECT_EQ(args->resources[1].weight, 1);
  EXPECT_TRUE(args->notes().empty());
  for (const auto& line : args->describe()) EXPECT_TRUE(line.is_default) << line.name;
  // An empty resources list is the default list too; a weight left out or 0 is 1.
  const auto most = std::dynamic_pointer_cast<const policy::NodeResourcesFitArgs>(
      read("node-resources-fit", "{scoringStrategy: {type: MostAllocated, resources: []}}"));
  EXPECT_EQ(most->type, policy::ScoringStrategy::kMostAllocated);
  EXPECT_EQ(most->resources.size(), 2U);
  const auto zero = std::dynamic_pointer_cast<const policy::NodeResourcesFitArgs>(
      read("node-resources-fit", "{scoringStrategy: {type: MostAllocated, resources: [{name: nvidia.com/gpu, weight: 0}]}}"));
  ASSERT_EQ(zero->resources.size(), 1U);
  EXPECT_EQ(zero->resources[0].weight, 1);
  EXPECT_EQ(zero->resources[0].kind, policy::ResourceKind::kNvidiaGpu);
}

TEST(NodeResourcesFitArgs, ReadsTheDocumentationsShape) {
  // The shape of the Kubernetes documentation's bin-packing example (resource-bin-packing), with
  // typed args' apiVersion and kind.
  const auto args = std::dynamic_pointer_cast<const policy::NodeResourcesFitArgs>(read("node-resources-fit", R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: NodeResourcesFitArgs
scoringStrategy:
  resources:
  - name: nvidia.com/gpu
    weight: 3
  - name: nvidia.com/mig-1g.10gb
    weight: 3
  requestedToCapacityRatio:
    shape:
    - utilization: 0
      score: 0
    - utilization: 100
      score: 10
  type: RequestedToCapacityRatio
ignoredResourceGroups: [example.com]
ignoredResources: [example.com/foo]
)"));
  EXPECT_EQ(args->type, policy::ScoringStrategy::kRequestedToCapacityRatio);
  ASSERT_EQ(args->shape.size(), 2U);
  const policy::FitScoring scoring = args->scoring();
  EXPECT_EQ(scoring.shape[1].score, 100) << "shape scores scale by 10";
  EXPECT_EQ(scoring.resources[1].kind, policy::ResourceKind::kMigProfile);
  EXPECT_EQ(scoring.resources[1].mig_profile, "1g.10gb");
  EXPECT_FALSE(args->notes().empty()) << "ignoredResources change nothing, and the notes say so";
}

TEST(NodeResourcesFitArgs, ValidationErrorsNameFileLineAndField) {
  const std::string fit = "node-resources-fit";
  EXPECT_ERROR(fit, "\n{scoringStrategy: {type: Spread}}",
               "sched.yaml:2: pluginConfig[0].args.scoringStrategy.type: unsupported value 'Spread'");
  EXPECT_ERROR(fit, "\nscoringStrategy:\n  resources: [{name: cpu}]",
               "sched.yaml:3: pluginConfig[0].args.scoringStrategy.type: required");
  EXPECT_ERROR(fit, "{scoring: {}}", "pluginConfig[0].args.scoring: unknown field");
  EXPECT_ERROR(fit, "{kind: DefaultPreemptionArgs}", "pluginConfig[0].args.kind: expected NodeResourcesFitArgs");
  EXPECT_ERROR(fit, R"(
scoringStrategy:
  type: MostAllocated
  resources:
  - {name: cpu, weight: 1}
  - {name: nvidia.com/gpu, weight: 101}
)",
               "sched.yaml:6: pluginConfig[0].args.scoringStrategy.resources[1].weight: resource weight of nvidia.com/gpu not "
               "in valid range (0, 100]");
  EXPECT_ERROR(fit, "{scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: -2}]}}",
               "resources[0].weight: resource weight of cpu not in valid range (0, 100]");
  EXPECT_ERROR(fit, "{scoringStrategy: {type: MostAllocated, resources: [{weight: 2}]}}", "resources[0].name: required");
  EXPECT_ERROR(fit, "{scoringStrategy: {type: MostAllocated, resources: [{name: ephemeral-storage}]}}",
               "resources[0].name: gpusim's nodes have no ephemeral-storage");
  EXPECT_ERROR(fit, "{scoringStrategy: {type: MostAllocated, resources: [{name: example.com/foo}]}}",
               "resources[0].name: gpusim models no resource 'example.com/foo'");
  EXPECT_ERROR(fit, "{scoringStrategy: {type: MostAllocated, resources: [{name: aliyun.com/gpu-mem}]}}",
               "does not count gpushare's aliyun.com/gpu-mem");
  EXPECT_ERROR(fit, "{scoringStrategy: {type: MostAllocated, resources: [{name: nvidia.com/mig-9g.99gb}]}}",
               "no MIG-capable GPU has a profile '9g.99gb'");
  // The shape: at least one point, utilization 0..100 strictly increasing, score 0..10.
  EXPECT_ERROR(fit, "\n{scoringStrategy: {type: RequestedToCapacityRatio}}",
               "sched.yaml:2: pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape: type "
               "RequestedToCapacityRatio needs a shape");
  EXPECT_ERROR(fit, "{scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: []}}}",
               "requestedToCapacityRatio.shape: at least one point must be specified");
  EXPECT_ERROR(fit, R"(
scoringStrategy:
  type: RequestedToCapacityRatio
  requestedToCapacityRatio:
    shape:
    - {utilization: 50, score: 1}
    - {utilization: 50, score: 2}
)",
               "sched.yaml:7: pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[1].utilization: values must be "
               "sorted in increasing order");
  EXPECT_ERROR(fit, "{scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: [{utilization: 101}]}}}",
               "shape[0].utilization: '101' is not an integer from 0 to 100");
  EXPECT_ERROR(fit, "{scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: [{score: 11}]}}}",
               "shape[0].score: '11' is not an integer from 0 to 10");
  // ignoredResources are qualified names; ignoredResourceGroups have no '/'.
  EXPECT_ERROR(fit, "\n{ignoredResources: [a/b/c]}", "sched.yaml:2: pluginConfig[0].args.ignoredResources[0]: a qualified name");
  EXPECT_ERROR(fit, "{ignoredResources: [-foo]}", "ignoredResources[0]: name part must consist of alphanumeric");
  EXPECT_ERROR(fit, "{ignoredResourceGroups: [example.com/x]}", "ignoredResourceGroups[0]: resource group name can't contain '/'");
  EXPECT_ERROR(fit, "{ignoredResources: nvidia.com/gpu}", "ignoredResources: expected a list");
}

TEST(NodeResourcesFitArgs, ARepeatedResourceCountsTwiceAsUpstream) {
  const auto args = std::dynamic_pointer_cast<const policy::NodeResourcesFitArgs>(
      read("node-resources-fit", "{scoringStrategy: {type: MostAllocated, resources: [{name: cpu}, {name: cpu}]}}"));
  EXPECT_EQ(args->resources.size(), 2U);
}

TEST(BalancedAllocationArgs, DefaultsAndValidation) {
  const auto defaults = std::dynamic_pointer_cast<const policy::BalancedAllocationArgs>(registry().default_args("balanced-allocation"));
  ASSERT_NE(defaults, nullptr);
  ASSERT_EQ(defaults->resources.size(), 2U);
  EXPECT_EQ(defaults->describe().at(0).value, "[{name: cpu, weight: 1}, {name: memory, weight: 1}]");
  const std::string ba = "balanced-allocation";
  EXPECT_ERROR(ba, "\nresources:\n- {name: cpu, weight: 2}", "sched.yaml:3: pluginConfig[0].args.resources[0].weight: must be 1");
  EXPECT_ERROR(ba, "\nresources:\n- {name: cpu}\n- {name: cpu}",
               "sched.yaml:4: pluginConfig[0].args.resources[1].name: duplicate value 'cpu'");
  EXPECT_ERROR(ba, "{resources: [{name: hugepages-2Mi}]}", "resources[0].name: gpusim's nodes have no hugepages-2Mi");
  EXPECT_ERROR(ba, "{shape: []}", "pluginConfig[0].args.shape: unknown field (known: resources)");
  EXPECT_EQ(error_of(ba, "{kind: NodeResourcesBalancedAllocationArgs, resources: [{name: cpu, weight: 0}, {name: nvidia.com/gpu}]}"),
            "");
}

TEST(DefaultPreemptionArgs, DefaultsValidationAndCandidates) {
  const auto defaults = std::dynamic_pointer_cast<const policy::DefaultPreemptionArgs>(registry().default_args("default-preemption"));
  ASSERT_NE(defaults, nullptr);
  EXPECT_EQ(defaults->min_candidate_nodes_percentage, 10);
  EXPECT_EQ(defaults->min_candidate_nodes_absolute, 100);
  // calculateNumCandidates: nodes x 10 %, at least 100, at most the nodes.
  EXPECT_EQ(k8s::candidates_to_find(defaults->sampling(), 5000), 500);
  EXPECT_EQ(k8s::candidates_to_find(defaults->sampling(), 1000), 100);
  EXPECT_EQ(k8s::candidates_to_find(defaults->sampling(), 50), 50);
  const std::string dp = "default-preemption";
  EXPECT_ERROR(dp, "\n{minCandidateNodesPercentage: 101}",
               "sched.yaml:2: pluginConfig[0].args.minCandidateNodesPercentage: 101 not in valid range [0, 100]");
  EXPECT_ERROR(dp, "{minCandidateNodesAbsolute: -1}", "minCandidateNodesAbsolute: -1 not in valid range [0, inf)");
  EXPECT_ERROR(dp, "{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}",
               "minCandidateNodesPercentage: cannot be zero at the same time as minCandidateNodesAbsolute");
  EXPECT_ERROR(dp, "{minCandidateNodes: 3}", "pluginConfig[0].args.minCandidateNodes: unknown field");
  const auto given = std::dynamic_pointer_cast<const policy::DefaultPreemptionArgs>(read(dp, "{minCandidateNodesPercentage: 0}"));
  EXPECT_EQ(k8s::candidates_to_find(given->sampling(), 5000), 100);
  EXPECT_FALSE(given->describe().at(0).is_default);
}

TEST(QualifiedName, AsKubernetesValidatesLabelNames) {
  using traces::k8s::qualified_name_error;
  for (const char* ok : {"nvidia.com/gpu", "example.com/foo", "foo", "a", "my.name_x-1", "x.y-z.io/A_b"}) {
    EXPECT_FALSE(qualified_name_error(ok)) << ok;
  }
  for (const char* bad : {"", "/foo", "Example.com/foo", "a/b/c", "foo-", "-foo", "ex_ample.com/foo", "example..com/foo"}) {
    EXPECT_TRUE(qualified_name_error(bad)) << bad;
  }
  EXPECT_TRUE(qualified_name_error(std::string(64, 'a')));
  EXPECT_FALSE(qualified_name_error(std::string(63, 'a')));
}

}  // namespace
}  // namespace gpusim
