#include "traces/k8s/vmi_reader.hpp"

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "traces/k8s/object_meta.hpp"
#include "traces/k8s/pod_reader.hpp"

namespace gpusim::traces::k8s {

void read_vmi(const Object& object, const PriorityClasses& classes, WorkloadBuilder& builder) {
  const Fields& fields = object.fields;
  const Where& where = fields.where();
  const Meta meta = read_meta(fields, &builder.generated_names);
  check_gpusim_annotations(where, meta.annotations, kPodAnnotations, "VirtualMachineInstance");
  const Fields spec = fields.required_map("spec");
  const Fields domain = spec.required_map("domain");

  // The virt-launcher pod's one container: the VM's resources and its GPUs.
  YAML::Node requests(YAML::NodeType::Map);
  YAML::Node limits(YAML::NodeType::Map);
  if (const auto resources = domain.map("resources")) {
    if (const auto asked = resources->map("requests")) {
      for (const char* name : {"cpu", "memory"}) {
        if (asked->has(name)) requests[name] = asked->get(name);
      }
    }
    if (const auto capped = resources->map("limits")) {
      for (const char* name : {"cpu", "memory"}) {
        if (capped->has(name)) limits[name] = capped->get(name);
      }
    }
  }
  if (!requests["memory"]) {
    if (const auto memory = domain.map("memory"); memory && memory->has("guest")) requests["memory"] = memory->get("guest");
  }
  std::vector<std::pair<std::string, int>> gpus;  // deviceName and count, in order
  if (const auto devices = domain.map("devices")) {
    if (devices->has("hostDevices")) {
      devices->fail("hostDevices", "host devices (PCI passthrough GPUs) are not modelled: give the VM vGPUs in gpus[]");
    }
    std::vector<std::string> names;
    for (const auto& [node, path] : devices->list("gpus")) {
      const Fields gpu(where, node, path);
      const std::string name = gpu.required_string("name");
      for (const std::string& seen : names) {
        if (seen == name) gpu.fail("name", fmt::format("'{}' given twice (KubeVirt requires unique device names)", name));
      }
      names.push_back(name);
      if (gpu.has("claimName") || gpu.has("requestName")) {
        gpu.fail(gpu.has("claimName") ? "claimName" : "requestName", "GPUs through DRA claims are not modelled: give deviceName");
      }
      const std::string device = gpu.required_string("deviceName");
      if (!device.starts_with("nvidia.com/NVIDIA_") && !device.starts_with("nvidia.com/GRID_")) {
        gpu.fail("deviceName", fmt::format("'{}' is not a vGPU resource of KubeVirt's GPU device plugin (nvidia.com/NVIDIA_<type>, "
                                           "e.g. nvidia.com/NVIDIA_A10-12Q); passthrough GPUs are not modelled",
                                           truncated(device)));
      }
      if (!gpus.empty() && gpus.front().first != device) {
        gpu.fail("deviceName", fmt::format("'{}' after {}: gpusim gives a VM vGPUs of one type", device, gpus.front().first));
      }
      if (gpus.empty()) gpus.emplace_back(device, 0);
      ++gpus.front().second;
    }
  }
  for (const auto& [device, count] : gpus) {
    requests[device] = count;
    limits[device] = count;
  }
  YAML::Node container(YAML::NodeType::Map);
  container["name"] = "compute";
  container["resources"]["requests"] = requests;
  container["resources"]["limits"] = limits;
  YAML::Node pod_spec(YAML::NodeType::Map);
  pod_spec["containers"].push_back(container);
  for (const char* key : {"nodeSelector", "affinity", "tolerations", "priorityClassName", "schedulerName"}) {
    if (spec.has(key)) pod_spec[key] = spec.get(key);
  }
  PodRead read = read_pod_spec(Fields(where, pod_spec, "spec"), meta.annotations, classes, builder.tally);
  read.pod.name = meta.name;
  read.constraints.ownerless = true;  // a bare VMI: nothing recreates it (a VirtualMachine would)
  read.pod.constraints = std::make_shared<const cluster::PodConstraints>(std::move(read.constraints));
  builder.add(std::move(read.pod), fields, meta);
}

}  // namespace gpusim::traces::k8s
