#include "traces/k8s/vmi_reader.hpp"

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "traces/k8s/object_meta.hpp"
#include "traces/k8s/pod_reader.hpp"
#include "traces/k8s_quantity.hpp"

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
  // cpu and memory, checked here so that an error names the VMI's own field; a VM's GPUs are its
  // gpus[] (KubeVirt adds them to the launcher pod), any other resource is refused.
  const auto copy = [&](const Fields& from, YAML::Node& into) {
    for (const auto& kv : from.node()) {
      const std::string name = kv.first.Scalar();
      if (name == "cpu") {
        must(where, kv.second, from.path(name), cpu_millicores(quantity_text(from, name)));
      } else if (name == "memory") {
        must(where, kv.second, from.path(name), memory_mib(quantity_text(from, name)));
      } else {
        from.fail(name, "gpusim reads cpu and memory here; a VM asks its vGPUs in spec.domain.devices.gpus[]");
      }
      into[name] = kv.second;
    }
  };
  if (const auto resources = domain.map("resources")) {
    if (const auto asked = resources->map("requests")) copy(*asked, requests);
    if (const auto capped = resources->map("limits")) copy(*capped, limits);
  }
  if (!requests["memory"]) {
    if (const auto memory = domain.map("memory"); memory && memory->has("guest")) {
      must(where, memory->get("guest"), memory->path("guest"), memory_mib(quantity_text(*memory, "guest")));
      requests["memory"] = memory->get("guest");
    }
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
