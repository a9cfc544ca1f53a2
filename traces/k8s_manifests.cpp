// The two entry points of the manifest reader: they cut a file into objects and hand each to the
// reader of its kind under traces/k8s/ (node_reader, pod_reader, job_reader,
// priority_class_reader), over the helpers there for fields, positions and errors
// (object_fields, object_meta, manifest_objects). traces/README.md, "Kubernetes manifests".
#include "traces/k8s_manifests.hpp"

#include <string>
#include <unordered_map>
#include <vector>

#include "sim/io/input_file.hpp"
#include "traces/k8s/job_reader.hpp"
#include "traces/k8s/manifest_objects.hpp"
#include "traces/k8s/node_reader.hpp"
#include "traces/k8s/object_meta.hpp"
#include "traces/k8s/pod_reader.hpp"
#include "traces/k8s/vmi_reader.hpp"
#include "traces/k8s/priority_class_reader.hpp"
#include "traces/k8s/workload_builder.hpp"

namespace gpusim::traces {

using cluster::GpuCatalog;
using k8s::Object;

ClusterSpec parse_k8s_nodes(const std::string& text, const std::string& source, const GpuCatalog& catalog) {
  const std::vector<Object> objects = k8s::read_objects(k8s::Where(source), text);
  ClusterSpec spec;
  spec.source = source;
  k8s::NodeTally tally;
  std::unordered_map<std::string, int> names;
  std::vector<const Object*> skipped;
  for (const Object& object : objects) {
    k8s::check_kind(object, {"Node"});
    if (object.kind != "Node") {
      skipped.push_back(&object);
      continue;
    }
    auto [node, kube] = k8s::read_node(object, catalog, tally);
    k8s::check_unique(names, node.name, object.fields, "node");
    spec.nodes.push_back(std::move(node));
    spec.kube.push_back(std::move(kube));
  }
  if (spec.nodes.empty()) k8s::nothing_read(source, "Node object");
  k8s::node_notes(tally, spec);
  if (!skipped.empty()) spec.notes.push_back(k8s::skipped_note(skipped, "Node"));
  return spec;
}

Workload parse_k8s_workload(const std::string& text, const std::string& source, const GpuCatalog& /*catalog*/) {
  const std::vector<Object> objects = k8s::read_objects(k8s::Where(source), text);
  // PriorityClasses may come after the pods that name them.
  k8s::PriorityClasses classes;
  for (const Object& object : objects) {
    k8s::check_kind(object, {"Pod", "Job", "PriorityClass", "VirtualMachineInstance"});
    if (object.kind == "PriorityClass") k8s::read_priority_class(object, classes);
  }
  k8s::WorkloadBuilder b;
  b.workload.source = source;
  b.workload.has_times = true;
  std::vector<const Object*> skipped;
  for (const Object& object : objects) {
    if (object.kind == "Pod") {
      k8s::read_pod(object, classes, b);
    } else if (object.kind == "Job") {
      k8s::read_job(object, classes, b);
    } else if (object.kind == "VirtualMachineInstance") {
      k8s::read_vmi(object, classes, b);
    } else if (object.kind != "PriorityClass") {
      skipped.push_back(&object);
    }
  }
  if (b.workload.pods.empty()) k8s::nothing_read(source, "Pod, Job or VirtualMachineInstance object");
  b.assign_queues();
  k8s::workload_notes(b.tally, b.workload);
  if (!skipped.empty()) b.workload.notes.push_back(k8s::skipped_note(skipped, "Pod, Job, VirtualMachineInstance and PriorityClass"));
  return std::move(b.workload);
}

ClusterSpec read_k8s_nodes(const std::filesystem::path& path, const GpuCatalog& catalog) {
  return parse_k8s_nodes(io::read_file(path, "node manifest"), path.string(), catalog);
}

Workload read_k8s_workload(const std::filesystem::path& path, const GpuCatalog& catalog) {
  return parse_k8s_workload(io::read_file(path, "workload manifest"), path.string(), catalog);
}

}  // namespace gpusim::traces
