// The native JSON Lines trace format (traces/FORMAT.md): what each field becomes, that writing and
// reading back loses nothing, and refusals that name file, line and field.
#include <gtest/gtest.h>

#include <sstream>

#include "sim/core/status.hpp"
#include "tests/scenario/test_cluster.hpp"
#include "traces/native_format.hpp"

namespace gpusim::traces {
namespace {

constexpr const char* kHeader =
    R"({"format":"gpusim-trace","version":1,"timed":true,"queues":["vc-a","vc-b"],"apps":["svc"]})"
    "\n";

class NativeFormat : public ::testing::Test {
 protected:
  cluster::GpuCatalog catalog = gpusim::testing::two_model_catalog();

  Workload read(const std::string& lines, const std::string& header = kHeader) {
    std::istringstream in(header + lines);
    return read_native_workload(in, "t.jsonl", catalog);
  }
  std::string error_of(const std::string& lines, const std::string& header = kHeader) {
    try {
      read(lines, header);
    } catch (const core::InputError& e) {
      return e.what();
    }
    return "no error";
  }
};

TEST_F(NativeFormat, FieldsBecomeThePodsRequestsTimesAndNames) {
  const Workload w = read(
      R"({"name":"a","cpu_milli":4000,"memory_mib":1024,"gpus":1,"gpu_milli":250,"gpu_models":["model-a"],"qos":"LS","priority":5,)"
      R"("phase":"Running","created_us":10,"deleted_us":100,"duration_us":80,"queue":"vc-b","app":"svc","max_per_node":2,)"
      R"("rdma_percent":25,"node_selector":{"role":"HN"}})"
      "\n"
      R"({"name":"b","gpus":2,"gang":7,"created_us":0,"duration_us":5})"
      "\n\n# a comment\n"
      R"({"name":"c","gpus":2,"gang":7,"created_us":0,"duration_us":5})"
      "\n");
  ASSERT_EQ(w.pods.size(), 3u);
  EXPECT_EQ(w.skipped_lines, 2);
  EXPECT_TRUE(w.has_times);
  EXPECT_TRUE(w.has_gangs);
  const cluster::PodSpec& a = w.pods[0];
  EXPECT_EQ(a.cpu_milli, 4000);
  EXPECT_EQ(a.memory_mib, 1024);
  EXPECT_EQ(a.gpu_count, 1);
  EXPECT_EQ(a.gpu_milli, 250);
  EXPECT_TRUE(a.allowed_models.allows(*catalog.find("model-a")));
  EXPECT_FALSE(a.allowed_models.allows(*catalog.find("model-b")));
  EXPECT_EQ(a.qos, cluster::Qos::kLatencySensitive);
  EXPECT_EQ(a.priority, 5);
  EXPECT_EQ(a.phase, cluster::TracePhase::kRunning);
  EXPECT_EQ(a.creation_time->micros(), 10);
  EXPECT_EQ(a.deletion_time->micros(), 100);
  EXPECT_EQ(a.duration->micros(), 80);
  EXPECT_EQ(a.queue, 1);
  EXPECT_EQ(a.app, 0);
  EXPECT_EQ(a.max_per_node, 2);
  EXPECT_EQ(a.rdma_percent, 25);
  ASSERT_NE(a.constraints, nullptr);
  EXPECT_EQ(a.constraints->node_selector, (cluster::Labels{{"role", "HN"}}));
  // Defaults: whole GPUs, no queue named (the first), no app.
  EXPECT_EQ(w.pods[1].gpu_milli, 1000);
  EXPECT_EQ(w.pods[1].gang, 1u);  // gang 7, the first: renumbered 1
  EXPECT_EQ(w.pods[1].app, -1);
  EXPECT_EQ(w.pods[1].constraints, nullptr);
}

TEST_F(NativeFormat, WritingAndReadingBackGivesTheSameWorkload) {
  const Workload w = read(
      R"({"name":"a","cpu_milli":4000,"gpus":1,"gpu_milli":250,"gpu_models":["model-b"],"phase":"Pending","created_us":10,)"
      R"("deleted_us":100,"duration_us":80,"queue":"vc-b","app":"svc","max_per_node":2,"rdma_percent":25})"
      "\n"
      R"({"name":"b","created_us":3,"duration_us":5,"node_selector":{"k":"v"}})"
      "\n");
  std::ostringstream out;
  write_native_workload(out, w, catalog, "openb");
  EXPECT_EQ(out.str().substr(0, out.str().find('\n')),
            R"({"format":"gpusim-trace","version":1,"source":"t.jsonl","cluster":"openb","timed":true,)"
            R"("queues":["vc-a","vc-b"],"apps":["svc"]})");
  EXPECT_EQ(native_default_cluster(out.str().substr(0, out.str().find('\n'))), "openb");
  std::istringstream in(out.str());
  const Workload back = read_native_workload(in, "back.jsonl", catalog);
  ASSERT_EQ(back.pods.size(), 2u);
  std::ostringstream again;
  write_native_workload(again, back, catalog, "openb");
  // The same lines but the header's source.
  EXPECT_EQ(again.str().substr(again.str().find('\n')), out.str().substr(out.str().find('\n')));
  EXPECT_EQ(back.pods[0].allowed_models, w.pods[0].allowed_models);
  EXPECT_EQ(back.pods[0].phase, cluster::TracePhase::kPending);
}

TEST_F(NativeFormat, RefusalsNameTheFileLineAndField) {
  EXPECT_EQ(error_of(R"({"name":"a","gpu":1,"created_us":0,"duration_us":1})"
                     "\n"),
            "t.jsonl:2: gpu: unknown field (known: name, cpu_milli, memory_mib, gpus, gpu_milli, gpu_demand_milli, "
            "gpu_models, qos, priority, phase, created_us, deleted_us, duration_us, gang, queue, app, max_per_node, "
            "rdma_percent, node_selector)");
  EXPECT_EQ(error_of(R"({"name":"a","gpus":2,"gpu_milli":500,"created_us":0,"duration_us":1})"
                     "\n"),
            "t.jsonl:2: gpu_milli: a fraction of a GPU is only allowed with gpus 1");
  EXPECT_EQ(error_of(R"({"name":"a","gpus":1,"created_us":1.5,"duration_us":1})"
                     "\n"),
            "t.jsonl:2: created_us: 1.5 is not an integer");
  EXPECT_EQ(error_of(R"({"name":"a","created_us":0})"
                     "\n"),
            "t.jsonl:2: duration_us: missing (the header says the trace is timed)");
  EXPECT_EQ(error_of(R"({"name":"a","queue":"vc-z","created_us":0,"duration_us":1})"
                     "\n"),
            "t.jsonl:2: queue: 'vc-z' is not in the header's queues");
  EXPECT_EQ(error_of(R"({"name":"a","gpus":1,"gpu_models":["z80"],"created_us":0,"duration_us":1})"
                     "\n")
                .substr(0, 46),
            "t.jsonl:2: gpu_models: unknown GPU model 'z80'");
  EXPECT_EQ(error_of(R"({"name":"a","created_us":5,"deleted_us":4,"duration_us":0})"
                     "\n"),
            "t.jsonl:2: deleted_us: before created_us");
  EXPECT_EQ(error_of(R"({"name":"a","created_us":0,"duration_us":1})"
                     "\n"
                     R"({"name":"a","created_us":0,"duration_us":1})"
                     "\n"),
            "t.jsonl:3: name: duplicate pod name 'a' (first at line 2)");
  EXPECT_EQ(error_of(R"({"name":"a","gang":1,"created_us":0,"duration_us":1})"
                     "\n"
                     R"({"name":"b","created_us":0,"duration_us":1})"
                     "\n"
                     R"({"name":"c","gang":1,"created_us":0,"duration_us":1})"
                     "\n"),
            "t.jsonl:4: gang: gang 1's pods must be consecutive lines (its first is line 2)");
  EXPECT_EQ(error_of("{\"name\":\"a\",\n").substr(0, 34), "t.jsonl:2: not a JSON object: [jso");
  EXPECT_EQ(error_of("", R"({"format":"gpusim-trace","version":2,"timed":true})"
                         "\n"),
            "t.jsonl:1: version: version 2 is newer than this gpusim reads (1)");
  EXPECT_EQ(error_of("", R"({"format":"gpusim-trace","version":1})"
                         "\n"),
            "t.jsonl:1: timed: missing, expected true or false");
  EXPECT_EQ(error_of(""), "t.jsonl: no pods");
  EXPECT_EQ(error_of(R"({"name":"a","cpu_milli":99999999999999999999,"created_us":0,"duration_us":1})"
                     "\n")
                .substr(0, 21),
            "t.jsonl:2: cpu_milli:");
}

TEST_F(NativeFormat, GangsAreRenumberedAndSelectorsShared) {
  // Gang numbers are labels: the largest a file may give reads as 1 (the scheduler indexes gangs).
  const Workload w = read(
      R"({"name":"a","gang":4294967295,"created_us":0,"duration_us":1,"node_selector":{"role":"HN"}})"
      "\n"
      R"({"name":"b","gang":4294967295,"created_us":0,"duration_us":1,"node_selector":{"role":"HN"}})"
      "\n"
      R"({"name":"c","gang":7,"created_us":0,"duration_us":1,"node_selector":{"role":"CN"}})"
      "\n");
  EXPECT_EQ(w.pods[0].gang, 1u);
  EXPECT_EQ(w.pods[1].gang, 1u);
  EXPECT_EQ(w.pods[2].gang, 2u);
  // One rules object per distinct selector, as the DLRM reader shares them.
  EXPECT_EQ(w.pods[0].constraints.get(), w.pods[1].constraints.get());
  EXPECT_NE(w.pods[0].constraints.get(), w.pods[2].constraints.get());
}

TEST_F(NativeFormat, AKeyGivenTwiceIsAnError) {
  EXPECT_EQ(error_of(R"({"name":"a","gpus":1,"gpus":2,"created_us":0,"duration_us":1})"
                     "\n"),
            "t.jsonl:2: gpus: given twice");
  EXPECT_EQ(error_of("", R"({"format":"gpusim-trace","version":1,"version":1,"timed":true})"
                         "\n"),
            "t.jsonl:1: version: given twice");
}

TEST_F(NativeFormat, AByteOrderMarkAndLeadingCommentsAreSkipped) {
  const Workload w = read(R"({"name":"a","created_us":0,"duration_us":1})"
                          "\n",
                          std::string("\xEF\xBB\xBF# made by hand\n") + kHeader);
  ASSERT_EQ(w.pods.size(), 1u);
  EXPECT_EQ(w.skipped_lines, 1);
}

TEST_F(NativeFormat, ManifestDetailIsRefusedWhenWriting) {
  Workload w = read(R"({"name":"a","created_us":0,"duration_us":1})"
                    "\n");
  auto rules = std::make_shared<cluster::PodConstraints>();
  rules->containers.push_back({"main", 1000, 0, 0});
  w.pods[0].constraints = rules;
  std::ostringstream out;
  EXPECT_THROW(write_native_workload(out, w, catalog, ""), core::InputError);
}

}  // namespace
}  // namespace gpusim::traces
