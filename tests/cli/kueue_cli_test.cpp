// The policy kueue through the real binary: Kueue's objects in --config, a queue reclaiming what
// another borrowed (the victim restarts once the owner's job is done), the metrics, and the mistakes
// people make, each failing before anything is written.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

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
  EXPECT_NE(fifo.err.find("jobs.yaml:13: spec.suspend: Job sample-job-00000 is created suspended, and only Kueue resumes it (--mode "
                          "replay --policy kueue"),
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

// A Job Kueue preempts is suspended, and the Job controller deletes a suspended Job's pods after
// taking their tracking finalizer off (deleteJobPods): they are never counted as failed. So even
// with backoffLimit 0 the preempted Job is not failed; it runs again once readmitted (gpusim used to
// count the preemption against backoffLimit and fail it).
TEST_F(KueueCli, AJobKueuePreemptsIsNotCountedAgainstItsBackoffLimit) {
  std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,16000,65536,0,\n";
  std::ofstream(dir_ / "queues.yaml") << kDocsQueues;
  std::string first = docs_job("2", "", "0s");
  first.replace(first.find("  suspend: true\n"), 16, "  suspend: true\n  backoffLimit: 0\n");
  std::ofstream(dir_ / "jobs.yaml") << first + docs_job("2", "    kueue.x-k8s.io/priority-class: sample-priority\n", "60s");
  const CliResult result =
      run_gpusim(dir_, "run --cluster nodes.csv --workload jobs.yaml --mode replay --quiet --policy kueue --config queues.yaml --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(slurp(dir_ / "o" / "summary.json").find("\"kueue_preemptions_InClusterQueue\": 1.0"), std::string::npos);
  const std::string pods = slurp(dir_ / "o" / "pods.csv");
  // Preempted at 60 s; readmitted when the preemptor's Job ends at 3,660 s (its requeue a second later).
  for (int k = 0; k < 3; ++k) {
    EXPECT_NE(pods.find(fmt::format("sample-job-00000-{},2000,200,0,0,0.000000,3661.000000,7261.000000,completed,n0,,2,", k)), std::string::npos)
        << pods;
  }
}

// Case files in tests/cli/kueue-cases/ (each directory's README says what they show).
fs::path kueue_case(const std::string& name) { return fs::path(GPUSIM_SOURCE_DIR) / "tests" / "cli" / "kueue-cases" / name; }

// A field of a pods.csv row, by the pod's name.
std::string pod_field(const std::string& pods, const std::string& name, std::size_t field) {
  std::istringstream lines(pods);
  std::string line;
  while (std::getline(lines, line)) {
    const std::vector<std::string> f = csv_fields(line);
    if (f.size() > field && f[1] == name) return f[field];
  }
  return "(no pod " + name + ")";
}
constexpr std::size_t kStart = 7, kEnd = 8, kOutcome = 9, kReason = 13;

// Kueue frees a Workload's quota when its Job finishes, failed too: a Job past its backoffLimit, one
// past its deadline before creating all its pods, a trace row its owner gave up on. Each holds all 9
// cpu of cluster-queue; the next job is admitted at the requeue a second after.
TEST_F(KueueCli, AJobThatFailsGivesItsQuotaBackAndItsDeadlineCountsFromAdmission) {
  fs::copy(kueue_case("failed-jobs"), dir_, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  // `extra` names the Kueue objects (--config) and any other option.
  const auto replay = [&](const std::string& cluster, const std::string& workload, const std::string& extra, const std::string& out) {
    const CliResult r = run_gpusim(dir_, fmt::format("run --cluster {} --workload {} --mode replay --quiet --policy kueue {} --out {}",
                                                     cluster, workload, extra, out));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return slurp(dir_ / out / "pods.csv");
  };
  std::string pods = replay("nodes.yaml", "failed-on-backoff.yaml", "--config queues.yaml", "backoff");
  EXPECT_EQ(pod_field(pods, "a-0", kReason), "NodeRemoved");
  EXPECT_EQ(pod_field(pods, "a-0", kEnd), "330.000000");
  EXPECT_EQ(pod_field(pods, "b-0", kStart), "331.000000");
  EXPECT_EQ(pod_field(pods, "b-1", kOutcome), "completed");
  EXPECT_NE(slurp(dir_ / "backoff" / "summary.json").find("\"jobs_failed_backoff_limit\": 1.0"), std::string::npos);

  pods = replay("nodes.csv", "failed-with-pods-never-created.yaml", "--config queues.yaml", "deadline");
  EXPECT_EQ(pod_field(pods, "a-0", kReason), "DeadlineExceeded");
  EXPECT_EQ(pod_field(pods, "a-0", kEnd), "120.000000");
  EXPECT_EQ(pod_field(pods, "a-1", kOutcome), "withdrawn");
  EXPECT_EQ(pod_field(pods, "b-0", kStart), "121.000000");

  pods = replay("nodes.yaml", "rows-given-up.jsonl", "--config queues.yaml --kube owners.yaml", "rows");
  EXPECT_EQ(pod_field(pods, "a", kReason), "NodeRemoved");
  EXPECT_EQ(pod_field(pods, "b", kStart), "331.000000");
  EXPECT_EQ(pod_field(pods, "b", kOutcome), "completed");

  // A gang's worker given up on (its GPU lost at 60 s, owners.backoffLimit 0): the gang can never be
  // whole again, so its Workload ends then (found by review: once a preemption of its last worker
  // readmitted it for ever). h is admitted at once, and b once h ends.
  pods = replay("nodes-8gpu.csv", "gang-given-up.jsonl", "--config gang-queues.yaml --kube gang-xid.yaml", "gang");
  EXPECT_EQ(pod_field(pods, "g-0", kReason), "GpuLost");
  EXPECT_EQ(pod_field(pods, "h", kStart), "100.000000");
  EXPECT_EQ(pod_field(pods, "b", kStart), "401.000000");
  EXPECT_EQ(pod_field(pods, "b", kOutcome), "completed");

  // activeDeadlineSeconds: 300 counts from the admission at 601 s: b (a 2-minute run) completes, c
  // (10 minutes) fails at 901 s, where counted from its creation both would fail at 300 s unrun.
  pods = replay("nodes.csv", "deadline-from-admission.yaml", "--config queues.yaml", "admission");
  EXPECT_EQ(pod_field(pods, "b-0", kStart), "601.000000");
  EXPECT_EQ(pod_field(pods, "b-0", kOutcome), "completed");
  EXPECT_EQ(pod_field(pods, "c-0", kStart), "601.000000");
  EXPECT_EQ(pod_field(pods, "c-0", kEnd), "901.000000");
  EXPECT_EQ(pod_field(pods, "c-0", kReason), "DeadlineExceeded");
}

// Fair sharing's preemptee readmitted before its preemptor (Kueue issue #14543): j126 reclaims from
// j122, whose pods are evicted at once; j122 is admitted again at that instant, before j126, and
// reclaimed again, none of its pods bound now. Its quota goes back at once and it rejoins its queue a
// second later, so j126 is admitted first and the cycle ends (it once repeated for ever at that
// instant: the run never ended).
TEST_F(KueueCli, FairSharingsPreemptionCycleEndsOnceThePreemptorIsIn) {
  fs::copy(kueue_case("fair-sharing-flapping"), dir_, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  const CliResult r = run_gpusim(dir_, "run --cluster nodes.csv --workload w-min.jsonl --mode replay --quiet --policy kueue "
                                       "--config kueue.yaml --config fs.yaml --out o");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string summary = slurp(dir_ / "o" / "summary.json");
  EXPECT_NE(summary.find("\"kueue_preemptions_InCohortReclamation\": 2.0"), std::string::npos) << summary;
  const std::string pods = slurp(dir_ / "o" / "pods.csv");
  EXPECT_EQ(pod_field(pods, "j126", kStart), "2830.905078");
  EXPECT_EQ(pod_field(pods, "j126", kOutcome), "completed");
  // j122 started at 2717 s, was evicted at 2830.9 s, and starts again once quota frees (j126 done).
  EXPECT_EQ(pod_field(pods, "j122", kStart), "2851.049739");
  EXPECT_EQ(pod_field(pods, "j122", kOutcome), "completed");
}

}  // namespace
}  // namespace gpusim::testing
