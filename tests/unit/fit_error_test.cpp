// kube-scheduler's FitError text (sim/sched/fit_error.hpp): the histogram of reasons, sorted as Go's
// sort.Strings sorts "N reason" strings, and the per-node choice of the first plugin's reasons.
#include <gtest/gtest.h>

#include "sim/sched/fit_error.hpp"

namespace gpusim::sched {
namespace {

TEST(FitError, OneReasonOnEveryNode) {
  const FitError fit{3, "", {{"Insufficient nvidia.com/gpu", 3}}};
  EXPECT_EQ(fit.message(), "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");
  EXPECT_EQ(fit.causes(), std::vector<std::string>{"Insufficient nvidia.com/gpu"});
}

TEST(FitError, SortsTheCountedStringsBytewiseAsGoDoes) {
  // "1 node(s)..." < "2 Insufficient..." (digits first), and "10 x" < "2 y": the count is part of
  // the sorted string, so more nodes can come first.
  const FitError fit{15, "",
                     {{"Insufficient nvidia.com/gpu", 2}, {"node(s) didn't match Pod's node affinity/selector", 1},
                      {"Insufficient cpu", 10}, {"Insufficient memory", 2}}};
  EXPECT_EQ(fit.message(),
            "0/15 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 10 Insufficient cpu, "
            "2 Insufficient memory, 2 Insufficient nvidia.com/gpu.");
  // The causes leave the counts out and sort the reasons themselves: upper case before lower.
  EXPECT_EQ(fit.causes(), (std::vector<std::string>{"Insufficient cpu", "Insufficient memory", "Insufficient nvidia.com/gpu",
                                                    "node(s) didn't match Pod's node affinity/selector"}));
}

TEST(FitError, NoNodeAndPreFilterMessages) {
  EXPECT_EQ(FitError{}.message(), "no nodes available to schedule pods");
  const FitError pre{4, "pod group is not whole", {}};
  EXPECT_EQ(pre.message(), "0/4 nodes are available: pod group is not whole.");
  EXPECT_EQ(pre.causes(), std::vector<std::string>{"pod group is not whole"});
}

TEST(NodeReasons, TheFirstPluginInKubeSchedulerOrderSpeaksForTheNode) {
  NodeReasons reasons;
  // A node short of GPUs and CPU whose taint the pod does not tolerate: TaintToleration runs
  // before NodeResourcesFit, so only the taint counts.
  reasons.reject(KubeFilter::kNodeResourcesFit, {"Insufficient ", "nvidia.com/gpu"});
  reasons.reject(KubeFilter::kTaintToleration, {"node(s) had untolerated taint {", "dedicated", ": ", "gpu", "}"});
  reasons.reject(KubeFilter::kNodeResourcesFit, {"Insufficient ", "cpu"});
  EXPECT_TRUE(reasons.end_node());
  // A node short of both resources: NodeResourcesFit names both.
  reasons.reject(KubeFilter::kNodeResourcesFit, {"Insufficient ", "cpu"});
  reasons.reject(KubeFilter::kNodeResourcesFit, {"Insufficient ", "nvidia.com/gpu"});
  EXPECT_TRUE(reasons.end_node());
  // A node that passed.
  EXPECT_FALSE(reasons.end_node());
  // The same text from other parts (and a repeat on one node) counts as one reason.
  reasons.reject(KubeFilter::kNodeResourcesFit, {"Insufficient cpu"});
  reasons.reject(KubeFilter::kNodeResourcesFit, {"Insufficient c", "pu"});
  EXPECT_TRUE(reasons.end_node());
  const std::vector<std::pair<std::string, std::int64_t>> expected{
      {"node(s) had untolerated taint {dedicated: gpu}", 1}, {"Insufficient cpu", 2}, {"Insufficient nvidia.com/gpu", 1}};
  EXPECT_EQ(reasons.counts(), expected);
  const FitError fit{3, "", reasons.counts()};
  EXPECT_EQ(fit.message(),
            "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) had untolerated taint {dedicated: gpu}, "
            "2 Insufficient cpu.");
}

}  // namespace
}  // namespace gpusim::sched
