// The policy kueue through the real binary: Kueue's objects in --config, a queue reclaiming what
// another borrowed (the victim restarts once the owner's job is done), the metrics, and the mistakes
// people make, each failing before anything is written.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kObjects = R"(apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq-a}
spec:
  namespaceSelector: {}
  cohort: all
  preemption: {reclaimWithinCohort: Any}
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: default-flavor
      resources: [{name: nvidia.com/gpu, nominalQuota: 4}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq-b}
spec:
  namespaceSelector: {}
  cohort: all
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: default-flavor
      resources: [{name: nvidia.com/gpu, nominalQuota: 4}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {namespace: default, name: a}
spec: {clusterQueue: cq-a}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  namespace: default
  name: team-b
  annotations: {gpusim.io/trace-queues: b}
spec: {clusterQueue: cq-b}
)";

class KueueCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,0,0,4,p100-pcie-12gb\nn1,0,0,4,p100-pcie-12gb\n";
    // Queue b fills the cluster (its second job borrows a's idle quota); a's job comes 100 s later.
    std::ofstream(dir_ / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                        "2017-10-09 00:00:00,3600.0,4,14400.0,b\n"
                                        "2017-10-09 00:00:10,3600.0,4,14400.0,b\n"
                                        "2017-10-09 00:01:40,600.0,4,2400.0,a\n";
    std::ofstream(dir_ / "kueue.yaml") << kObjects;
  }
  CliResult run(const std::string& extra) {
    return run_gpusim(dir_, "run --cluster nodes.csv --workload jobs.csv --mode replay --quiet " + extra);
  }
  fs::path dir_;
};

TEST_F(KueueCli, AnOwnerReclaimsItsQuotaFromABorrower) {
  const CliResult result = run("--policy kueue --config kueue.yaml --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // b's second job (borrowing a's 4 GPUs) is preempted when a's job arrives at 100 s (InCohortReclamation);
  // it ran 90 s, less than a checkpoint interval, so it starts over once a's job ends at 700 s and
  // Kueue's requeuer (a second later) admits it again: 701 s to 4301 s.
  const std::string pods = slurp(dir_ / "o" / "pods.csv");
  EXPECT_NE(pods.find("2,job-00002,0,0,4,1000,100.000000,100.000000,700.000000,completed"), std::string::npos) << pods;
  EXPECT_NE(pods.find("1,job-00001,0,0,4,1000,10.000000,701.000000,4301.000000,completed"), std::string::npos) << pods;
  const std::string summary = slurp(dir_ / "o" / "summary.json");
  EXPECT_NE(summary.find("\"kueue_preemptions_InCohortReclamation\": 1.0"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"kueue_admissions\": 4.0"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"kueue_files\""), std::string::npos);
}

TEST_F(KueueCli, MistakesFailBeforeAnythingIsWritten) {
  std::ofstream(dir_ / "twice.yaml") << "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {namespace: default, name: b}\n"
                                        "spec: {clusterQueue: cq-a}\n";
  std::ofstream(dir_ / "fair.yaml") << "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nfairSharing:\n  enable: true\n"
                                       "  preemptionStrategies: [LessThanInitialShare, LessThanOrEqualToFinalShare]\n";
  const std::pair<std::string, std::string> cases[] = {
      {"--policy kueue --out o", "policy 'kueue' needs Kueue's objects in --config"},
      {"--policy capacity --config kueue.yaml --out o", "kueue.yaml: Kueue's objects apply to the policy kueue"},
      {"--policy kueue --config kueue.yaml --config twice.yaml --out o",
       "twice.yaml:3: LocalQueue default/b: the trace's queue 'b' is claimed by LocalQueue default/team-b too"},
      {"--policy kueue --config kueue.yaml --config fair.yaml --out o", "fair.yaml:5: fairSharing.preemptionStrategies: must be"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult result = run(args);
    EXPECT_NE(result.exit_code, 0) << args;
    EXPECT_NE(result.err.find(message), std::string::npos) << args << "\n" << result.err;
    EXPECT_FALSE(fs::exists(dir_ / "o")) << args;
  }
  const CliResult fill = run_gpusim(dir_, "run --cluster nodes.csv --workload jobs.csv --policy kueue --config kueue.yaml --out o");
  EXPECT_EQ(fill.exit_code, 2);
  EXPECT_NE(fill.err.find("Kueue's objects apply to --mode replay only"), std::string::npos) << fill.err;
  const CliResult check = run_gpusim(dir_, "config check kueue.yaml");
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("kueue.yaml: ok: Kueue objects: 1 ResourceFlavor, 2 ClusterQueues, 2 LocalQueues"), std::string::npos) << check.out;
}

// A job of 6 GPUs on 4-GPU nodes is two workers (4 and 2 GPUs): its Workload asks 6, what its
// workers ask together, and runs in a quota of exactly 6. A stopped LocalQueue's jobs stay suspended.
TEST_F(KueueCli, AGangAsksWhatItsWorkersAskAndAStoppedLocalQueueHoldsItsJobs) {
  std::ofstream(dir_ / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                      "2017-10-09 00:00:00,600.0,6,3600.0,b\n"
                                      "2017-10-09 00:00:00,600.0,1,600.0,a\n";
  const std::string objects = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: default-flavor
      resources: [{name: nvidia.com/gpu, nominalQuota: 6}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: default, name: b}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: default, name: a}
spec: {clusterQueue: cq, stopPolicy: Hold}
)";
  std::ofstream(dir_ / "kueue.yaml") << objects;
  const CliResult result = run("--policy kueue --config kueue.yaml --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string pods = slurp(dir_ / "o" / "pods.csv");
  EXPECT_NE(pods.find(",600.000000,completed,n0,0-1-2-3"), std::string::npos) << pods;
  EXPECT_NE(pods.find("its Job stayed suspended: its LocalQueue default/a is stopped (stopPolicy)"), std::string::npos) << pods;
}

// Kueue's objects and Jobs as its documentation writes them (the single ClusterQueue setup and the
// "Run a Kubernetes Job" sample: generateName, the queue-name label, spec.suspend: true). Kueue
// admits each Job's Workload whole, parallelism x requests: the first Job's 3 cpu fit the 9 cpu of
// cluster-queue, the second's 12 never can; a suspended Job no LocalQueue takes is never resumed.
constexpr const char* kDocsQueues = R"(apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: "default-flavor"
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: "cluster-queue"
spec:
  namespaceSelector: {} # match all.
  preemption:
    withinClusterQueue: LowerPriority
  resourceGroups:
  - coveredResources: ["cpu", "memory"]
    flavors:
    - name: "default-flavor"
      resources:
      - name: "cpu"
        nominalQuota: 9
      - name: "memory"
        nominalQuota: 36Gi
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  namespace: "default"
  name: "user-queue"
spec:
  clusterQueue: "cluster-queue"
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata:
  name: sample-priority
value: 10000
description: "Sample priority"
)";

std::string docs_job(const std::string& cpu, const std::string& extra_labels, const std::string& arrival) {
  return "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: sample-job-\n  namespace: default\n  labels:\n"
         "    kueue.x-k8s.io/queue-name: user-queue\n" + extra_labels + "  annotations: {gpusim.io/arrival: " + arrival +
         ", gpusim.io/duration: 1h}\nspec:\n  parallelism: 3\n  completions: 3\n  suspend: true\n  template:\n    spec:\n"
         "      containers:\n      - name: dummy-job\n        image: registry.k8s.io/e2e-test-images/agnhost:2.53\n"
         "        resources:\n          requests:\n            cpu: " + cpu + "\n            memory: \"200Mi\"\n      restartPolicy: Never\n";
}

TEST_F(KueueCli, KueueJobsFromManifestsWaitSuspendedUntilTheirWorkloadIsAdmittedWhole) {
  std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,16000,65536,0,\n";
  std::ofstream(dir_ / "queues.yaml") << kDocsQueues;
  std::ofstream(dir_ / "jobs.yaml") << docs_job("1", "", "0s") + docs_job("4", "", "0s") +
                                           "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: orphan, namespace: team-b}\n"
                                           "spec:\n  suspend: true\n  template:\n    spec:\n      containers: [{name: c, resources: "
                                           "{requests: {cpu: 1}}}]\n      restartPolicy: Never\n";
  const CliResult result =
      run_gpusim(dir_, "run --cluster nodes.csv --workload jobs.yaml --mode replay --quiet --policy kueue --config queues.yaml --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string pods = slurp(dir_ / "o" / "pods.csv");
  for (int k = 0; k < 3; ++k) {
    EXPECT_NE(pods.find(fmt::format("sample-job-00000-{},1000,200,0,0,0.000000,0.000000,3600.000000,completed", k)), std::string::npos) << pods;
    EXPECT_NE(pods.find(fmt::format("sample-job-00001-{},4000,200,0,0,0.000000,,,pending,,,1,\"Kueue did not admit its Workload: "
                                    "insufficient quota for cpu in flavor default-flavor, request (12000) > maximum capacity (9000)\"",
                                    k)),
              std::string::npos)
        << pods;
  }
  EXPECT_NE(pods.find("orphan-0,1000,0,0,0,0.000000,,,pending,,,1,\"its Job stayed suspended: it was created suspended (spec.suspend: "
                      "true) and no LocalQueue takes it (it names queue team-b/default), so nothing resumes it\""),
            std::string::npos)
      << pods;
  EXPECT_NE(slurp(dir_ / "o" / "summary.json").find("\"kueue_admissions\": 1.0"), std::string::npos);
}

// The kueue.x-k8s.io/priority-class label gives the Workload its WorkloadPriorityClass's value: the
// later Job (6 cpu, priority 10000) preempts the earlier (6 cpu, priority 0) within cluster-queue.
TEST_F(KueueCli, AWorkloadPriorityClassLetsALaterJobPreemptWithinItsClusterQueue) {
  std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,16000,65536,0,\n";
  std::ofstream(dir_ / "queues.yaml") << kDocsQueues;
  std::ofstream(dir_ / "jobs.yaml") << docs_job("2", "", "0s") + docs_job("2", "    kueue.x-k8s.io/priority-class: sample-priority\n", "60s");
  const CliResult result =
      run_gpusim(dir_, "run --cluster nodes.csv --workload jobs.yaml --mode replay --quiet --policy kueue --config queues.yaml --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string summary = slurp(dir_ / "o" / "summary.json");
  EXPECT_NE(summary.find("\"kueue_preemptions_InClusterQueue\": 1.0"), std::string::npos) << summary;
  const std::string pods = slurp(dir_ / "o" / "pods.csv");
  EXPECT_NE(pods.find("sample-job-00001-0,2000,200,0,0,60.000000,60.000000,3660.000000,completed"), std::string::npos) << pods;

  // Mistakes: a suspended Job without Kueue, a WorkloadPriorityClass Kueue's objects do not define.
  const CliResult fifo = run_gpusim(dir_, "run --cluster nodes.csv --workload jobs.yaml --mode replay --quiet --policy fifo --out f");
  EXPECT_EQ(fifo.exit_code, 1);
  EXPECT_NE(fifo.err.find("jobs.yaml:13: spec.suspend: Job sample-job-00000 is created suspended, and only Kueue resumes it"),
            std::string::npos)
      << fifo.err;
  EXPECT_FALSE(fs::exists(dir_ / "f"));
  std::ofstream(dir_ / "jobs.yaml") << docs_job("2", "    kueue.x-k8s.io/priority-class: missing-class\n", "0s");
  const CliResult missing =
      run_gpusim(dir_, "run --cluster nodes.csv --workload jobs.yaml --mode replay --quiet --policy kueue --config queues.yaml --out m");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("jobs.yaml:9: metadata.labels.kueue.x-k8s.io/priority-class: WorkloadPriorityClass 'missing-class' is "
                             "not among Kueue's objects in --config"),
            std::string::npos)
      << missing.err;
  EXPECT_FALSE(fs::exists(dir_ / "m"));
}

}  // namespace
}  // namespace gpusim::testing
