#pragma once
// An object's metadata as every kind's reader takes it: the name (an RFC 1123 subdomain, as
// Kubernetes requires of Node, Pod, Job and PriorityClass names; k8s.io/apimachinery
// pkg/util/validation/validation.go, IsDNS1123Subdomain), labels and annotations in file order,
// names unique within a file, and gpusim's own `gpusim.io/` annotations checked against the ones
// a kind takes.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "traces/k8s/object_fields.hpp"

namespace gpusim::traces::k8s {

// The label with which a Job or Pod names its Kueue LocalQueue (in its namespace).
inline constexpr std::string_view kKueueQueueLabel = "kueue.x-k8s.io/queue-name";

// The label with which a Job or Pod names its Kueue WorkloadPriorityClass.
inline constexpr std::string_view kKueuePriorityClassLabel = "kueue.x-k8s.io/priority-class";

// The label with which a Job or Pod names its KAI Scheduler Queue (KAI's DefaultQueueLabel; its
// podgrouper reads the top owner's, then the pod's).
inline constexpr std::string_view kKaiQueueLabel = "kai.scheduler/queue";

// RFC 1123 label: what Kubernetes requires of container names.
bool dns_label(std::string_view s);
// RFC 1123 subdomain: what Kubernetes requires of Node, Pod, Job and PriorityClass names. It
// also keeps names safe for gpusim's CSV outputs (no commas, quotes or spaces).
bool dns_subdomain(std::string_view s);

struct Meta {
  std::string name;
  std::string namespace_name = "default";  // metadata.namespace
  Entries labels;
  Entries annotations;
  bool generated = false;  // the name was made from metadata.generateName
};

// object.metadata: name required and valid, the namespace (an RFC 1123 label, "default" when not
// given), labels and annotations as string mappings. With `generated` (Pods and Jobs), a
// metadata.generateName stands for a missing name: the prefix and the count of names generated so
// far in the file (0-padded to five digits, where the API server appends five random characters).
Meta read_meta(const Fields& object, std::int64_t* generated = nullptr);

// Names unique within a file: `seen` maps each name to its object's line; a duplicate's message
// names the earlier line, at the duplicate's metadata.name.
void check_unique(std::unordered_map<std::string, int>& seen, const std::string& name, const Fields& meta_owner,
                  std::string_view what);

// An annotation's comma-separated list ("vc1, vc2"), each item trimmed of spaces; an empty item is
// an error at the annotation ("an empty <what> in the list").
std::vector<std::string> comma_list(const Where& where, const Entry& annotation, std::string_view what);

// gpusim.io/ annotations are gpusim's own: a misspelt one must not be ignored. Each must be one
// of `known`; `object` names the kind in the message ("Node", "Job's pod template").
void check_gpusim_annotations(const Where& where, const Entries& annotations, std::span<const std::string_view> known,
                              std::string_view object);

}  // namespace gpusim::traces::k8s
