// The native trace format and the DLRM trace through the real binary: `trace convert` writes a
// trace that replays exactly as its source, the DLRM replay honours roles, RDMA and each service's
// per-node limit, and mistakes fail before anything is written.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

#include "tests/cli/policy_files.hpp"
#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

// pods.csv rows as column -> value maps.
std::vector<std::map<std::string, std::string>> rows_of(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::istringstream h(line);
  for (std::string f; std::getline(h, f, ',');) header.push_back(f);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::istringstream r(line);
    std::map<std::string, std::string> row;
    std::size_t i = 0;
    for (std::string f; std::getline(r, f, ',') && i < header.size(); ++i) row[header[i]] = f;
    rows.push_back(std::move(row));
  }
  return rows;
}

TEST(NativeCli, AConvertedTraceReplaysExactlyAsItsSource) {
  const auto dir = fresh_dir("native_convert");
  // The whole log converts; the replays compare a slice of it (the first 6,000 jobs, with gangs),
  // to keep the sanitizer build's run short.
  const auto whole = run_gpusim(dir, "trace convert --workload philly --out whole");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_NE(whole.out.find("82755 pods of philly (Philly job log), for cluster philly"), std::string::npos) << whole.out;
  EXPECT_EQ(slurp(dir / "whole" / "workload.jsonl").substr(0, 70),
            R"({"format":"gpusim-trace","version":1,"source":"philly","cluster":"phil)");
  copy_head(fs::path(GPUSIM_SOURCE_DIR) / "traces" / "data" / "philly" / "philly.csv", dir / "slice.csv", 6000);
  const auto convert = run_gpusim(dir, "trace convert --workload slice.csv --out conv");
  ASSERT_EQ(convert.exit_code, 0) << convert.err;
  // The native file runs on the cluster its header names, with the same results.
  const auto a = run_gpusim(dir, "run --workload slice.csv --mode replay --policy fifo --time-compression 8 --out a");
  const auto b = run_gpusim(dir, "run --workload conv/workload.jsonl --mode replay --policy fifo --time-compression 8 --out b");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(slurp(dir / "a" / "pods.csv"), slurp(dir / "b" / "pods.csv"));
  EXPECT_EQ(slurp(dir / "a" / "jobs.csv"), slurp(dir / "b" / "jobs.csv"));
  const auto sa = nlohmann::json::parse(slurp(dir / "a" / "summary.json"));
  const auto sb = nlohmann::json::parse(slurp(dir / "b" / "summary.json"));
  EXPECT_EQ(sb["inputs"]["cluster"], "philly");
  EXPECT_EQ(sa["policies"], sb["policies"]);
  EXPECT_GT(sa["policies"][0]["runs"][0]["gang_starts_spread"].get<double>(), 0);  // the slice has gangs
}

TEST(NativeCli, AConvertedDlrmTraceSchedulesAsItsSource) {
  // Its pods share two node selectors; read back, they must share them again, or the scheduler
  // would take every pod for a shape of its own (same placements, many more attempts).
  const auto dir = fresh_dir("native_dlrm");
  ASSERT_EQ(run_gpusim(dir, "trace convert --workload dlrm --out conv").exit_code, 0);
  const auto a = run_gpusim(dir, "run --workload dlrm --mode replay --policy binpack --out a");
  const auto b = run_gpusim(dir, "run --workload conv/workload.jsonl --mode replay --policy binpack --out b");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(slurp(dir / "a" / "pods.csv"), slurp(dir / "b" / "pods.csv"));
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "a" / "summary.json"))["policies"],
            nlohmann::json::parse(slurp(dir / "b" / "summary.json"))["policies"]);
}

TEST(NativeCli, MistakesFailBeforeAnythingIsWritten) {
  const auto dir = fresh_dir("native_mistakes");
  // An output folder holding someone's file is refused, and the file kept.
  fs::create_directories(dir / "mine");
  std::ofstream(dir / "mine" / "notes.txt") << "keep me\n";
  const auto foreign = run_gpusim(dir, "trace convert --workload dlrm --out mine");
  EXPECT_EQ(foreign.exit_code, 1);
  EXPECT_EQ(slurp(dir / "mine" / "notes.txt"), "keep me\n");
  EXPECT_FALSE(fs::exists(dir / "mine" / "workload.jsonl"));
  // A misspelt bundled name lists the names.
  const auto typo = run_gpusim(dir, "trace convert --workload drlm --out out");
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_NE(typo.err.find("philly, dlrm"), std::string::npos) << typo.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  // A broken native trace names its line and field; a run writes nothing.
  std::ofstream(dir / "bad.jsonl") << R"({"format":"gpusim-trace","version":1,"timed":true})" << "\n"
                                   << R"({"name":"a","gpus":1,"created_us":0,"duration_us":10,"queue":"x"})" << "\n";
  const auto bad = run_gpusim(dir, "run --workload bad.jsonl --mode replay --policy fifo --out out");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("bad.jsonl:2: queue: 'x' is not in the header's queues"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(DlrmCli, ReplayKeepsRolesRdmaAndEachServicesLimitPerNode) {
  const auto dir = fresh_dir("dlrm_limits");
  // Two GPU nodes with 4 GPUs and 100 % RDMA each, one CPU node. Service s allows 2 instances per
  // node: its 4 HN instances take 2 + 2 though a node has GPUs for all 4. Service r's instances
  // reserve 60 % RDMA: one per node. The CN instance goes to the CPU node though GPU nodes have
  // room. The last HN instance finds every node at its service's limit and waits for i0's end
  // (kube-default: the instances behind it do not wait with it).
  std::ofstream(dir / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model,rdma_percent,labels\n"
                                      "hn0,64000,262144,4,a10,100,gpusim.io/dlrm-role=HN\n"
                                      "hn1,64000,262144,4,a10,100,gpusim.io/dlrm-role=HN\n"
                                      "cn0,64000,262144,0,,100,gpusim.io/dlrm-role=CN\n";
  std::ofstream(dir / "trace.csv")
      << "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,rdma_limit,memory_request,"
         "memory_limit,disk_request,disk_limit,max_instance_per_node,creation_time,scheduled_time,deletion_time\n"
         "i0,HN,s,2,2,1,1,1,1,8.0,8.0,1,1,2,0.0,0.0,100.0\n"
         "i1,HN,s,2,2,1,1,1,1,8.0,8.0,1,1,2,1.0,1.0,1000.0\n"
         "i2,HN,s,2,2,1,1,1,1,8.0,8.0,1,1,2,2.0,2.0,1000.0\n"
         "i3,HN,s,2,2,1,1,1,1,8.0,8.0,1,1,2,3.0,3.0,1000.0\n"
         "i4,HN,s,2,2,1,1,1,1,8.0,8.0,1,1,2,4.0,4.0,1000.0\n"
         "r0,HN,r,2,2,1,1,60,60,8.0,8.0,1,1,-1,5.0,5.0,1000.0\n"
         "r1,HN,r,2,2,1,1,60,60,8.0,8.0,1,1,-1,6.0,6.0,1000.0\n"
         "c0,CN,c,2,2,0,0,1,1,8.0,8.0,1,1,-1,7.0,7.0,1000.0\n";
  const auto run = run_gpusim(dir, "run --workload trace.csv --cluster nodes.csv --mode replay --policy kube-default --out out");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::map<std::string, std::map<std::string, std::string>> by_name;
  for (auto& row : rows_of(slurp(dir / "out" / "pods.csv"))) by_name[row["name"]] = row;
  ASSERT_EQ(by_name.size(), 8u);
  std::map<std::string, int> s_per_node;
  for (const char* name : {"i0", "i1", "i2", "i3"}) ++s_per_node[by_name[name]["node"]];
  EXPECT_EQ(s_per_node, (std::map<std::string, int>{{"hn0", 2}, {"hn1", 2}}));
  // i4 waited for i0 (deleted at 100 s) and took its node.
  EXPECT_EQ(by_name["i4"]["start_s"], "100.000000");
  EXPECT_EQ(by_name["i4"]["node"], by_name["i0"]["node"]);
  // One 60 % RDMA instance per node: r0 and r1 on different nodes.
  EXPECT_NE(by_name["r0"]["node"], by_name["r1"]["node"]);
  EXPECT_EQ(by_name["r0"]["start_s"], "5.000000");
  EXPECT_EQ(by_name["r1"]["start_s"], "6.000000");
  EXPECT_EQ(by_name["c0"]["node"], "cn0");
}

TEST(PlacementCli, OptionsForGangsAndScatteringRefuseWhatTheyCannotApplyTo) {
  const auto dir = fresh_dir("placement_options");
  // The Permit timeout is the Coscheduling plugin's arg now: the old option says so, with the lines.
  const auto no_gang = run_gpusim(dir, "run --workload philly --mode replay --policy fifo --gang-timeout 30 --out out");
  EXPECT_EQ(no_gang.exit_code, 2);
  EXPECT_NE(no_gang.err.find("--gang-timeout is gone"), std::string::npos) << no_gang.err;
  EXPECT_NE(no_gang.err.find("args: {permitWaitingTimeSeconds: 30, deniedPGExpirationTimeSeconds: 20}"), std::string::npos)
      << no_gang.err;
  const auto both = run_gpusim(dir, "run --workload philly --cluster philly-gavel --throughputs gavel --mode replay "
                                    "--policy fifo --job-placement scattered --scatter-slowdown 2 --out out");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--scatter-slowdown and --throughputs"), std::string::npos) << both.err;
  const auto typo = run_gpusim(dir, "run --workload philly --mode replay --policy fifo --job-placement scatter --out out");
  EXPECT_EQ(typo.exit_code, 2);
  const auto fill = run_gpusim(dir, "run --workload philly --mode fill --policy kube-default --job-placement scattered --out out");
  EXPECT_EQ(fill.exit_code, 2);
  EXPECT_NE(fill.err.find("--job-placement applies to --mode replay only"), std::string::npos) << fill.err;
  const auto low = run_gpusim(dir, "run --workload philly --mode replay --policy fifo --scatter-slowdown 0.5 --out out");
  EXPECT_EQ(low.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(PlacementCli, TheThemisKnobAppliesToThemisOnly) {
  const auto dir = fresh_dir("themis_knob");
  const auto other = run_gpusim(dir, "run --workload philly --mode replay --policy fifo --themis-fairness 0.5 --out out");
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("--themis-fairness is gone"), std::string::npos) << other.err;
  EXPECT_NE(other.err.find("- name: Themis\n    args: {fairness: 0.5, leaseSeconds: 360}"), std::string::npos) << other.err;
  derived_policy(dir, "themis", "themis-1", "Themis", "{fairness: 1}");
  const auto range = run_gpusim(dir, "run --workload philly --mode replay --policy themis-1.yaml --out out");
  EXPECT_EQ(range.exit_code, 1);
  EXPECT_NE(range.err.find("themis-1.yaml:"), std::string::npos) << range.err;
  EXPECT_NE(range.err.find("args.fairness"), std::string::npos) << range.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  std::ofstream(dir / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                     "2017-10-01 00:00:00,600.0,8,4800.0,vc\n"
                                     "2017-10-01 00:01:00,300.0,16,4800.0,vc\n";
  derived_policy(dir, "themis", "themis-half", "Themis", "{fairness: 0.5}");
  const auto ok = run_gpusim(dir, "run --workload jobs.csv --mode replay --policy themis-half.yaml --out out");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  EXPECT_EQ(summary["inputs"]["time_sharing"]["themis_fairness"], 0.5);
  EXPECT_EQ(summary["policies"][0]["runs"][0]["completed_jobs"], 2);
  EXPECT_EQ(summary["policies"][0]["runs"][0]["lp_solves"], 0);
}

TEST(PlacementCli, ScatteredRunsRecordTheirPlacementAndCountSpreadGangs) {
  const auto dir = fresh_dir("placement_record");
  derived_policy(dir, "gang", "gang-30s", "Coscheduling", "{permitWaitingTimeSeconds: 30}");
  const auto result = run_gpusim(dir, "run --workload philly --mode replay --policy gang-30s.yaml --job-placement scattered "
                                      "--scatter-slowdown 1.5 --out out");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  EXPECT_EQ(summary["inputs"]["placement"]["job_placement"], "scattered");
  EXPECT_EQ(summary["inputs"]["placement"]["scatter_slowdown"], 1.5);
  EXPECT_EQ(summary["inputs"]["gang"]["permit_timeout_s"], 30);
  const auto& run = summary["policies"][0]["runs"][0];
  // 5,331 jobs of 2-8 GPUs became gangs, besides the log's 289: every one started once.
  EXPECT_EQ(run["gang_starts_spread"].get<double>() + run["gang_starts_on_one_node"].get<double>(), 5620);
  EXPECT_EQ(run["completed_jobs"], 82247);
}

}  // namespace
}  // namespace gpusim::testing
