// The queue metrics of a Kueue run and of a KAI run, as seed 004's monitoring stack would read them:
// `gpusim export openmetrics`, `promtool tsdb create-blocks-from openmetrics`, then Debian's real
// `prometheus` started on localhost over that TSDB. PromQL queries over its HTTP API return the
// figures summary.json holds (admissions, preemptions by reason, evictions by action, time starved)
// and the fair shares and quotas the scenario implies; every query of the shipped Grafana dashboard
// (dashboards/gpusim-queues.json) is valid PromQL, and those on the run's system's series have data.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <thread>

#include <unistd.h>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kKueue = R"(apiVersion: kueue.x-k8s.io/v1beta1
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
metadata: {namespace: default, name: b}
spec: {clusterQueue: cq-b}
)";

constexpr const char* kKai = R"(apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: department}
spec:
  resources:
    gpu: {quota: -1, overQuotaWeight: 1, limit: -1}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: a}
spec:
  parentQueue: department
  resources:
    gpu: {quota: 4, overQuotaWeight: 1, limit: -1}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: b}
spec:
  parentQueue: department
  resources:
    gpu: {quota: 4, overQuotaWeight: 1, limit: -1}
)";

class PrometheusQueueMetrics : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(std::system("command -v prometheus > /dev/null && command -v promtool > /dev/null && command -v python3 > /dev/null"), 0)
        << "prometheus, promtool (Debian's prometheus package) and python3 are required: scripts/setup.sh installs them";
    dir_ = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,0,0,4,p100-pcie-12gb\nn1,0,0,4,p100-pcie-12gb\n";
    // Queue b fills the cluster; a's job comes 100 s later and takes back a's quota.
    std::ofstream(dir_ / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                        "2017-10-09 00:00:00,3600.0,4,14400.0,b\n"
                                        "2017-10-09 00:00:10,3600.0,4,14400.0,b\n"
                                        "2017-10-09 00:01:40,600.0,4,2400.0,a\n";
    std::ofstream(dir_ / "kueue.yaml") << kKueue;
    std::ofstream(dir_ / "kai.yaml") << kKai;
  }
  void TearDown() override {
    if (prometheus_pid_ > 0) std::system(fmt::format("kill {} 2>/dev/null; wait {} 2>/dev/null", prometheus_pid_, prometheus_pid_).c_str());
  }

  // Runs the policy, exports its run, builds the TSDB and starts Prometheus over it; returns the
  // run's summary.json and sets end_ to the export's last sample time.
  nlohmann::json run_and_serve(const std::string& policy, const std::string& config) {
    const CliResult run = run_gpusim(dir_, fmt::format("run --cluster nodes.csv --workload jobs.csv --mode replay --quiet --policy {} "
                                                       "--config {} --out {}",
                                                       policy, config, policy));
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const CliResult exported = run_gpusim(dir_, fmt::format("export openmetrics {} --step 60", policy));
    EXPECT_EQ(exported.exit_code, 0) << exported.err;
    std::ofstream(dir_ / (policy + ".om")) << exported.out;
    // The last sample's timestamp: the run's end.
    const std::string& om = exported.out;
    const std::size_t eof = om.rfind("\n# EOF");
    end_ = std::stoll(om.substr(om.rfind(' ', eof) + 1, eof - om.rfind(' ', eof) - 1));
    const fs::path tsdb = dir_ / (policy + "-tsdb");
    const std::string blocks = fmt::format("cd '{}' && promtool tsdb create-blocks-from openmetrics {}.om '{}' > {}-promtool.log 2>&1",
                                           dir_.string(), policy, tsdb.string(), policy);
    EXPECT_EQ(std::system(blocks.c_str()), 0) << slurp(dir_ / (policy + "-promtool.log"));
    std::ofstream(dir_ / "prometheus.yml") << "global: {scrape_interval: 1h}\nscrape_configs: []\n";
    port_ = 20000 + static_cast<int>(getpid() % 20000);
    // The blocks hold 2026 times: a retention long enough keeps them.
    const std::string start = fmt::format(
        "cd '{}' && (prometheus --config.file=prometheus.yml --storage.tsdb.path='{}' --storage.tsdb.retention.time=100y "
        "--web.listen-address=127.0.0.1:{} > {}-prometheus.log 2>&1 & echo $! > {}-prometheus.pid)",
        dir_.string(), tsdb.string(), port_, policy, policy);
    EXPECT_EQ(std::system(start.c_str()), 0);
    prometheus_pid_ = std::stoi(slurp(dir_ / (policy + "-prometheus.pid")));
    bool ready = false;
    for (int i = 0; i < 300 && !ready; ++i) {
      ready = std::system(fmt::format("python3 -c \"import urllib.request; urllib.request.urlopen('http://127.0.0.1:{}/-/ready', timeout=1)\" "
                                      "> /dev/null 2>&1",
                                      port_)
                              .c_str()) == 0;
      if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_TRUE(ready) << slurp(dir_ / (policy + "-prometheus.log"));
    return nlohmann::json::parse(slurp(dir_ / policy / "summary.json"));
  }

  // An instant PromQL query at the run's end over the HTTP API: the value of its one sample.
  double query(const std::string& promql) {
    const fs::path out = dir_ / "query.json";
    const std::string command = fmt::format(
        "python3 -c \"import sys, urllib.request, urllib.parse; q = urllib.parse.urlencode({{'query': sys.argv[1], 'time': sys.argv[2]}}); "
        "sys.stdout.write(urllib.request.urlopen('http://127.0.0.1:{}/api/v1/query?' + q, timeout=10).read().decode())\" '{}' {} > '{}'",
        port_, promql, end_, out.string());
    EXPECT_EQ(std::system(command.c_str()), 0) << promql;
    const nlohmann::json answer = nlohmann::json::parse(slurp(out));
    EXPECT_EQ(answer.at("status"), "success") << answer.dump();
    const auto& result = answer.at("data").at("result");
    if (result.size() != 1) {
      ADD_FAILURE() << promql << ": " << answer.dump();
      return -1;
    }
    return std::stod(result[0].at("value")[1].get<std::string>());
  }

  // An instant query: how many series it returns (the query must be valid PromQL).
  std::size_t series_of(const std::string& promql) {
    const fs::path out = dir_ / "query.json";
    const std::string command = fmt::format(
        "python3 -c \"import sys, urllib.request, urllib.parse; q = urllib.parse.urlencode({{'query': sys.argv[1], 'time': sys.argv[2]}}); "
        "sys.stdout.write(urllib.request.urlopen('http://127.0.0.1:{}/api/v1/query?' + q, timeout=10).read().decode())\" \"$(cat '{}')\" {} > '{}'",
        port_, (dir_ / "promql.txt").string(), end_, out.string());
    std::ofstream(dir_ / "promql.txt") << promql;
    EXPECT_EQ(std::system(command.c_str()), 0) << promql;
    const nlohmann::json answer = nlohmann::json::parse(slurp(out));
    EXPECT_EQ(answer.at("status"), "success") << promql << ": " << answer.dump();
    return answer.at("data").at("result").size();
  }
  // Every query of the shipped Grafana dashboard (dashboards/gpusim-queues.json), its variables set
  // to match all, is valid PromQL; those of panels on `prefix` series answer with data.
  void dashboard_answers(const std::string& prefix) {
    const nlohmann::json dashboard = nlohmann::json::parse(slurp(fs::path(GPUSIM_SOURCE_DIR) / "dashboards" / "gpusim-queues.json"));
    std::size_t checked = 0;
    for (const auto& panel : dashboard.at("panels")) {
      if (!panel.contains("targets")) continue;
      for (const auto& target : panel.at("targets")) {
        std::string expr = target.at("expr");
        for (const char* var : {"$cluster_queue", "$queue_name", "$queue"}) {
          for (std::size_t at; (at = expr.find(var)) != std::string::npos;) expr.replace(at, std::string(var).size(), ".*");
        }
        // Over the whole run, not at its end: a range wide enough for rates.
        const std::string over_run = fmt::format("max_over_time(({})[30d:1h])", expr);
        const std::size_t n = series_of(over_run);
        if (expr.find(prefix) != std::string::npos && expr.find("weighted_share") == std::string::npos) {
          EXPECT_GT(n, 0U) << expr;
        }
        ++checked;
      }
    }
    EXPECT_GT(checked, 10U);
  }

  static double metric(const nlohmann::json& summary, const std::string& name) { return summary.at("policies")[0].at(name).at("mean"); }

  fs::path dir_;
  int port_ = 0;
  long prometheus_pid_ = 0;
  long long end_ = 0;
};

TEST_F(PrometheusQueueMetrics, KueuesSeriesAnswerWhatSummaryJsonSays) {
  const nlohmann::json summary = run_and_serve("kueue", "kueue.yaml");
  EXPECT_EQ(query("sum(kueue_admitted_workloads_total)"), metric(summary, "kueue_admissions"));
  EXPECT_EQ(query("sum(kueue_admitted_workloads_total)"), 4);  // b's two, a's, and b's again after reclaim
  EXPECT_EQ(query("sum(kueue_preempted_workloads_total{reason=\"InCohortReclamation\",preempting_cluster_queue=\"cq-a\"})"),
            metric(summary, "kueue_preemptions_InCohortReclamation"));
  EXPECT_EQ(query("kueue_evicted_workloads_total{cluster_queue=\"cq-b\",reason=\"Preempted\"}"), 1);
  EXPECT_EQ(query("sum(gpusim_queue_starved_seconds_total{system=\"kueue\"})"), metric(summary, "queue_starved_seconds"));
  EXPECT_EQ(query("kueue_cluster_queue_nominal_quota{cluster_queue=\"cq-a\",resource=\"nvidia.com/gpu\"}"), 4);
  // Borrowed at its peak: b held 8 GPUs on a quota of 4 until a reclaimed.
  EXPECT_EQ(query("max_over_time(gpusim_queue_borrowed_gpus{queue=\"cq-b\"}[2h])"), 4);
  EXPECT_EQ(query("max_over_time(gpusim_queue_lent_gpus{queue=\"cq-a\"}[2h])"), 4);
  dashboard_answers("kueue_");
}

TEST_F(PrometheusQueueMetrics, KaisSeriesAnswerWhatSummaryJsonSays) {
  const nlohmann::json summary = run_and_serve("kai", "kai.yaml");
  EXPECT_EQ(query("sum(gpusim_queue_preemptions_total{system=\"kai\",reason=\"reclaim\"})"), metric(summary, "kai_reclaim_evictions"));
  EXPECT_EQ(query("sum(gpusim_queue_starved_seconds_total{system=\"kai\"})"), metric(summary, "queue_starved_seconds"));
  EXPECT_EQ(query("kai_queue_deserved_gpus{queue_name=\"a\"}"), 4);
  // While a's job ran, a's fair share was its quota of 4 (it asked 4) and b's the other 4.
  EXPECT_EQ(query("max_over_time(kai_queue_fair_share_gpu{queue_name=\"a\"}[2h])"), 4);
  EXPECT_EQ(query("max_over_time(kai_queue_allocated_gpus{queue_name=\"b\"}[2h])"), 8);
  EXPECT_EQ(query("max_over_time(kai_queue_fair_share_gpu{queue_name=\"department\"}[2h])"), 8);
  dashboard_answers("kai_");
}

}  // namespace
}  // namespace gpusim::testing
