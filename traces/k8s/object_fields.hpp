#pragma once
// Reading the fields of a Kubernetes object with errors that point at them: `Where` (the file and
// the line a YAML node stands on), `Fields` (one mapping of an object, with typed getters whose
// errors name the dotted path from the object, "file:line: spec.containers[1].name: why"),
// string-to-string mappings (labels, annotations, nodeSelector) and quantities and durations in
// fields. Shared by the readers of each kind (traces/README.md, "Kubernetes manifests").
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/time.hpp"
#include "traces/k8s_quantity.hpp"

namespace gpusim::traces::k8s {

inline constexpr std::int64_t kInt32Min = std::numeric_limits<std::int32_t>::min();
inline constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

// A value quoted in a message, cut to its first 40 characters.
std::string truncated(std::string_view text);
// "1 node", "3 nodes".
std::string plural(std::int64_t n, std::string_view one, std::string_view many);

// The file name, the first line of the YAML document being read (each is parsed on its own, so
// yaml-cpp's marks count from it) and, inside a JSON string held by an annotation, the
// annotation's line (marks there count lines of the string, not of the file). Holds the file
// name by pointer: the string must outlive it.
class Where {
 public:
  explicit Where(const std::string& file) : file_(&file) {}
  Where in_document_from(int first_line) const;
  Where inside_string_at(int line) const;
  int line(const YAML::Node& node) const;
  int mark_line(const YAML::Mark& mark) const;
  // Throw core::InputError "file:line: field: reason".
  [[noreturn]] void fail(const YAML::Node& node, std::string_view field, std::string_view reason) const;
  [[noreturn]] void fail_at(int line, std::string_view field, std::string_view reason) const;

 private:
  const std::string* file_;
  int line_offset_ = 0;
  int fixed_line_ = 0;
};

// Field paths: "spec" + "containers" is "spec.containers"; "" + "kind" is "kind".
std::string join(std::string_view path, std::string_view key);
// "spec.containers" and 1 is "spec.containers[1]".
std::string indexed(std::string_view path, std::size_t i);

// Given and not null (`key: ~` and `key:` with nothing read as absent).
bool present(const YAML::Node& node);
// What a node is, for messages: "a mapping", "a list", "a scalar", "nothing".
const char* shape(const YAML::Node& node);

// One YAML mapping of an object, with typed getters whose errors name the dotted path. Wrong
// types are errors; keys the reader does not ask for are ignored (Kubernetes objects carry many).
class Fields {
 public:
  // Refuses a node that is not a mapping, a key that is not a string, and a repeated key.
  Fields(const Where& where, YAML::Node node, std::string path);

  const Where& where() const { return where_; }
  const YAML::Node& node() const { return node_; }
  const std::string& path() const { return path_; }
  std::string path(std::string_view key) const { return join(path_, key); }

  YAML::Node get(const std::string& key) const { return node_[key]; }
  bool has(const std::string& key) const { return present(get(key)); }
  // At the value's line when it is given, else at the mapping's.
  [[noreturn]] void fail(const std::string& key, std::string_view reason) const;
  [[noreturn]] void missing(const std::string& key) const;

  std::optional<std::string> string(const std::string& key) const;
  // Given and not empty.
  std::string required_string(const std::string& key) const;
  std::optional<Fields> map(const std::string& key) const;
  Fields required_map(const std::string& key) const;
  // A list's items, each with its path ("spec.containers[1]").
  std::vector<std::pair<YAML::Node, std::string>> list(const std::string& key) const;
  // A decimal integer in [min, max] (JSON and YAML integers as kubectl prints them).
  std::optional<std::int64_t> integer(const std::string& key, std::int64_t min, std::int64_t max) const;
  // true/True/TRUE or false/False/FALSE.
  std::optional<bool> boolean(const std::string& key) const;
  // A JSON or YAML number (a Go float64 field), finite.
  std::optional<double> number(const std::string& key) const;
  // Refuses any key but these ("unknown field (known: ...)"): for objects whose every field the
  // reader knows (a CRD's spec), where a misspelt key must not be ignored.
  void only(std::initializer_list<std::string_view> known) const;

 private:
  Where where_;
  YAML::Node node_;
  std::string path_;
};

// A string-to-string mapping (labels, annotations, nodeSelector), in file order.
struct Entry {
  std::string key;
  std::string value;
  YAML::Node node;   // the value, for messages
  std::string path;  // e.g. metadata.labels.nvidia.com/gpu.count
};
using Entries = std::vector<Entry>;

// parent.key as entries (none when absent); an empty key or a value that is not a string is an error.
Entries string_map(const Fields& parent, const std::string& key);
// The entry with `key`, or null.
const Entry* find(const Entries& entries, std::string_view key);

// ---------------------------------------------------------------- quantities and times in fields

// A parsed value, or the parser's reason as an error at `node`.
template <typename T>
T must(const Where& where, const YAML::Node& node, const std::string& path, Parsed<T> parsed) {
  if (!parsed) where.fail(node, path, parsed.error);
  return *parsed.value;
}

// An entry's value as a Go duration ("90s", "1h30m").
core::Time duration_entry(const Where& where, const Entry& e);
// A quantity field of a resource mapping (scalar text).
std::string quantity_text(const Fields& map, const std::string& key);

}  // namespace gpusim::traces::k8s
