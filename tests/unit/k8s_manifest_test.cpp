// The Kubernetes manifest reader (traces/k8s_manifests.hpp) and its quantity and duration rules
// (traces/k8s_quantity.hpp): what Kubernetes accepts is read as Kubernetes reads it, and
// everything else is an error that names file, line and field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/core/status.hpp"
#include "traces/bundled.hpp"
#include "traces/k8s_manifests.hpp"
#include "traces/k8s_quantity.hpp"

namespace gpusim::traces {
namespace {

namespace fs = std::filesystem;
using core::Time;

// ---------------------------------------------------------------- quantities

std::int64_t cpu(std::string_view text) {
  const auto parsed = cpu_millicores(text);
  EXPECT_TRUE(parsed) << text << ": " << parsed.error;
  return parsed.value.value_or(-1);
}
std::int64_t mib(std::string_view text) {
  const auto parsed = memory_mib(text);
  EXPECT_TRUE(parsed) << text << ": " << parsed.error;
  return parsed.value.value_or(-1);
}
std::string cpu_error(std::string_view text) { return cpu_millicores(text).error; }

TEST(K8sQuantity, CpuRoundsUpToTheMilli) {
  EXPECT_EQ(cpu("500m"), 500);
  EXPECT_EQ(cpu("2"), 2000);
  EXPECT_EQ(cpu("0.5"), 500);
  EXPECT_EQ(cpu(".5"), 500);
  EXPECT_EQ(cpu("5."), 5000);
  EXPECT_EQ(cpu("+1"), 1000);
  EXPECT_EQ(cpu("1e3"), 1'000'000);
  EXPECT_EQ(cpu("1E3"), 1'000'000);
  EXPECT_EQ(cpu("1e-3"), 1);
  EXPECT_EQ(cpu("1E+2"), 100'000);
  EXPECT_EQ(cpu("1k"), 1'000'000);
  EXPECT_EQ(cpu("1Ki"), 1'024'000);
  EXPECT_EQ(cpu("1n"), 1);  // Kubernetes' MilliValue rounds up
  EXPECT_EQ(cpu("1500u"), 2);
  EXPECT_EQ(cpu("0.1m"), 1);
  EXPECT_EQ(cpu("1.0001"), 1001);
  EXPECT_EQ(cpu("0"), 0);
  EXPECT_EQ(cpu("0.000"), 0);
  EXPECT_EQ(cpu("000250m"), 250);
  EXPECT_EQ(cpu("1e-999999999"), 1);
  EXPECT_EQ(cpu("0.0000000000000000000000000000000000000000001"), 1);
}

TEST(K8sQuantity, MemoryRoundsUpToTheMiB) {
  EXPECT_EQ(mib("16Gi"), 16 * 1024);
  EXPECT_EQ(mib("1Mi"), 1);
  EXPECT_EQ(mib("1.5Gi"), 1536);
  EXPECT_EQ(mib("512Ki"), 1);
  EXPECT_EQ(mib("1Ki"), 1);
  EXPECT_EQ(mib("1048576"), 1);
  EXPECT_EQ(mib("1048577"), 2);
  EXPECT_EQ(mib("1e3"), 1);
  EXPECT_EQ(mib("1G"), 954);         // 10^9 / 2^20 = 953.67
  EXPECT_EQ(mib("128974848"), 123);  // Kubernetes' documentation example: 123Mi
  EXPECT_EQ(mib("129e6"), 124);
  EXPECT_EQ(mib("0.5Ki"), 1);
  EXPECT_EQ(mib("1Ti"), 1024 * 1024);
  EXPECT_EQ(mib("1E"), 953'674'316'407);  // 10^18 bytes
  EXPECT_EQ(mib("1m"), 1);                // a thousandth of a byte still needs a MiB
}

TEST(K8sQuantity, WholeCountsRefuseFractions) {
  EXPECT_EQ(whole_count("2", 64).value, 2);
  EXPECT_EQ(whole_count("1000m", 64).value, 1);
  EXPECT_EQ(whole_count("1e1", 64).value, 10);
  EXPECT_EQ(whole_count("0", 64).value, 0);
  for (const char* fraction : {"0.5", "500m", "1.5", "1n", "1e-1"}) {
    const auto parsed = whole_count(fraction, 64);
    EXPECT_FALSE(parsed) << fraction;
    EXPECT_NE(parsed.error.find("not a whole number"), std::string::npos) << parsed.error;
  }
  EXPECT_NE(whole_count("65", 64).error.find("out of range (at most 64)"), std::string::npos);
  EXPECT_NE(whole_count("1Ki", 64).error.find("out of range"), std::string::npos);
}

TEST(K8sQuantity, RejectsGarbageNegativesAndOverflow) {
  EXPECT_NE(cpu_error("-1").find("negative"), std::string::npos);
  EXPECT_NE(cpu_error("-500m").find("negative"), std::string::npos);
  EXPECT_NE(cpu_error("").find("empty"), std::string::npos);
  for (const char* garbage : {"abc", "1K", "1e", "1 m", "1mi", "1.2.3", ".", "+", "1ee3", "NaN", "nan", "inf", "0x10",
                              "1e3.5", "1Kib", " 1", "1m "}) {
    EXPECT_FALSE(cpu_millicores(garbage)) << garbage;
    EXPECT_FALSE(cpu_millicores(garbage).error.empty()) << garbage;
  }
  EXPECT_NE(cpu_error("1K").find("unknown suffix 'K'"), std::string::npos) << cpu_error("1K");
  // Sizes are capped at 10^12 (millicores, MiB), as openb's readers cap them.
  EXPECT_EQ(cpu("1G"), 1'000'000'000'000);
  EXPECT_NE(cpu_error("1000000001").find("out of range (at most 1000000000000 millicores)"), std::string::npos);
  EXPECT_NE(cpu_error("1Ei").find("out of range"), std::string::npos);
  EXPECT_NE(cpu_error("1e999999999").find("out of range"), std::string::npos);
  EXPECT_NE(cpu_error("1e99999999999").find("exponent out of range"), std::string::npos);
  EXPECT_NE(cpu_error("99999999999999999999999999999999999999999999").find("out of range"), std::string::npos);
  EXPECT_NE(memory_mib("2E").error.find("out of range (at most 1000000000000 MiB)"), std::string::npos);
  EXPECT_EQ(mib("1000000000000Mi"), 1'000'000'000'000);
  EXPECT_FALSE(memory_mib("1000000000001Mi"));
}

TEST(K8sQuantity, ParsesExactly) {
  const auto q = parse_quantity("12.500Ki");
  ASSERT_TRUE(q) << q.error;
  EXPECT_EQ(q.value->digits, "125");
  EXPECT_EQ(q.value->exp10, -1);
  EXPECT_EQ(q.value->exp2, 10);
  EXPECT_TRUE(parse_quantity("0.0e5").value->is_zero());
}

// ---------------------------------------------------------------- durations

Time duration(std::string_view text) {
  const auto parsed = parse_go_duration(text);
  EXPECT_TRUE(parsed) << text << ": " << parsed.error;
  return parsed.value.value_or(Time::from_micros(-1));
}

TEST(K8sQuantity, GoDurations) {
  EXPECT_EQ(duration("90s"), Time::from_seconds(90));
  EXPECT_EQ(duration("1h30m"), Time::from_seconds(5400));
  EXPECT_EQ(duration("500ms"), Time::from_micros(500'000));
  EXPECT_EQ(duration("2h"), Time::from_seconds(7200));
  EXPECT_EQ(duration("0"), Time::zero());
  EXPECT_EQ(duration("0s"), Time::zero());
  EXPECT_EQ(duration("+5s"), Time::from_seconds(5));
  EXPECT_EQ(duration("1.5h"), Time::from_seconds(5400));
  EXPECT_EQ(duration(".5s"), Time::from_micros(500'000));
  EXPECT_EQ(duration("1h1m1s1ms1us"), Time::from_micros(3'661'001'001));
  EXPECT_EQ(duration("3\xC2\xB5s"), Time::from_micros(3));  // µs, U+00B5
  EXPECT_EQ(duration("3\xCE\xBCs"), Time::from_micros(3));  // μs, U+03BC
  EXPECT_EQ(duration("1ns"), Time::from_micros(1));         // up to gpusim's microsecond
  EXPECT_EQ(duration("1000ns"), Time::from_micros(1));
  EXPECT_EQ(duration("1001ns"), Time::from_micros(2));
  EXPECT_EQ(duration("0.0000000001s"), Time::from_micros(1));
  EXPECT_EQ(duration("1000000000000s"), Time::from_seconds(Time::kMaxInputSeconds));
}

TEST(K8sQuantity, BadDurations) {
  for (const char* bad :
       {"", "1", "s", "h1", "1d", "1H", "1.s5", "1 s", "1s ", "-", "+", ".s", "1h-5m", "NaN", "inf", "1e3s"}) {
    const auto parsed = parse_go_duration(bad);
    EXPECT_FALSE(parsed) << bad;
    EXPECT_FALSE(parsed.error.empty()) << bad;
  }
  EXPECT_NE(parse_go_duration("-1s").error.find("negative"), std::string::npos);
  EXPECT_NE(parse_go_duration("1d").error.find("unknown unit 'd'"), std::string::npos);
  EXPECT_NE(parse_go_duration("1").error.find("missing unit"), std::string::npos);
  EXPECT_NE(parse_go_duration("1000000000001s").error.find("out of range"), std::string::npos);
  EXPECT_NE(parse_go_duration("277777778h").error.find("out of range"), std::string::npos);
  EXPECT_NE(parse_go_duration("99999999999999999999999999999999h").error.find("out of range"), std::string::npos);
}

// ---------------------------------------------------------------- manifests

class K8sManifestTest : public ::testing::Test {
 protected:
  cluster::GpuCatalog catalog = cluster::GpuCatalog::load(default_catalog(default_data_root()));

  ClusterSpec nodes(const std::string& text) { return parse_k8s_nodes(text, "nodes.yaml", catalog); }
  Workload pods(const std::string& text) { return parse_k8s_workload(text, "pods.yaml", catalog); }
  std::string node_error(const std::string& text) {
    try {
      nodes(text);
    } catch (const core::InputError& e) {
      return e.what();
    }
    return "no error";
  }
  std::string pod_error(const std::string& text) {
    try {
      pods(text);
    } catch (const core::InputError& e) {
      return e.what();
    }
    return "no error";
  }
  std::string model(const cluster::NodeSpec& node) const { return catalog.at(node.gpu_model).id; }
  fs::path example(const std::string& name) const { return fs::path(GPUSIM_SOURCE_DIR) / "traces" / "examples" / name; }
};

// Each error message starts with "file:LINE: field: ".
#define EXPECT_ERROR_AT(message, prefix) EXPECT_TRUE(std::string(message).starts_with(prefix)) << (message)

bool has_note(const std::vector<std::string>& notes, const std::string& text) {
  return std::find(notes.begin(), notes.end(), text) != notes.end();
}

std::string joined(const std::vector<std::string>& notes) {
  std::string out;
  for (const auto& n : notes) out += n + "\n";
  return out;
}

constexpr const char* kV100Node = R"(apiVersion: v1
kind: Node
metadata:
  name: gpu-a
  labels:
    zone: east
    nvidia.com/gpu.product: Tesla-V100-SXM2-32GB
    alpha: "1"
  annotations:
    gpusim.io/device-choice: preferred
    gpusim.io/topology: dgx1-v100
    gpusim.io/joins-at: 10m
    gpusim.io/leaves-at: 2h
spec:
  taints:
  - key: gpu
    value: "true"
    effect: NoSchedule
  - key: maintenance
    effect: PreferNoSchedule
status:
  capacity:
    cpu: "64"
    memory: 512Gi
    nvidia.com/gpu: "8"
  allocatable:
    cpu: 63500m
    memory: 500Gi
    nvidia.com/gpu: "8"
    example.com/fpga: "2"
)";

TEST_F(K8sManifestTest, ReadsANodeYaml) {
  const ClusterSpec spec = nodes(kV100Node);
  ASSERT_EQ(spec.nodes.size(), 1U);
  ASSERT_EQ(spec.kube.size(), 1U);
  const cluster::NodeSpec& n = spec.nodes[0];
  EXPECT_EQ(spec.source, "nodes.yaml");
  EXPECT_EQ(n.name, "gpu-a");
  EXPECT_EQ(n.cpu_milli, 63'500);  // allocatable, not capacity
  EXPECT_EQ(n.memory_mib, 500 * 1024);
  EXPECT_EQ(n.gpu_count, 8);
  EXPECT_EQ(model(n), "v100-sxm2-32gb");
  EXPECT_EQ(n.gpu_resource, cluster::GpuResource::kNvidiaGpu);
  ASSERT_EQ(n.labels.size(), 3U);  // in file order
  EXPECT_EQ(n.labels[0], (std::pair<std::string, std::string>{"zone", "east"}));
  EXPECT_EQ(n.labels[1].first, "nvidia.com/gpu.product");
  EXPECT_EQ(n.labels[2], (std::pair<std::string, std::string>{"alpha", "1"}));
  ASSERT_EQ(n.taints.size(), 2U);
  EXPECT_EQ(n.taints[0].key, "gpu");
  EXPECT_EQ(n.taints[0].value, "true");
  EXPECT_EQ(n.taints[0].effect, "NoSchedule");
  EXPECT_EQ(n.taints[1].value, "");
  EXPECT_EQ(n.taints[1].effect, "PreferNoSchedule");
  const NodeKube& k = spec.kube[0];
  EXPECT_EQ(k.device_plugin, "device-plugin");  // the default for nvidia.com/gpu
  EXPECT_EQ(k.device_choice, "preferred");
  EXPECT_EQ(k.topology, "dgx1-v100");
  EXPECT_EQ(k.joins_at, Time::from_seconds(600));
  EXPECT_EQ(k.leaves_at, Time::from_seconds(7200));
  EXPECT_TRUE(
      has_note(spec.notes, "1 node without gpusim.io/device-plugin: device-plugin (it advertises nvidia.com/gpu), unless a --kube pool or devicePlugin names another model"))
      << joined(spec.notes);
  EXPECT_TRUE(has_note(spec.notes, "node resources gpusim does not model (ignored): example.com/fpga (1 node)"))
      << joined(spec.notes);
}

// What `kubectl get nodes -o json` prints (trimmed): a List whose items are Nodes.
constexpr const char* kNodeListJson = R"({
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
                "labels": {
                    "kubernetes.io/hostname": "t4-0",
                    "nvidia.com/gpu.count": "4",
                    "nvidia.com/gpu.memory": "15360",
                    "nvidia.com/gpu.product": "Tesla-T4"
                },
                "name": "t4-0"
            },
            "spec": {"podCIDR": "10.0.0.0/24"},
            "status": {
                "allocatable": {"cpu": "15890m", "ephemeral-storage": "93478772582", "hugepages-2Mi": "0",
                                "memory": "61255884Ki", "nvidia.com/gpu": "4", "pods": "110", "rdma/hca": "1k"},
                "capacity": {"cpu": "16", "memory": "62904524Ki", "nvidia.com/gpu": "4", "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True"}]
            }
        },
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"labels": {"kubernetes.io/hostname": "cpu-0"}, "name": "cpu-0"},
            "spec": {"unschedulable": true},
            "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110", "rdma/hca": "1k"}}
        },
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "not-a-node"}
        }
    ],
    "kind": "List",
    "metadata": {"resourceVersion": ""}
}
)";

TEST_F(K8sManifestTest, ReadsAKubectlJsonList) {
  const ClusterSpec spec = nodes(kNodeListJson);
  ASSERT_EQ(spec.nodes.size(), 2U);
  const auto& t4 = spec.nodes[0];
  EXPECT_EQ(t4.name, "t4-0");
  EXPECT_EQ(t4.cpu_milli, 15'890);
  EXPECT_EQ(t4.memory_mib, 59'821);  // 61255884 KiB / 1024 = 59820.2, rounded up
  EXPECT_EQ(t4.gpu_count, 4);
  EXPECT_EQ(model(t4), "t4");
  const auto& cpu_node = spec.nodes[1];
  EXPECT_EQ(cpu_node.gpu_count, 0);
  EXPECT_EQ(cpu_node.memory_mib, 32 * 1024);
  EXPECT_EQ(spec.kube[1].device_plugin, "");  // no GPUs: the --kube settings decide
  // A cordoned node gets the taint Kubernetes gives it.
  ASSERT_EQ(cpu_node.taints.size(), 1U);
  EXPECT_EQ(cpu_node.taints[0].key, "node.kubernetes.io/unschedulable");
  EXPECT_EQ(cpu_node.taints[0].effect, "NoSchedule");
  EXPECT_TRUE(has_note(spec.notes, "node resources gpusim does not model (ignored): rdma/hca (2 nodes)"))
      << joined(spec.notes);
  EXPECT_TRUE(has_note(spec.notes, "skipped 1 object gpusim does not read here (Node only): Service at line 32"))
      << joined(spec.notes);
  EXPECT_TRUE(has_note(spec.notes,
                       "1 node has spec.unschedulable: tainted node.kubernetes.io/unschedulable:NoSchedule, as "
                       "Kubernetes does: cpu-0"))
      << joined(spec.notes);
}

TEST_F(K8sManifestTest, TypedListsGiveTheirItemsAKind) {
  const ClusterSpec spec = nodes(R"(kind: NodeList
apiVersion: v1
items:
- metadata: {name: a}
  status: {capacity: {cpu: "1", memory: 1Gi}}
)");
  ASSERT_EQ(spec.nodes.size(), 1U);
  EXPECT_EQ(spec.nodes[0].cpu_milli, 1000);  // capacity when there is no allocatable
}

TEST_F(K8sManifestTest, GfdLabelsAloneGiveCountAndModel) {
  const ClusterSpec spec = nodes(R"(kind: Node
metadata:
  name: a100-0
  labels:
    nvidia.com/gpu.count: "8"
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB
status:
  allocatable: {cpu: "96", memory: 1Ti}
---
kind: Node
metadata:
  name: a100-1
  labels:
    nvidia.com/gpu.count: "8"
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
status:
  allocatable: {cpu: "96", memory: 1Ti}
)");
  ASSERT_EQ(spec.nodes.size(), 2U);
  EXPECT_EQ(spec.nodes[0].gpu_count, 8);
  EXPECT_EQ(model(spec.nodes[0]), "a100-sxm4-40gb");
  EXPECT_EQ(model(spec.nodes[1]), "a100-sxm4-80gb");
  EXPECT_EQ(spec.nodes[0].gpu_resource, cluster::GpuResource::kNvidiaGpu);
  EXPECT_EQ(spec.kube[0].device_plugin, "device-plugin");
  EXPECT_TRUE(has_note(spec.notes,
                       "2 nodes without gpusim.io/device-plugin: device-plugin (they have only GPU feature "
                       "discovery labels (nvidia.com/gpu.count)), unless a --kube pool or devicePlugin names another model"))
      << joined(spec.notes);
}

TEST_F(K8sManifestTest, DevicePluginDefaultsAndEras) {
  const ClusterSpec spec = nodes(R"(kind: Node
metadata: {name: n16, labels: {alpha.kubernetes.io/nvidia-gpu-name: Tesla K80}}
status: {allocatable: {cpu: "8", memory: 8Gi, alpha.kubernetes.io/nvidia-gpu: "2"}}
---
kind: Node
metadata:
  name: n13
  labels: {nvidia.com/gpu.product: Tesla-K80, nvidia.com/gpu.count: "4"}
  annotations: {gpusim.io/device-plugin: alpha-1.3}
status: {capacity: {cpu: "8", memory: 8Gi, alpha.kubernetes.io/nvidia-gpu: "1"}}
---
kind: Node
metadata:
  name: share
  labels: {nvidia.com/gpu.product: Tesla-T4}
  annotations: {gpusim.io/device-plugin: scheduler-assigned}
status: {allocatable: {cpu: "8", memory: 8Gi, nvidia.com/gpu: "2"}}
---
kind: Node
metadata:
  name: dp
  labels: {nvidia.com/gpu.product: Tesla-T4, nvidia.com/gpu.count: "4"}
status: {allocatable: {cpu: "8", memory: 8Gi, nvidia.com/gpu: "3"}}
---
kind: Node
metadata:
  name: sick
  labels: {nvidia.com/gpu.product: Tesla-T4}
status:
  allocatable: {cpu: "8", memory: 8Gi, nvidia.com/gpu: "3"}
  capacity: {cpu: "8", memory: 8Gi, nvidia.com/gpu: "4"}
)");
  ASSERT_EQ(spec.nodes.size(), 5U);
  EXPECT_EQ(spec.kube[0].device_plugin, "accelerators-1.6");
  EXPECT_EQ(spec.nodes[0].gpu_resource, cluster::GpuResource::kAlphaNvidiaGpu);
  EXPECT_EQ(model(spec.nodes[0]), "k80");
  // 1.3: the kubelet flag exposes one GPU; the node has the four GFD counts.
  EXPECT_EQ(spec.kube[1].device_plugin, "alpha-1.3");
  EXPECT_EQ(spec.nodes[1].gpu_count, 4);
  EXPECT_EQ(spec.kube[2].device_plugin, "scheduler-assigned");
  EXPECT_EQ(spec.nodes[2].gpu_count, 2);
  EXPECT_EQ(spec.nodes[3].gpu_count, 3);  // what the plugin advertises
  EXPECT_EQ(spec.nodes[4].gpu_count, 3);  // allocatable, not capacity
  EXPECT_TRUE(has_note(spec.notes,
                       "node sick has 3 nvidia.com/gpu allocatable of 4 in capacity (unhealthy GPUs when it was "
                       "dumped?): gpusim uses 3, all healthy at the start"))
      << joined(spec.notes);
  EXPECT_TRUE(has_note(spec.notes,
                       "1 node without gpusim.io/device-plugin: accelerators-1.6 (it advertises "
                       "alpha.kubernetes.io/nvidia-gpu)"))
      << joined(spec.notes);
  EXPECT_TRUE(
      has_note(spec.notes, "node dp advertises 3 GPUs but its label nvidia.com/gpu.count says 4: gpusim uses 3"))
      << joined(spec.notes);
}

TEST_F(K8sManifestTest, ResolvesGpuProductNames) {
  const auto id = [&](std::string_view name, std::optional<std::int64_t> memory = std::nullopt) {
    std::string why;
    const auto found = resolve_gpu_product(name, memory, catalog, &why);
    return found ? catalog.at(*found).id : "none: " + why;
  };
  EXPECT_EQ(id("V100M32"), "v100-sxm2-32gb");  // catalog alias
  EXPECT_EQ(id("t4"), "t4");                   // catalog id
  EXPECT_EQ(id("Tesla-V100-SXM2-32GB"), "v100-sxm2-32gb");
  EXPECT_EQ(id("Tesla-V100-SXM2-16GB"), "v100-sxm2-16gb");
  EXPECT_EQ(id("Tesla-V100-PCIE-32GB"), "v100-pcie");
  EXPECT_EQ(id("NVIDIA-A100-SXM4-40GB"), "a100-sxm4-40gb");
  EXPECT_EQ(id("Tesla-T4"), "t4");
  EXPECT_EQ(id("Tesla K80"), "k80");
  EXPECT_EQ(id("tesla_k80"), "k80");
  EXPECT_EQ(id("Tesla P100"), "p100-pcie-16gb");  // the catalog's alias P100
  EXPECT_EQ(id("Tesla-P100-SXM2-16GB"), "p100-sxm2-16gb");
  EXPECT_EQ(id("NVIDIA-A10"), "a10");  // whole words: not the A100
  EXPECT_EQ(id("NVIDIA-L4"), "l4");    // not the L40S
  EXPECT_EQ(id("NVIDIA-L40S"), "l40s");
  EXPECT_EQ(id("NVIDIA-H100-80GB-HBM3"), "h100-sxm5-80gb");
  EXPECT_EQ(id("NVIDIA-H100-PCIe"), "h100-pcie-80gb");
  EXPECT_EQ(id("NVIDIA-H200"), "h200-sxm-141gb");
  // "Tesla V100" names three parts; GFD's memory label picks the 16 GB or the 32 GB one.
  EXPECT_EQ(id("Tesla V100", 32510), "v100-sxm2-32gb");
  EXPECT_EQ(id("Tesla V100", 16160), "v100-sxm2-16gb");
  EXPECT_TRUE(id("Tesla V100")
                  .starts_with("none: 'Tesla V100' matches several catalog models: v100-pcie, v100-sxm2-16gb, "
                               "v100-sxm2-32gb"))
      << id("Tesla V100");
  EXPECT_TRUE(id("NVIDIA-GeForce-RTX-3090")
                  .starts_with("none: 'NVIDIA-GeForce-RTX-3090' matches no GPU model of the catalog "
                               "(catalog ids: k80,"))
      << id("NVIDIA-GeForce-RTX-3090");
  EXPECT_TRUE(id("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb").starts_with("none:"));
  EXPECT_TRUE(id("NVIDIA").starts_with("none:"));
  EXPECT_TRUE(id("").starts_with("none:"));
}

// gpushare's nodes advertise aliyun.com/gpu-count (and GiB over all GPUs): gpushare by default,
// each GPU sized as gpushare's extender does, GiB over GPU count (60 / 4 = 15 GiB, where the
// catalog's T4 has 16), with a note.
TEST_F(K8sManifestTest, GpushareNodes) {
  const ClusterSpec spec = nodes(R"(kind: Node
metadata:
  name: share
  labels: {nvidia.com/gpu.product: Tesla-T4}
status:
  capacity: {cpu: "32", memory: 128Gi, aliyun.com/gpu-count: "4", aliyun.com/gpu-mem: "60"}
)");
  ASSERT_EQ(spec.nodes.size(), 1U);
  EXPECT_EQ(spec.nodes[0].gpu_count, 4);
  EXPECT_EQ(spec.nodes[0].gpu_resource, cluster::GpuResource::kAliyunGpuMem);
  EXPECT_EQ(spec.kube[0].device_plugin, "gpushare");
  EXPECT_TRUE(has_note(spec.notes, "1 node without gpusim.io/device-plugin: gpushare (it advertises aliyun.com/gpu-count)"))
      << joined(spec.notes);
  EXPECT_EQ(spec.nodes[0].gpu_memory_mib, 15 * 1024);
  EXPECT_TRUE(has_note(spec.notes, "node share: 15360 MiB per GPU from aliyun.com/gpu-mem / aliyun.com/gpu-count (the "
                                   "catalog's t4 has 16384 MiB)"))
      << joined(spec.notes);
  EXPECT_TRUE(has_note(spec.notes, "GPU memory per device: 1 node from aliyun.com/gpu-mem / aliyun.com/gpu-count, 0 from "
                                   "hami.io/node-nvidia-register, 0 from nvidia.com/gpu.memory, 0 from the catalog"))
      << joined(spec.notes);
  // HAMi's registration and GFD's label give the node's own size; HAMi's is taken as registered.
  const ClusterSpec hami = nodes(R"(kind: Node
metadata:
  name: h
  labels: {nvidia.com/gpu.product: Tesla-T4, nvidia.com/gpu.memory: "15360"}
  annotations:
    hami.io/node-nvidia-register: "GPU-a,10,15109,100,NVIDIA-Tesla T4,0,true:GPU-b,10,15100,100,NVIDIA-Tesla T4,0,true"
status:
  capacity: {cpu: "32", memory: 128Gi, nvidia.com/gpu: "2"}
---
kind: Node
metadata:
  name: g
  labels: {nvidia.com/gpu.product: Tesla-T4, nvidia.com/gpu.memory: "15360"}
status:
  capacity: {cpu: "32", memory: 128Gi, nvidia.com/gpu: "2"}
---
kind: Node
metadata:
  name: j
  labels: {nvidia.com/gpu.product: Tesla-T4}
  annotations:
    hami.io/node-nvidia-register: '[{"id": "GPU-a", "devmem": 15000}, {"id": "GPU-b", "devmem": 15000}]'
status:
  capacity: {cpu: "32", memory: 128Gi, nvidia.com/gpu: "2"}
)");
  ASSERT_EQ(hami.nodes.size(), 3U);
  EXPECT_EQ(hami.nodes[0].gpu_memory_mib, 15100);
  EXPECT_TRUE(hami.nodes[0].gpu_memory_registered);
  EXPECT_EQ(hami.nodes[1].gpu_memory_mib, 15360);
  EXPECT_FALSE(hami.nodes[1].gpu_memory_registered);
  EXPECT_EQ(hami.nodes[2].gpu_memory_mib, 15000);
  EXPECT_TRUE(has_note(hami.notes, "node h: hami.io/node-nvidia-register registers GPUs of 15100 to 15109 MiB; gpusim "
                                   "gives each the smallest"))
      << joined(hami.notes);
  EXPECT_TRUE(has_note(hami.notes, "GPU memory per device: 0 nodes from aliyun.com/gpu-mem / aliyun.com/gpu-count, 2 from "
                                   "hami.io/node-nvidia-register, 1 from nvidia.com/gpu.memory, 0 from the catalog"))
      << joined(hami.notes);
  EXPECT_ERROR_AT(node_error("kind: Node\nmetadata:\n  name: n\n  labels: {nvidia.com/gpu.product: Tesla-T4}\n  annotations:\n"
                             "    hami.io/node-nvidia-register: GPU-a,10\nstatus:\n  capacity: {cpu: '1', memory: 1Gi, "
                             "nvidia.com/gpu: '1'}\n"),
                  "nodes.yaml:6: metadata.annotations.hami.io/node-nvidia-register: device 'GPU-a,10' has 2 fields");
  EXPECT_ERROR_AT(node_error("kind: Node\nmetadata:\n  name: n\n  annotations: {gpusim.io/device-plugin: device-plugin}\n"
                             "status:\n  capacity: {cpu: 1, memory: 1Gi, aliyun.com/gpu-count: 1}\n"),
                  "nodes.yaml:4: metadata.annotations.gpusim.io/device-plugin: device-plugin, but the node advertises "
                  "aliyun.com/gpu-count");
  EXPECT_ERROR_AT(node_error("kind: Node\nmetadata: {name: n}\nstatus:\n  capacity: {cpu: 1, memory: 1Gi, "
                             "nvidia.com/gpu: 1, aliyun.com/gpu-count: 1}\n"),
                  "nodes.yaml:4: status.capacity.aliyun.com/gpu-count: the node also advertises nvidia.com/gpu");
  EXPECT_ERROR_AT(node_error("kind: Node\nmetadata: {name: n}\nstatus:\n  capacity: {cpu: 1, memory: 1Gi, aliyun.com/gpu-mem: 16}\n"),
                  "nodes.yaml:4: status.capacity.aliyun.com/gpu-mem: without aliyun.com/gpu-count");
}

TEST_F(K8sManifestTest, NodeModelAnnotationAndLabelsMustAgree) {
  const ClusterSpec spec = nodes(R"(kind: Node
metadata:
  name: v
  labels: {alpha.kubernetes.io/nvidia-gpu-name: Tesla V100}
  annotations: {gpusim.io/gpu-model: V100M16, gpusim.io/device-plugin: accelerators-1.6}
status: {allocatable: {cpu: "8", memory: 8Gi, alpha.kubernetes.io/nvidia-gpu: "4"}}
)");
  EXPECT_EQ(model(spec.nodes[0]), "v100-sxm2-16gb");
  EXPECT_ERROR_AT(node_error(R"(kind: Node
metadata:
  name: v
  labels:
    nvidia.com/gpu.product: Tesla-T4
  annotations: {gpusim.io/gpu-model: k80}
status: {allocatable: {cpu: "8", memory: 8Gi, nvidia.com/gpu: "4"}}
)"),
                  "nodes.yaml:5: metadata.labels.nvidia.com/gpu.product: 'Tesla-T4' is catalog model t4, but "
                  "gpusim.io/gpu-model says k80");
}

// ---------------------------------------------------------------- node errors

TEST_F(K8sManifestTest, NodeErrorsNameFileLineAndField) {
  // A missing cpu points at the status mapping.
  EXPECT_ERROR_AT(node_error("kind: Node\nmetadata: {name: a}\nstatus:\n  allocatable:\n    memory: 1Gi\n"),
                  "nodes.yaml:4: status.allocatable.cpu: missing");
  EXPECT_ERROR_AT(node_error("kind: Node\nmetadata: {name: a}\n"), "nodes.yaml:1: status.allocatable.cpu: missing");
  EXPECT_ERROR_AT(
      node_error("kind: Node\nmetadata: {name: a}\nstatus:\n  allocatable:\n    cpu: 2x\n    memory: 1Gi\n"),
      "nodes.yaml:5: status.allocatable.cpu: '2x': unknown suffix 'x'");
  EXPECT_ERROR_AT(node_error("kind: Node\nmetadata:\n  labels: {}\n"), "nodes.yaml:3: metadata.name: missing");
  EXPECT_ERROR_AT(node_error("kind: Node\nmetadata:\n  name: Bad_Name\n"),
                  "nodes.yaml:3: metadata.name: 'Bad_Name' is not a valid");
  EXPECT_ERROR_AT(node_error("kind: Node\nmetadata: {name: a}\nstatus: {allocatable: {cpu: 1, memory: [1]}}\n"),
                  "nodes.yaml:3: status.allocatable.memory: expected a string, found a list");
  EXPECT_ERROR_AT(node_error("kind: Node\nmetadata: {name: a}\nstatus: {allocatable: {cpu: 1, memory: -1Gi}}\n"),
                  "nodes.yaml:3: status.allocatable.memory: '-1Gi' is negative");
  // Duplicates name the earlier line.
  const std::string node_a = "kind: Node\nmetadata: {name: a}\nstatus: {allocatable: {cpu: 1, memory: 1Gi}}\n";
  EXPECT_ERROR_AT(node_error(node_a + "---\n" + node_a),
                  "nodes.yaml:6: metadata.name: duplicate node name 'a' (first at line 1)");
  // GPUs.
  EXPECT_ERROR_AT(node_error(R"(kind: Node
metadata: {name: a}
status:
  allocatable:
    cpu: "1"
    memory: 1Gi
    nvidia.com/gpu: "0.5"
)"),
                  "nodes.yaml:7: status.allocatable.nvidia.com/gpu: '0.5' is not a whole number");
  EXPECT_ERROR_AT(node_error(R"(kind: Node
metadata: {name: a, labels: {nvidia.com/gpu.product: Tesla-T4}}
status:
  allocatable:
    cpu: "1"
    memory: 1Gi
    nvidia.com/gpu: "129"
)"),
                  "nodes.yaml:7: status.allocatable.nvidia.com/gpu: '129' is out of range (at most 128)");
  EXPECT_ERROR_AT(
      node_error(R"(kind: Node
metadata: {name: a, labels: {nvidia.com/gpu.product: Tesla-T4}}
status:
  allocatable:
    cpu: "1"
    memory: 1Gi
    nvidia.com/gpu: "1"
  capacity:
    alpha.kubernetes.io/nvidia-gpu: "1"
)"),
      "nodes.yaml:9: status.capacity.alpha.kubernetes.io/nvidia-gpu: the node also advertises nvidia.com/gpu");
  EXPECT_ERROR_AT(
      node_error(R"(kind: Node
metadata:
  name: a
  labels:
    nvidia.com/gpu.product: GeForce-GTX-1080
status: {allocatable: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "1"}}
)"),
      "nodes.yaml:5: metadata.labels.nvidia.com/gpu.product: 'GeForce-GTX-1080' matches no GPU model of the "
      "catalog (catalog ids: k80, ");
  EXPECT_ERROR_AT(
      node_error("kind: Node\nmetadata:\n  name: a\nstatus: {allocatable: {cpu: 1, memory: 1Gi, nvidia.com/gpu: 1}}\n"),
      "nodes.yaml:3: metadata.labels: the node has GPUs but no GPU model");
  EXPECT_ERROR_AT(node_error(R"(kind: Node
metadata:
  name: a
  annotations:
    gpusim.io/device-plugin: mig
status: {allocatable: {cpu: "1", memory: 1Gi}}
)"),
                  "nodes.yaml:5: metadata.annotations.gpusim.io/device-plugin: 'mig' is not a device-plugin model");
  EXPECT_ERROR_AT(
      node_error(R"(kind: Node
metadata:
  name: a
  labels: {nvidia.com/gpu.product: Tesla-T4}
  annotations:
    gpusim.io/device-plugin: accelerators-1.6
status: {allocatable: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "1"}}
)"),
      "nodes.yaml:6: metadata.annotations.gpusim.io/device-plugin: accelerators-1.6, but the node advertises "
      "nvidia.com/gpu");
  EXPECT_ERROR_AT(
      node_error("kind: Node\nmetadata:\n  name: a\n  annotations:\n    gpusim.io/device-choise: preferred\n"),
      "nodes.yaml:5: metadata.annotations.gpusim.io/device-choise: unknown gpusim annotation on a Node");
  EXPECT_ERROR_AT(node_error("kind: Node\nmetadata:\n  name: a\n  annotations:\n    gpusim.io/joins-at: 1d\n"),
                  "nodes.yaml:5: metadata.annotations.gpusim.io/joins-at: '1d' is not a duration");
  EXPECT_ERROR_AT(node_error("kind: Node\nmetadata:\n  name: a\n  annotations:\n    gpusim.io/joins-at: 1h\n"
                             "    gpusim.io/leaves-at: 1h\n"),
                  "nodes.yaml:6: metadata.annotations.gpusim.io/leaves-at: must be later than gpusim.io/joins-at");
  EXPECT_ERROR_AT(node_error("kind: Node\nmetadata: {name: a}\nspec:\n  taints:\n  - key: x\n    effect: NoExecut\n"),
                  "nodes.yaml:6: spec.taints[0].effect: 'NoExecut' is not NoSchedule, PreferNoSchedule or NoExecute");
}

TEST_F(K8sManifestTest, FileLevelErrors) {
  EXPECT_ERROR_AT(node_error("kind: Pod\nmetadata: {name: a}\n"), "nodes.yaml:1: kind: no Node object in the file");
  EXPECT_ERROR_AT(node_error(""), "nodes.yaml:1: kind: no Node object");
  EXPECT_ERROR_AT(node_error("a: [\n"), "nodes.yaml:2: yaml: ");
  EXPECT_ERROR_AT(node_error("---\nkind: Node\n---\n  a: [\n"),
                  "nodes.yaml:5: yaml: ");  // lines count across documents
  // yaml-cpp's LoadAll loops for ever on a stray token after a document (found by fuzzing).
  EXPECT_ERROR_AT(node_error("{{}},"), "nodes.yaml:1: yaml: unexpected text after the end of a document");
  EXPECT_ERROR_AT(node_error("kind: Service\n---\n{}\n,\n"),
                  "nodes.yaml:4: yaml: unexpected text after the end of a document");
  EXPECT_ERROR_AT(node_error("{kind: Service} {kind: Node}\n"),
                  "nodes.yaml:1: yaml: unexpected text after the end of a document");
  EXPECT_ERROR_AT(node_error("- 1\n- 2\n"), "nodes.yaml:1: object: expected a mapping, found a list");
  EXPECT_ERROR_AT(node_error("metadata: {name: a}\n"), "nodes.yaml:1: kind: missing");
  EXPECT_ERROR_AT(node_error("kind: node\nmetadata: {name: a}\n"),
                  "nodes.yaml:1: kind: 'node': kinds are case-sensitive; did you mean Node?");
  EXPECT_ERROR_AT(node_error("kind: Node\nkind: Node\n"), "nodes.yaml:2: kind: repeated key (first at line 1)");
  EXPECT_ERROR_AT(node_error("kind: List\nitems:\n- metadata: {name: a}\n"), "nodes.yaml:3: items[0].kind: missing");
  EXPECT_ERROR_AT(node_error("kind: List\nitems: {a: 1}\n"), "nodes.yaml:2: items: expected a list, found a mapping");
  EXPECT_ERROR_AT(node_error("kind: List\nitems:\n- kind: List\n  items: []\n"),
                  "nodes.yaml:3: items[0].kind: a list inside a list");
  EXPECT_ERROR_AT(node_error("kind: PodList\nitems:\n- kind: Node\n"),
                  "nodes.yaml:3: items[0].kind: 'Node' inside a PodList");
  // Files: a missing one and a directory get their own messages.
  const fs::path dir = fs::path(::testing::TempDir()) / "k8s_manifest_missing";
  fs::create_directories(dir);
  try {
    read_k8s_nodes(dir / "absent.yaml", catalog);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos) << e.what();
  }
  try {
    read_k8s_workload(dir, catalog);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- pods

TEST_F(K8sManifestTest, TwoContainersAskingTwoAndThreeGpus) {
  const Workload w = read_k8s_workload(example("k8s-1.6-two-containers") / "pods.yaml", catalog);
  ASSERT_EQ(w.pods.size(), 1U);
  const cluster::PodSpec& pod = w.pods[0];
  EXPECT_EQ(pod.gpu_count, 5);
  EXPECT_EQ(pod.gpu_milli, 1000);
  EXPECT_EQ(pod.cpu_milli, 6000);
  EXPECT_EQ(pod.memory_mib, 24 * 1024);
  ASSERT_NE(pod.constraints, nullptr);
  const auto& c = *pod.constraints;
  EXPECT_EQ(c.gpu_resource, cluster::GpuResource::kAlphaNvidiaGpu);
  ASSERT_EQ(c.containers.size(), 2U);
  EXPECT_EQ(c.containers[0].name, "trainer");
  EXPECT_EQ(c.containers[0].gpus, 2);
  EXPECT_EQ(c.containers[0].cpu_milli, 4000);
  EXPECT_EQ(c.containers[1].name, "evaluator");
  EXPECT_EQ(c.containers[1].gpus, 3);
  EXPECT_EQ(c.containers[1].memory_mib, 8 * 1024);
  EXPECT_EQ(c.job, -1);
  EXPECT_EQ(c.scheduler_name, "default-scheduler");
  EXPECT_TRUE(w.has_times);
  EXPECT_EQ(pod.creation_time, Time::zero());
  EXPECT_EQ(pod.duration, Time::from_seconds(3600));
  EXPECT_EQ(pod.deletion_time, Time::from_seconds(3600));
  EXPECT_EQ(pod.phase, cluster::TracePhase::kSucceeded);
  EXPECT_TRUE(w.notes.empty()) << joined(w.notes);
}

TEST_F(K8sManifestTest, InitContainersCountByTheMaxRule) {
  const Workload w = pods(R"(kind: Pod
metadata: {name: p}
spec:
  initContainers:
  - name: fetch
    resources: {requests: {cpu: "6", memory: 1Gi}}
  - name: warm
    resources: {limits: {cpu: "1", memory: 10Gi, nvidia.com/gpu: 4}}
  containers:
  - name: a
    resources: {requests: {cpu: "2", memory: 2Gi}, limits: {nvidia.com/gpu: 1}}
  - name: b
    resources: {requests: {cpu: "3", memory: 3Gi}, limits: {nvidia.com/gpu: 1}}
)");
  const cluster::PodSpec& pod = w.pods[0];
  EXPECT_EQ(pod.cpu_milli, 6000);        // max(2 + 3, 6)
  EXPECT_EQ(pod.memory_mib, 10 * 1024);  // max(2 + 3, 10)
  EXPECT_EQ(pod.gpu_count, 4);           // max(1 + 1, 4)
  ASSERT_EQ(pod.constraints->init_containers.size(), 2U);
  EXPECT_EQ(pod.constraints->init_containers[1].gpus, 4);
  EXPECT_EQ(pod.constraints->init_containers[1].cpu_milli, 1000);  // requests default to limits
  EXPECT_EQ(pod.constraints->containers.size(), 2U);
  EXPECT_EQ(pod.qos, cluster::Qos::kBurstable);
}

TEST_F(K8sManifestTest, QosClasses) {
  const Workload w = pods(R"(kind: Pod
metadata: {name: guaranteed}
spec:
  containers:
  - name: a
    resources: {limits: {cpu: "1", memory: 1Gi}}
---
kind: Pod
metadata: {name: best-effort}
spec:
  containers:
  - name: a
    resources: {limits: {nvidia.com/gpu: 1}}
---
kind: Pod
metadata: {name: burstable}
spec:
  containers:
  - name: a
    resources: {requests: {cpu: 500m, memory: 1Gi}, limits: {cpu: "1", memory: 1Gi}}
)");
  EXPECT_EQ(w.pods[0].qos, cluster::Qos::kGuaranteed);
  EXPECT_EQ(w.pods[1].qos, cluster::Qos::kBestEffort);
  EXPECT_EQ(w.pods[2].qos, cluster::Qos::kBurstable);
}

TEST_F(K8sManifestTest, EveryAffinityOperator) {
  const Workload w = pods(R"(kind: Pod
metadata: {name: p}
spec:
  nodeSelector:
    disk: ssd
    zone: a
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: gpu, operator: In, values: [t4, v100]}
          - {key: pool, operator: NotIn, values: [spot]}
          - {key: ready, operator: Exists}
          - {key: broken, operator: DoesNotExist}
        - matchExpressions:
          - {key: mem, operator: Gt, values: ["16"]}
          - {key: cores, operator: Lt, values: ["-3"]}
  containers: [{name: a}]
)");
  const auto& c = *w.pods[0].constraints;
  ASSERT_EQ(c.node_selector.size(), 2U);
  EXPECT_EQ(c.node_selector[0], (std::pair<std::string, std::string>{"disk", "ssd"}));
  ASSERT_EQ(c.required_terms.size(), 2U);
  const auto& first = c.required_terms[0].match_expressions;
  ASSERT_EQ(first.size(), 4U);
  EXPECT_EQ(first[0].op, cluster::SelectorOperator::kIn);
  EXPECT_EQ(first[0].values, (std::vector<std::string>{"t4", "v100"}));
  EXPECT_EQ(first[1].op, cluster::SelectorOperator::kNotIn);
  EXPECT_EQ(first[2].op, cluster::SelectorOperator::kExists);
  EXPECT_TRUE(first[2].values.empty());
  EXPECT_EQ(first[3].op, cluster::SelectorOperator::kDoesNotExist);
  const auto& second = c.required_terms[1].match_expressions;
  EXPECT_EQ(second[0].op, cluster::SelectorOperator::kGt);
  EXPECT_EQ(second[0].values, (std::vector<std::string>{"16"}));
  EXPECT_EQ(second[1].op, cluster::SelectorOperator::kLt);
  // Kubernetes' value rules.
  const auto affinity_error = [&](const std::string& expression) {
    return pod_error(
        "kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a}]\n  affinity:\n    nodeAffinity:\n"
        "      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n"
        "        - matchExpressions:\n          - " +
        expression + "\n");
  };
  const std::string at =
      "pods.yaml:10: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
      "nodeSelectorTerms[0].matchExpressions[0].";
  EXPECT_ERROR_AT(affinity_error("{key: k, operator: In}"), at + "values: In and NotIn need at least one value");
  EXPECT_ERROR_AT(affinity_error("{key: k, operator: NotIn, values: []}"),
                  at + "values: In and NotIn need at least one value");
  EXPECT_ERROR_AT(affinity_error("{key: k, operator: Exists, values: [x]}"),
                  at + "values: Exists and DoesNotExist take no values");
  EXPECT_ERROR_AT(affinity_error("{key: k, operator: DoesNotExist, values: [x]}"),
                  at + "values: Exists and DoesNotExist");
  EXPECT_ERROR_AT(affinity_error("{key: k, operator: Gt, values: [\"1\", \"2\"]}"),
                  at + "values: Gt and Lt take exactly one value");
  EXPECT_ERROR_AT(affinity_error("{key: k, operator: Lt, values: [1.5]}"), at + "values: '1.5' is not an integer");
  EXPECT_ERROR_AT(affinity_error("{key: k, operator: Gt}"), at + "values: Gt and Lt take exactly one value");
  EXPECT_ERROR_AT(affinity_error("{key: k, operator: Equals, values: [x]}"),
                  at + "operator: 'Equals' is not In, NotIn, Exists");
  EXPECT_ERROR_AT(affinity_error("{operator: Exists}"), at + "key: missing");
  EXPECT_ERROR_AT(affinity_error("{key: k, operator: In, values: [[x]]}"),
                  at + "values[0]: expected a string, found a list");
}

TEST_F(K8sManifestTest, AlphaAffinityAnnotation) {
  const Workload w = read_k8s_workload(example("k8s-1.6-gpu-type-affinity") / "pods.yaml", catalog);
  ASSERT_EQ(w.pods.size(), 2U);
  for (const auto& pod : w.pods) {
    ASSERT_EQ(pod.constraints->required_terms.size(), 1U) << pod.name;
    const auto& r = pod.constraints->required_terms[0].match_expressions;
    ASSERT_EQ(r.size(), 1U);
    EXPECT_EQ(r[0].key, "alpha.kubernetes.io/nvidia-gpu-name");
    EXPECT_EQ(r[0].op, cluster::SelectorOperator::kIn);
    EXPECT_EQ(r[0].values, (std::vector<std::string>{"Tesla K80", "Tesla P100"}));
    EXPECT_EQ(pod.gpu_count, 2);
  }
  EXPECT_EQ(w.pods[1].creation_time, Time::from_seconds(10));
  // Errors inside the JSON point at the annotation's line.
  EXPECT_ERROR_AT(
      pod_error(R"(kind: Pod
metadata:
  name: p
  annotations:
    scheduler.alpha.kubernetes.io/affinity: '{"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
      {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Gt", "values": ["x"]}]}]}}}'
spec:
  containers: [{name: a}]
)"),
      "pods.yaml:5: metadata.annotations.scheduler.alpha.kubernetes.io/affinity.nodeAffinity."
      "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: 'x' is not "
      "an integer");
  EXPECT_ERROR_AT(pod_error(R"(kind: Pod
metadata:
  name: p
  annotations:
    scheduler.alpha.kubernetes.io/affinity: '{"nodeAffinity": '
spec:
  containers: [{name: a}]
)"),
                  "pods.yaml:5: metadata.annotations.scheduler.alpha.kubernetes.io/affinity: not valid JSON");
  EXPECT_ERROR_AT(pod_error(R"(kind: Pod
metadata:
  name: p
  annotations:
    scheduler.alpha.kubernetes.io/affinity: '{"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
      {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Exists"}]}]}}}'
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{matchExpressions: [{key: j, operator: Exists}]}]
  containers: [{name: a}]
)"),
                  "pods.yaml:9: spec.affinity: required node affinity is given both here and in annotation");
}

TEST_F(K8sManifestTest, UnmodelledAffinityIsNotedOrRefused) {
  const Workload w = pods(R"(kind: Pod
metadata: {name: p}
spec:
  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 1
        preference: {matchExpressions: [{key: k, operator: Exists}]}
    podAntiAffinity: {}
  containers: [{name: a}]
)");
  EXPECT_TRUE(w.pods[0].constraints->required_terms.empty());
  EXPECT_TRUE(has_note(w.notes, "preferred node affinity not modelled (ignored): 1 pod")) << joined(w.notes);
  EXPECT_TRUE(has_note(w.notes, "pod affinity and anti-affinity not modelled (ignored): 1 pod")) << joined(w.notes);
  EXPECT_ERROR_AT(
      pod_error(R"(kind: Pod
metadata: {name: p}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchFields: [{key: metadata.name, operator: In, values: [n]}]
  containers: [{name: a}]
)"),
      "pods.yaml:8: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
      "matchFields: not modelled");
  EXPECT_ERROR_AT(
      pod_error(R"(kind: Pod
metadata: {name: p}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: []
  containers: [{name: a}]
)"),
      "pods.yaml:7: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: "
      "at least one term is required");
}

TEST_F(K8sManifestTest, Tolerations) {
  const Workload w = pods(R"(kind: Pod
metadata: {name: p}
spec:
  tolerations:
  - {key: gpu, operator: Equal, value: "true", effect: NoSchedule}
  - {key: maintenance, operator: Exists}
  - {operator: Exists}
  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
  - {key: plain, value: v}
  containers: [{name: a}]
)");
  const auto& t = w.pods[0].constraints->tolerations;
  ASSERT_EQ(t.size(), 5U);
  EXPECT_EQ(t[0].key, "gpu");
  EXPECT_FALSE(t[0].exists);
  EXPECT_EQ(t[0].value, "true");
  EXPECT_EQ(t[0].effect, "NoSchedule");
  EXPECT_TRUE(t[1].exists);
  EXPECT_EQ(t[1].effect, "");
  EXPECT_TRUE(t[2].key.empty());
  EXPECT_TRUE(t[2].exists);
  EXPECT_EQ(t[3].toleration_seconds, 300);
  EXPECT_FALSE(t[4].exists);  // Equal is the default operator
  const auto toleration_error = [&](const std::string& toleration) {
    return pod_error("kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a}]\n  tolerations:\n  - " +
                     toleration + "\n");
  };
  EXPECT_ERROR_AT(toleration_error("{key: k, operator: Exists, value: v}"),
                  "pods.yaml:6: spec.tolerations[0].value: must be empty");
  EXPECT_ERROR_AT(toleration_error("{value: v}"),
                  "pods.yaml:6: spec.tolerations[0].operator: a toleration without a key must use Exists");
  EXPECT_ERROR_AT(toleration_error("{key: k, operator: Like}"),
                  "pods.yaml:6: spec.tolerations[0].operator: 'Like' is not Equal or Exists");
  EXPECT_ERROR_AT(toleration_error("{key: k, effect: Never}"),
                  "pods.yaml:6: spec.tolerations[0].effect: 'Never' is not NoSchedule");
  EXPECT_ERROR_AT(toleration_error("{key: k, effect: NoSchedule, tolerationSeconds: 5}"),
                  "pods.yaml:6: spec.tolerations[0].tolerationSeconds: only with effect NoExecute");
  EXPECT_ERROR_AT(toleration_error("{key: k, effect: NoExecute, tolerationSeconds: 5s}"),
                  "pods.yaml:6: spec.tolerations[0].tolerationSeconds: '5s' is not an integer");
}

TEST_F(K8sManifestTest, PriorityClasses) {
  const Workload w = pods(R"(kind: Pod
metadata: {name: by-name}
spec:
  priorityClassName: high
  containers: [{name: a}]
---
kind: Pod
metadata: {name: by-default}
spec:
  containers: [{name: a}]
---
kind: Pod
metadata: {name: explicit}
spec:
  priority: -5
  priorityClassName: low
  containers: [{name: a}]
---
kind: Pod
metadata: {name: built-in}
spec:
  priorityClassName: system-node-critical
  containers: [{name: a}]
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: -5
globalDefault: true
)");
  ASSERT_EQ(w.pods.size(), 4U);
  EXPECT_EQ(w.pods[0].priority, 1'000'000);
  EXPECT_EQ(w.pods[0].constraints->priority_class, "high");
  EXPECT_EQ(w.pods[1].priority, -5);  // globalDefault
  EXPECT_EQ(w.pods[1].constraints->priority_class, "");
  EXPECT_EQ(w.pods[2].priority, -5);
  EXPECT_EQ(w.pods[3].priority, 2'000'001'000);
  // Without classes: 0.
  EXPECT_EQ(pods("kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a}]}\n").pods[0].priority, 0);
  EXPECT_ERROR_AT(
      pod_error("kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a}]\n  priorityClassName: urgent\n"),
      "pods.yaml:5: spec.priorityClassName: unknown PriorityClass 'urgent'");
  EXPECT_ERROR_AT(
      pod_error("kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a}]\n  priority: 2147483648\n"),
      "pods.yaml:5: spec.priority: '2147483648' is out of range (-2147483648 to 2147483647)");
  EXPECT_ERROR_AT(pod_error("kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a}]\n  priority: 7\n"
                            "  priorityClassName: c\n---\nkind: PriorityClass\nmetadata: {name: c}\nvalue: 8\n"),
                  "pods.yaml:5: spec.priority: 7 differs from PriorityClass 'c' (8)");
  const std::string pod = "kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a}]}\n";
  EXPECT_ERROR_AT(pod_error(pod + "---\nkind: PriorityClass\nmetadata: {name: a}\nvalue: 1\nglobalDefault: true\n---\n"
                                  "kind: PriorityClass\nmetadata: {name: b}\nvalue: 2\nglobalDefault: true\n"),
                  "pods.yaml:13: globalDefault: PriorityClass 'a' is already the global default");
  EXPECT_ERROR_AT(pod_error(pod + "---\nkind: PriorityClass\nmetadata: {name: a}\n"), "pods.yaml:5: value: missing");
  EXPECT_ERROR_AT(pod_error(pod + "---\nkind: PriorityClass\nmetadata: {name: a}\nvalue: 1000000001\n"),
                  "pods.yaml:7: value: '1000000001' is out of range (-2147483648 to 1000000000)");
  EXPECT_ERROR_AT(pod_error(pod + "---\nkind: PriorityClass\nmetadata: {name: system-x}\nvalue: 1\n"),
                  "pods.yaml:6: metadata.name: the system- prefix is reserved");
  EXPECT_ERROR_AT(pod_error(pod + "---\nkind: PriorityClass\nmetadata: {name: a}\nvalue: 1\n---\nkind: PriorityClass\n"
                                  "metadata: {name: a}\nvalue: 2\n"),
                  "pods.yaml:10: metadata.name: duplicate PriorityClass name 'a' (first at line 5)");
  EXPECT_ERROR_AT(
      pod_error(pod + "---\nkind: PriorityClass\nmetadata: {name: a}\nvalue: 1\nglobalDefault: yes please\n"),
      "pods.yaml:8: globalDefault: 'yes please' is not true or false");
}

// Jobs as Kueue's users write them (Kueue's "Run a Kubernetes Job" sample): generateName, a namespace,
// the queue-name label naming a LocalQueue in it, and spec.suspend: true.
TEST_F(K8sManifestTest, KueueJobsNameTheirLocalQueueAndMayBeCreatedSuspended) {
  const std::string sample = R"(apiVersion: batch/v1
kind: Job
metadata:
  generateName: sample-job-
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: user-queue
    kueue.x-k8s.io/priority-class: high
spec:
  parallelism: 3
  completions: 3
  suspend: true
  template:
    spec:
      containers:
      - name: dummy-job
        resources: {requests: {cpu: 1, memory: "200Mi"}}
      restartPolicy: Never
)";
  const std::string unlabelled = "---\nkind: Job\nmetadata: {generateName: plain-}\nspec:\n  template: {spec: {containers: [{name: a}]}}\n";
  const Workload w = pods(sample + unlabelled);
  ASSERT_EQ(w.pods.size(), 4u);
  EXPECT_EQ(w.pods[0].name, "sample-job-00000-0");  // generated names are numbered in the file
  EXPECT_EQ(w.pods[3].name, "plain-00001-0");
  // Queues are "<namespace>/<LocalQueue>"; a Job without the label has its namespace's "default".
  EXPECT_EQ(w.queues, (std::vector<std::string>{"team-a/user-queue", "default/default"}));
  EXPECT_EQ(w.pods[2].queue, 0);
  EXPECT_EQ(w.pods[3].queue, 1);
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_EQ(w.jobs[0].suspend_line, 12);
  EXPECT_FALSE(w.jobs[1].suspend_line);
  EXPECT_TRUE(w.pods[0].constraints->suspended);
  EXPECT_FALSE(w.pods[3].constraints->suspended);
  EXPECT_EQ(w.pods[1].constraints->workload_priority_class, "high");
  EXPECT_EQ(w.pods[1].constraints->workload_priority_class_line, 8);
  // Without the label anywhere the workload has no queues, as before.
  EXPECT_TRUE(pods(unlabelled).queues.empty());

  // Mistakes, at their line and field.
  EXPECT_ERROR_AT(pod_error("kind: Job\nmetadata:\n  name: j\n  annotations: {kueue.x-k8s.io/queue-name: q}\nspec:\n"
                            "  template: {spec: {containers: [{name: a}]}}\n"),
                  "pods.yaml:4: metadata.annotations.kueue.x-k8s.io/queue-name: Kueue reads the LocalQueue from the label");
  EXPECT_ERROR_AT(pod_error("kind: Job\nmetadata:\n  name: j\n  labels: {kueue.x-k8s.io/queue-name: Bad_Queue}\nspec:\n"
                            "  template: {spec: {containers: [{name: a}]}}\n"),
                  "pods.yaml:4: metadata.labels.kueue.x-k8s.io/queue-name: 'Bad_Queue' is not a valid LocalQueue name");
  EXPECT_ERROR_AT(pod_error("kind: Pod\nmetadata: {name: p, namespace: Team_A}\nspec: {containers: [{name: a}]}\n"),
                  "pods.yaml:2: metadata.namespace: 'Team_A' is not a valid namespace");
  EXPECT_ERROR_AT(pod_error("kind: Pod\nmetadata: {}\nspec: {containers: [{name: a}]}\n"), "pods.yaml:2: metadata.name: missing");
}

TEST_F(K8sManifestTest, JobsExpandIntoPods) {
  const Workload w = pods(R"(kind: Pod
metadata: {name: lone}
spec: {containers: [{name: a}]}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  annotations:
    gpusim.io/arrival: 5m
    gpusim.io/duration: 2h
spec:
  parallelism: 2
  completions: 3
  template:
    metadata:
      annotations:
        gpusim.io/duration: 30m
    spec:
      restartPolicy: Never
      containers:
      - name: worker
        resources: {limits: {nvidia.com/gpu: 2}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: sweep}
spec:
  parallelism: 2
  template:
    spec:
      containers: [{name: worker}]
)");
  ASSERT_EQ(w.jobs.size(), 2U);
  EXPECT_EQ(w.jobs[0].name, "train");
  EXPECT_EQ(w.jobs[0].parallelism, 2);
  EXPECT_EQ(w.jobs[0].completions, 3);
  EXPECT_EQ(w.jobs[1].completions, 2);  // completions default to parallelism
  ASSERT_EQ(w.pods.size(), 6U);
  EXPECT_EQ(w.pods[0].constraints->job, -1);
  for (int k = 0; k < 3; ++k) {
    const auto& pod = w.pods[static_cast<std::size_t>(1 + k)];
    EXPECT_EQ(pod.name, "train-" + std::to_string(k));
    EXPECT_EQ(pod.constraints->job, 0);
    EXPECT_EQ(pod.gpu_count, 2);
    EXPECT_EQ(pod.creation_time, Time::from_seconds(300));  // the Job's annotation
    EXPECT_EQ(pod.duration, Time::from_seconds(1800));      // the template's wins
    EXPECT_EQ(pod.deletion_time, Time::from_seconds(2100));
  }
  EXPECT_EQ(w.pods[4].name, "sweep-0");
  EXPECT_EQ(w.pods[5].name, "sweep-1");
  EXPECT_EQ(w.pods[5].constraints->job, 1);
  // Defaults are counted per pod: the lone pod and sweep's two.
  EXPECT_TRUE(has_note(w.notes, "3 pods without gpusim.io/arrival: arrive at 0s (the simulation start)"))
      << joined(w.notes);
  EXPECT_TRUE(has_note(w.notes, "3 pods without gpusim.io/duration: run 1h")) << joined(w.notes);
  EXPECT_TRUE(has_note(w.notes, "1 Job without spec.completions: completions = parallelism (one pod per worker)"))
      << joined(w.notes);

  const std::string job = "kind: Job\nmetadata: {name: j}\nspec:\n  template: {spec: {containers: [{name: a}]}}\n";
  EXPECT_ERROR_AT(pod_error(job + "  completions: 0\n"),
                  "pods.yaml:5: spec.completions: '0' is out of range (1 to 1000000)");
  EXPECT_ERROR_AT(pod_error(job + "  completions: 1000001\n"),
                  "pods.yaml:5: spec.completions: '1000001' is out of range");
  EXPECT_ERROR_AT(pod_error(job + "  parallelism: x\n"), "pods.yaml:5: spec.parallelism: 'x' is not an integer");
  EXPECT_ERROR_AT(pod_error("kind: Job\nmetadata: {name: j}\nspec: {parallelism: 1}\n"),
                  "pods.yaml:3: spec.template: missing");
  // A Job's pod names may not collide with a bare pod's.
  EXPECT_ERROR_AT(pod_error("kind: Pod\nmetadata: {name: j-0}\nspec: {containers: [{name: a}]}\n---\n" + job),
                  "pods.yaml:6: metadata.name: duplicate pod name 'j-0' (first at line 1)");
  EXPECT_ERROR_AT(pod_error(job + "---\n" + job),
                  "pods.yaml:7: metadata.name: duplicate Job name 'j' (first at line 1)");
}

// NVIDIA's plugin with renameByDefault advertises shared GPUs as nvidia.com/gpu.shared; a pod
// asking it lands only where that resource is advertised.
TEST_F(K8sManifestTest, PodsMayAskSharedGpusByTheirRenamedResource) {
  const Workload w = pods(R"(kind: Pod
metadata: {name: notebook}
spec:
  containers:
  - {name: a, resources: {limits: {nvidia.com/gpu.shared: 1}}}
)");
  ASSERT_EQ(w.pods.size(), 1U);
  EXPECT_EQ(w.pods[0].gpu_count, 1);
  ASSERT_NE(w.pods[0].constraints, nullptr);
  EXPECT_EQ(w.pods[0].constraints->gpu_resource, cluster::GpuResource::kNvidiaGpuShared);
}

TEST_F(K8sManifestTest, NotesForDefaultsAndUnmodelledResources) {
  const Workload w = pods(R"(kind: Pod
metadata: {name: a}
spec:
  nodeName: n1
  containers:
  - name: a
    resources:
      limits: {aliyun.com/gpu-mem: "8", rdma/hca: "1"}
      requests: {aliyun.com/gpu-mem: "8", ephemeral-storage: 10Gi}
---
kind: Pod
metadata:
  name: b
  annotations: {gpusim.io/arrival: 1m}
spec:
  containers:
  - {name: a, resources: {limits: {aliyun.com/gpu-mem: "4"}}}
  - {name: b, resources: {limits: {aliyun.com/gpu-mem: "4"}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
---
kind: Service
metadata: {name: web}
)");
  EXPECT_TRUE(has_note(w.notes, "1 pod without gpusim.io/arrival: arrive at 0s (the simulation start)"))
      << joined(w.notes);
  EXPECT_TRUE(has_note(w.notes, "2 pods without gpusim.io/duration: run 1h")) << joined(w.notes);
  EXPECT_TRUE(has_note(w.notes, "resources gpusim does not model (ignored): ephemeral-storage (1 pod), rdma/hca (1 pod)"))
      << joined(w.notes);
  EXPECT_TRUE(has_note(w.notes, "spec.nodeName ignored (gpusim schedules the pod itself): 1 pod")) << joined(w.notes);
  EXPECT_TRUE(
      has_note(w.notes,
               "skipped 2 objects gpusim does not read here (Pod, Job, VirtualMachineInstance and PriorityClass only): Deployment at line 20, "
               "Service at line 24"))
      << joined(w.notes);
  // gpushare's GiB: the pod's containers' sum, on one GPU.
  ASSERT_EQ(w.pods.size(), 2u);
  EXPECT_EQ(w.pods[0].gpu_count, 1);
  EXPECT_EQ(w.pods[0].constraints->gpu_resource, cluster::GpuResource::kAliyunGpuMem);
  EXPECT_EQ(w.pods[0].constraints->gpu_memory_gib, 8);
  EXPECT_EQ(w.pods[1].gpu_count, 1);
  EXPECT_EQ(w.pods[1].constraints->gpu_memory_gib, 8);
}

// Sharing plugins' own resources: HAMi's per-vGPU asks with its defaults, MIG profiles by name.
TEST_F(K8sManifestTest, SharingPluginResources) {
  const Workload w = pods(R"(kind: Pod
metadata: {name: vgpu}
spec:
  containers:
  - name: a
    resources: {limits: {nvidia.com/gpu: 2, nvidia.com/gpumem: 4000, nvidia.com/gpucores: 30}}
---
kind: Pod
metadata: {name: percent}
spec:
  containers:
  - {name: a, resources: {limits: {nvidia.com/gpu: 1, nvidia.com/gpumem-percentage: 25}}}
  - {name: b, resources: {limits: {nvidia.com/gpu: 1, nvidia.com/gpumem-percentage: 25}}}
---
kind: Pod
metadata: {name: cores}
spec:
  containers:
  - {name: a, resources: {limits: {nvidia.com/gpu: 1, nvidia.com/gpucores: 50}}}
---
kind: Pod
metadata: {name: slices}
spec:
  containers:
  - {name: a, resources: {limits: {nvidia.com/mig-1g.10gb: 2}}}
  - {name: b}
)");
  ASSERT_EQ(w.pods.size(), 4u);
  const auto& vgpu = *w.pods[0].constraints;
  EXPECT_EQ(w.pods[0].gpu_count, 2);
  EXPECT_EQ(vgpu.gpu_resource, cluster::GpuResource::kHamiVgpu);
  EXPECT_EQ(vgpu.hami.memory_mib, 4000);
  EXPECT_EQ(vgpu.hami.cores_percent, 30);
  // gpumem-percentage alone: no cores reserved; gpucores alone: the whole memory.
  EXPECT_EQ(w.pods[1].constraints->hami.memory_percent, 25);
  EXPECT_EQ(w.pods[1].constraints->hami.cores_percent, 0);
  EXPECT_EQ(w.pods[2].constraints->hami.memory_mib, 0);
  EXPECT_EQ(w.pods[2].constraints->hami.memory_percent, 100);
  EXPECT_EQ(w.pods[2].constraints->hami.cores_percent, 50);
  EXPECT_EQ(w.pods[3].gpu_count, 2);
  EXPECT_EQ(w.pods[3].constraints->gpu_resource, cluster::GpuResource::kMigProfile);
  EXPECT_EQ(w.pods[3].constraints->mig_profile, "1g.10gb");
  EXPECT_EQ(w.pods[3].constraints->containers[0].gpus, 2);
  EXPECT_EQ(w.pods[1].gpu_count, 2);
  // Both memory forms: HAMi's Fit uses gpumem, the percentage only without it.
  const Workload both = pods("kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: a\n    resources: "
                             "{limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 1000, nvidia.com/gpumem-percentage: 50}}\n");
  EXPECT_EQ(both.pods[0].constraints->hami.memory_mib, 1000);
}

TEST_F(K8sManifestTest, SharingPluginResourceErrors) {
  const auto pod_with = [](const std::string& container_resources) {
    return "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: first\n  - name: second\n    resources:\n" +
           container_resources;
  };
  EXPECT_ERROR_AT(pod_error(pod_with("      limits:\n        nvidia.com/gpumem: 4000\n")),
                  "pods.yaml:9: spec.containers[1].resources.limits.nvidia.com/gpumem: needs nvidia.com/gpu in the same "
                  "container");
  EXPECT_ERROR_AT(pod_error(pod_with("      limits: {nvidia.com/gpu: 1, nvidia.com/gpucores: 120}\n")),
                  "pods.yaml:8: spec.containers[1].resources.limits.nvidia.com/gpucores: '120'");
  EXPECT_ERROR_AT(pod_error(pod_with("      limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 0}\n")),
                  "pods.yaml:8: spec.containers[1].resources.limits.nvidia.com/gpumem: 0 MiB");
  EXPECT_ERROR_AT(
      pod_error("kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: a\n    resources: {limits: "
                "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000}}\n  - name: b\n    resources: {limits: {nvidia.com/gpu: 1}}\n"),
      "pods.yaml:7: spec.containers[1].resources.limits: asks nvidia.com/gpumem 0 MiB / 100 %, gpucores 100 of each "
      "vGPU, but spec.containers[0].resources.limits asks 1000 MiB / 100 %, gpucores 0");
  EXPECT_ERROR_AT(pod_error(pod_with("      limits: {nvidia.com/mig-9g.99gb: 1}\n")),
                  "pods.yaml:8: spec.containers[1].resources.limits.nvidia.com/mig-9g.99gb: '9g.99gb' is not a MIG "
                  "profile of any GPU in the catalog");
  EXPECT_ERROR_AT(pod_error(pod_with("      limits: {nvidia.com/mig-1g.10gb: 1, nvidia.com/mig-2g.20gb: 1}\n")),
                  "pods.yaml:8: spec.containers[1].resources.limits.nvidia.com/mig-2g.20gb: the container also asks "
                  "nvidia.com/mig-1g.10gb");
  // Another GPU resource only in requests is found too.
  EXPECT_ERROR_AT(pod_error(pod_with("      limits: {nvidia.com/mig-1g.10gb: 1}\n      requests: {nvidia.com/mig-2g.20gb: 1}\n")),
                  "pods.yaml:9: spec.containers[1].resources.requests.nvidia.com/mig-2g.20gb: the container also asks "
                  "nvidia.com/mig-1g.10gb");
  EXPECT_ERROR_AT(pod_error(pod_with("      limits: {nvidia.com/gpu: 1}\n      requests: {nvidia.com/mig-1g.10gb: 1}\n")),
                  "pods.yaml:9: spec.containers[1].resources.requests.nvidia.com/mig-1g.10gb: the container also asks "
                  "nvidia.com/gpu");
  // gpushare's extender counts app containers only.
  EXPECT_ERROR_AT(pod_error("kind: Pod\nmetadata: {name: p}\nspec:\n  initContainers:\n  - name: init\n    resources: "
                            "{limits: {aliyun.com/gpu-mem: 4}}\n  containers:\n  - name: a\n"),
                  "pods.yaml:5: spec.initContainers[0].resources.limits.aliyun.com/gpu-mem: an init container's ask");
  EXPECT_ERROR_AT(pod_error(pod_with("      limits: {nvidia.com/gpu: 1, aliyun.com/gpu-mem: 4}\n")),
                  "pods.yaml:8: spec.containers[1].resources.limits.aliyun.com/gpu-mem: the container also asks "
                  "nvidia.com/gpu");
  EXPECT_ERROR_AT(pod_error(pod_with("      limits: {aliyun.com/gpu-mem: 2.5}\n")),
                  "pods.yaml:8: spec.containers[1].resources.limits.aliyun.com/gpu-mem: '2.5' is not a whole number");
}

TEST_F(K8sManifestTest, PodErrorsNameFileLineAndField) {
  const auto pod_with = [](const std::string& container_resources) {
    return "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: first\n  - name: second\n    resources:\n" +
           container_resources;
  };
  EXPECT_ERROR_AT(
      pod_error(pod_with("      limits:\n        nvidia.com/gpu: 0.5\n")),
      "pods.yaml:9: spec.containers[1].resources.limits.nvidia.com/gpu: '0.5' is not a whole number (Kubernetes "
      "requires whole numbers for extended resources)");
  EXPECT_ERROR_AT(pod_error(pod_with("      limits:\n        nvidia.com/gpu: 500m\n")),
                  "pods.yaml:9: spec.containers[1].resources.limits.nvidia.com/gpu: '500m' is not a whole number");
  EXPECT_ERROR_AT(pod_error(pod_with("      requests:\n        nvidia.com/gpu: 1\n")),
                  "pods.yaml:9: spec.containers[1].resources.requests.nvidia.com/gpu: a request without a limit");
  EXPECT_ERROR_AT(
      pod_error(pod_with("      limits: {nvidia.com/gpu: 2}\n      requests: {nvidia.com/gpu: 1}\n")),
      "pods.yaml:9: spec.containers[1].resources.requests.nvidia.com/gpu: request 1 differs from the limit 2");
  EXPECT_ERROR_AT(pod_error(pod_with("      limits: {cpu: 1}\n      requests: {cpu: 1500m}\n")),
                  "pods.yaml:9: spec.containers[1].resources.requests.cpu: request 1500m exceeds the limit 1");
  EXPECT_ERROR_AT(pod_error(pod_with("      limits: {memory: 1Gi}\n      requests:\n        memory: 2Gi\n")),
                  "pods.yaml:10: spec.containers[1].resources.requests.memory: request 2Gi exceeds the limit 1Gi");
  EXPECT_ERROR_AT(
      pod_error(pod_with("      limits:\n        nvidia.com/gpu: 1\n        alpha.kubernetes.io/nvidia-gpu: 1\n")),
      "pods.yaml:10: spec.containers[1].resources.limits.alpha.kubernetes.io/nvidia-gpu: the container also asks "
      "nvidia.com/gpu");
  EXPECT_ERROR_AT(
      pod_error(pod_with("      limits:\n        nvidia.com/gpu.shared: 1\n        nvidia.com/gpu: 1\n")),
      "pods.yaml:10: spec.containers[1].resources.limits.nvidia.com/gpu: the container also asks "
      "nvidia.com/gpu.shared");
  EXPECT_ERROR_AT(
      pod_error("kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: a\n    resources: {limits: "
                "{nvidia.com/gpu: 1}}\n  - name: b\n    resources:\n      limits:\n        "
                "alpha.kubernetes.io/nvidia-gpu: 1\n"),
      "pods.yaml:10: spec.containers[1].resources.limits.alpha.kubernetes.io/nvidia-gpu: the pod also asks "
      "nvidia.com/gpu (spec.containers[0].resources.limits.nvidia.com/gpu)");
  EXPECT_ERROR_AT(
      pod_error(pod_with("      limits: {nvidia.com/gpu: 100}\n") + "  - name: third\n    resources: {limits: "
                                                                    "{nvidia.com/gpu: 100}}\n"),
      // A block list's line is its first item's.
      "pods.yaml:5: spec.containers: the pod's GPU total 200 is out of range (at most 128)");
  EXPECT_ERROR_AT(pod_error(pod_with("      limits: {rdma/hca: -1}\n")),
                  "pods.yaml:8: spec.containers[1].resources.limits.rdma/hca: '-1' is negative");
  EXPECT_ERROR_AT(pod_error(pod_with("      limits: [cpu]\n")),
                  "pods.yaml:8: spec.containers[1].resources.limits: expected a mapping, found a list");
  EXPECT_ERROR_AT(pod_error("kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: a\n  - name: a\n"),
                  "pods.yaml:6: spec.containers[1].name: duplicate container name 'a' (first at line 5)");
  EXPECT_ERROR_AT(pod_error("kind: Pod\nmetadata: {name: p}\nspec:\n  containers: []\n"),
                  "pods.yaml:4: spec.containers: a pod needs at least one container");
  EXPECT_ERROR_AT(pod_error("kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - image: x\n"),
                  "pods.yaml:5: spec.containers[0].name: missing");
  EXPECT_ERROR_AT(
      pod_error("kind: Pod\nmetadata: {name: p}\nspec:\n  initContainers:\n  - name: side\n    restartPolicy: Always\n"
                "  containers: [{name: a}]\n"),
      "pods.yaml:6: spec.initContainers[0].restartPolicy: sidecar init containers");
  EXPECT_ERROR_AT(pod_error("kind: Pod\nmetadata:\n  name: p\n  annotations:\n    gpusim.io/arival: 5s\nspec: "
                            "{containers: [{name: a}]}\n"),
                  "pods.yaml:5: metadata.annotations.gpusim.io/arival: unknown gpusim annotation on a Pod (known: "
                  "gpusim.io/arrival, "
                  "gpusim.io/duration)");
  EXPECT_ERROR_AT(pod_error("kind: Pod\nmetadata:\n  name: p\n  annotations:\n    gpusim.io/duration: -5s\nspec: "
                            "{containers: [{name: a}]}\n"),
                  "pods.yaml:5: metadata.annotations.gpusim.io/duration: '-5s' is negative");
  EXPECT_ERROR_AT(
      pod_error("kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a}]}\n---\nkind: Pod\nmetadata: {name: p}\n"
                "spec: {containers: [{name: a}]}\n"),
      "pods.yaml:6: metadata.name: duplicate pod name 'p' (first at line 1)");
  EXPECT_ERROR_AT(pod_error("kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a}]\n  schedulerName: [x]\n"),
                  "pods.yaml:5: spec.schedulerName: expected a string, found a list");
  EXPECT_ERROR_AT(pod_error("kind: Pod\nmetadata: {name: p}\n"), "pods.yaml:1: spec: missing");
  EXPECT_ERROR_AT(pod_error("kind: Deployment\nmetadata: {name: p}\n"),
                  "pods.yaml:1: kind: no Pod, Job or VirtualMachineInstance object in the file");
}

TEST_F(K8sManifestTest, SchedulerNameAndDefaults) {
  const Workload w =
      pods("kind: Pod\nmetadata: {name: p}\nspec:\n  schedulerName: gpu-scheduler\n  containers: [{name: a}]\n");
  EXPECT_EQ(w.pods[0].constraints->scheduler_name, "gpu-scheduler");
  EXPECT_EQ(w.pods[0].constraints->gpu_resource, cluster::GpuResource::kAny);
  EXPECT_EQ(w.pods[0].gpu_milli, 0);
}

// Every bundled example reads without error, and the situations they describe hold.
TEST_F(K8sManifestTest, ExamplesRead) {
  for (const char* name :
       {"k8s-1.6-two-containers", "k8s-1.6-gpu-type-affinity", "k8s-1.3-one-gpu", "k8s-device-plugin-xid", "plain"}) {
    SCOPED_TRACE(name);
    const ClusterSpec cluster = read_k8s_nodes(example(name) / "nodes.yaml", catalog);
    const Workload workload = read_k8s_workload(example(name) / "pods.yaml", catalog);
    EXPECT_EQ(cluster.kube.size(), cluster.nodes.size());
    EXPECT_FALSE(workload.pods.empty());
  }
  const ClusterSpec k13 = read_k8s_nodes(example("k8s-1.3-one-gpu") / "nodes.yaml", catalog);
  EXPECT_EQ(k13.nodes[0].gpu_count, 4);
  EXPECT_EQ(k13.kube[0].device_plugin, "alpha-1.3");
  const Workload k13_pods = read_k8s_workload(example("k8s-1.3-one-gpu") / "pods.yaml", catalog);
  ASSERT_EQ(k13_pods.pods.size(), 3U);
  EXPECT_EQ(k13_pods.pods[1].creation_time, Time::from_seconds(60));
  EXPECT_EQ(k13_pods.pods[2].creation_time, Time::from_seconds(120));
  EXPECT_EQ(k13_pods.pods[2].gpu_count, 2);
  const ClusterSpec affinity = read_k8s_nodes(example("k8s-1.6-gpu-type-affinity") / "nodes.yaml", catalog);
  ASSERT_EQ(affinity.nodes.size(), 3U);
  EXPECT_EQ(model(affinity.nodes[0]), "k80");
  EXPECT_EQ(model(affinity.nodes[1]), "p100-pcie-16gb");
  EXPECT_EQ(model(affinity.nodes[2]), "v100-sxm2-16gb");
  const ClusterSpec xid = read_k8s_nodes(example("k8s-device-plugin-xid") / "nodes.yaml", catalog);
  EXPECT_EQ(xid.nodes[0].gpu_count, 2);
  EXPECT_EQ(xid.kube[0].device_choice, "first-fit");
  const Workload plain = read_k8s_workload(example("plain") / "pods.yaml", catalog);
  EXPECT_EQ(plain.pods.size(), 3U);
  EXPECT_TRUE(has_note(plain.notes, "3 pods without gpusim.io/arrival: arrive at 0s (the simulation start)"))
      << joined(plain.notes);
}

}  // namespace
}  // namespace gpusim::traces
