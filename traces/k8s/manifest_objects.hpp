#pragma once
// The objects of a manifest file: every YAML document (`---` between them), and the items of a
// `kind: List` or of the API's typed lists (NodeList, PodList... whose items may omit `kind`), as
// `kubectl get -o yaml` and `-o json` print them (JSON is YAML). Each kind's reader takes the
// objects of its kind; the others are named in a note (traces/README.md, "Kubernetes manifests",
// "Files").
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "traces/k8s/object_fields.hpp"

namespace gpusim::traces::k8s {

struct Object {
  Fields fields;
  std::string kind;  // as spelt in the file
  int line;          // where the object starts
};

// Every object of every document of `text`; a List's items are objects too. Empty documents (a
// trailing '---') hold nothing. Not YAML::LoadAll, which loops for ever on a stray token after a
// document (tests/fuzz/README.md, loadall-stray-comma.yaml).
std::vector<Object> read_objects(const Where& file, const std::string& text);

// Objects of kinds a reader does not read are named in a note; a kind that differs from one it
// reads (`read`) only by case is a mistake (kinds are case-sensitive) and an error.
void check_kind(const Object& object, std::initializer_list<std::string_view> read);

// The note naming skipped objects by kind and line (the first 10, then a count); `reads` names
// what the reader reads ("Node", "Pod, Job and PriorityClass").
std::string skipped_note(const std::vector<const Object*>& skipped, std::string_view reads);

// A file without a single object of the kinds read: "source:1: kind: no `what` in the file".
[[noreturn]] void nothing_read(const std::string& source, std::string_view what);

}  // namespace gpusim::traces::k8s
