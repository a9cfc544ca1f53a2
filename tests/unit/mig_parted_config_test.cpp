// NVIDIA's MIG manager config reader (sim/k8s/mig_parted_config.hpp): the GPU Operator's ConfigMap
// form, the per-node choice by nvidia.com/mig.config, device filters by PCI device id, instances
// largest first, and every refusal naming file:line: field.
#include <gtest/gtest.h>

#include "sim/core/status.hpp"
#include "sim/k8s/mig_parted_config.hpp"

namespace gpusim::k8s {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_mig_parted_config(text, "mig.yaml");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

cluster::NodeSpec node(const std::string& name, const std::string& config = "") {
  cluster::NodeSpec n{name, 1000, 1024, 1, 0, {}, {}, false};
  if (!config.empty()) n.labels.emplace_back(kMigConfigLabel, config);
  return n;
}

// As the GPU Operator's default-mig-parted-config writes its configs (one with a device filter per GPU model).
const char* const kOperatorForm = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: default-mig-parted-config
data:
  config.yaml: |
    version: v1
    mig-configs:
      all-disabled:
        - devices: all
          mig-enabled: false

      all-1g.10gb:
        - device-filter: ["0x233010DE", "0x20B210DE"]
          devices: all
          mig-enabled: true
          mig-devices:
            "1g.10gb": 7
        - device-filter: ["0x20B010DE"]
          devices: all
          mig-enabled: true
          mig-devices:
            "1g.10gb": 4

      mixed-small-first:
        - devices: all
          mig-enabled: true
          mig-devices:
            "1g.10gb": 1
            "4g.40gb": 1
            "2g.20gb": 1

      all-1g.10gb.me:
        - devices: all
          mig-enabled: true
          mig-devices:
            "1g.10gb+me": 1
)";

TEST(MigPartedConfig, ChoosesByLabelAndFiltersByPciDeviceId) {
  const MigPartedConfigs c = parse_mig_parted_config(kOperatorForm, "mig.yaml");
  ASSERT_EQ(c.configs.size(), 4U);
  // No label: all-disabled, MIG off.
  const MigPartedConfig* none = c.for_node(node("n"));
  ASSERT_NE(none, nullptr);
  EXPECT_EQ(none->name, "all-disabled");
  EXPECT_TRUE(c.layout(*none, node("n"), "a100-sxm4-80gb").empty());
  // all-1g.10gb: seven instances on an A100 80GB (0x20B2), four on an A100 40GB (0x20B0).
  const cluster::NodeSpec labelled = node("n", "all-1g.10gb");
  const MigPartedConfig* small = c.for_node(labelled);
  EXPECT_EQ(c.layout(*small, labelled, "a100-sxm4-80gb"), std::vector<std::string>(7, "1g.10gb"));
  EXPECT_EQ(c.layout(*small, labelled, "a100-sxm4-40gb"), std::vector<std::string>(4, "1g.10gb"));
  // No entry for an H200: its GPUs keep MIG off.
  EXPECT_TRUE(c.layout(*small, labelled, "h200-sxm-141gb").empty());
  // Largest first, whatever the file's order (mig-parted's Flatten).
  const cluster::NodeSpec mixed = node("n", "mixed-small-first");
  EXPECT_EQ(c.layout(*c.for_node(mixed), mixed, "a100-sxm4-80gb"), (std::vector<std::string>{"4g.40gb", "2g.20gb", "1g.10gb"}));
  // A media-extension profile is read, and refused only where it applies.
  const cluster::NodeSpec me = node("n", "all-1g.10gb.me");
  try {
    c.layout(*c.for_node(me), me, "a100-sxm4-80gb");
    ADD_FAILURE() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("node n: mig-parted config 'all-1g.10gb.me' (mig.yaml:34): data.config.yaml.mig-configs."
                                         "all-1g.10gb.me[0].mig-devices.1g.10gb+me: '1g.10gb+me' is no MIG profile gpusim models"),
              std::string::npos)
        << e.what();
  }
  try {
    c.for_node(node("n", "all-3g.40gb"));
    ADD_FAILURE() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "node n: its label nvidia.com/mig.config=all-3g.40gb names no config of mig.yaml; the MIG "
                                     "manager fails there");
  }
}

TEST(MigPartedConfig, ErrorsNameFileLineAndField) {
  const std::string head = "version: v1\nmig-configs:\n  c:\n";
  EXPECT_EQ(error_of(head + "    - devices: all\n      mig-enabled: true\n"),
            "mig.yaml:4: mig-configs.c[0].mig-devices: missing: mig-parted requires it when mig-enabled is true");
  EXPECT_EQ(error_of(head + "    - mig-enabled: false\n"), "mig.yaml:4: mig-configs.c[0].devices: missing (mig-parted requires it)");
  EXPECT_EQ(error_of(head + "    - {devices: all, mig-enabled: false, mig-devices: {1g.10gb: 1}}\n"),
            "mig.yaml:4: mig-configs.c[0].mig-devices: MIG devices given with mig-enabled false (mig-parted refuses it)");
  EXPECT_EQ(error_of(head + "    - {devices: all, mig-enabled: true, mig-devices: {1g.10gb: 0}}\n"),
            "mig.yaml:4: mig-configs.c[0].mig-devices: all counts are 0 (mig-parted refuses it)");
  EXPECT_EQ(error_of(head + "    - {devices: some, mig-enabled: false}\n"),
            "mig.yaml:4: mig-configs.c[0].devices: 'some': expected all or a list of GPU indices");
  EXPECT_EQ(error_of(head + "    - {devices: all, mig-enabled: true, mig-devices: {1g.10gb: 8}}\n"),
            "mig.yaml:4: mig-configs.c[0].mig-devices.1g.10gb: '8' is not an integer from 0 to 7");
  EXPECT_NE(error_of(head + "    - {devices: all, enabled: true}\n").find("mig.yaml:4: mig-configs.c[0].enabled: unknown field"),
            std::string::npos);
  EXPECT_EQ(error_of("mig-configs:\n  c:\n    - {devices: all, mig-enabled: false}\n"),
            "mig.yaml:1: version: missing (mig-parted requires version: v1)");
  EXPECT_EQ(error_of("version: v2\nmig-configs: {}\n"), "mig.yaml:1: version: unknown version 'v2' (mig-parted reads v1)");
  EXPECT_EQ(error_of("version: v1\nmig-configs: {}\n"), "mig.yaml:2: mig-configs: expected at least one named config");
  EXPECT_EQ(error_of("version: v1\nmig-configs:\n  c: []\n"),
            "mig.yaml:3: mig-configs.c: expected a list of at least one entry (devices, mig-enabled)");
  EXPECT_EQ(error_of("kind: ConfigMap\nmetadata: {name: m}\ndata:\n  other.yaml: x\n"),
            "mig.yaml:1: data.config.yaml: missing: the MIG manager's ConfigMap holds its mig-configs there");
}

// Entries that give the same GPUs different layouts, or name GPUs by index, are read and refused
// only for a node they apply to.
TEST(MigPartedConfig, PerGpuLayoutsAreRefusedWhereTheyApply) {
  const MigPartedConfigs c = parse_mig_parted_config(R"(version: v1
mig-configs:
  split:
    - devices: [0, 1]
      mig-enabled: true
      mig-devices: {"3g.40gb": 2}
    - devices: [2, 3]
      mig-enabled: false
)", "mig.yaml");
  const cluster::NodeSpec n = node("n", "split");
  try {
    c.layout(*c.for_node(n), n, "a100-sxm4-80gb");
    ADD_FAILURE() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "node n: mig-parted config 'split' (mig.yaml:4): mig-configs.split[0].devices lists GPUs; "
                                     "gpusim gives every GPU of a node one layout");
  }
}

TEST(MigPartedConfig, RecognisedByContent) {
  EXPECT_TRUE(is_mig_parted_config(YAML::Load("version: v1\nmig-configs: {}\n")));
  EXPECT_TRUE(is_mig_parted_config(YAML::Load(kOperatorForm)));
  EXPECT_FALSE(is_mig_parted_config(YAML::Load("version: v1\nsharing: {}\n")));
}

}  // namespace
}  // namespace gpusim::k8s
