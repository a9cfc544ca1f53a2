#pragma once
// An object's metadata as every kind's reader takes it: the name (an RFC 1123 subdomain, as
// Kubernetes requires of Node, Pod, Job and PriorityClass names; k8s.io/apimachinery
// pkg/util/validation/validation.go, IsDNS1123Subdomain), labels and annotations in file order,
// names unique within a file, and gpusim's own `gpusim.io/` annotations checked against the ones
// a kind takes.
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "traces/k8s/object_fields.hpp"

namespace gpusim::traces::k8s {

// RFC 1123 label: what Kubernetes requires of container names.
bool dns_label(std::string_view s);
// RFC 1123 subdomain: what Kubernetes requires of Node, Pod, Job and PriorityClass names. It
// also keeps names safe for gpusim's CSV outputs (no commas, quotes or spaces).
bool dns_subdomain(std::string_view s);

struct Meta {
  std::string name;
  Entries labels;
  Entries annotations;
};

// object.metadata: name required and valid, labels and annotations as string mappings.
Meta read_meta(const Fields& object);

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
