#include "traces/k8s/object_meta.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gpusim::traces::k8s {

namespace {

constexpr std::string_view kGpusimPrefix = "gpusim.io/";

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

}  // namespace

bool dns_label(std::string_view s) {
  if (s.empty() || s.size() > 63 || !lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return lower_alnum(c) || c == '-'; });
}

bool dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    if (!dns_label(s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

Meta read_meta(const Fields& object, std::int64_t* generated) {
  const Fields meta = object.required_map("metadata");
  Meta m;
  if (generated != nullptr && !meta.has("name") && meta.has("generateName")) {
    // The API server appends five random characters; gpusim numbers the file's generated names.
    m.name = fmt::format("{}{:05d}", meta.required_string("generateName"), (*generated)++);
    m.generated = true;
    if (!dns_subdomain(m.name)) {
      meta.fail("generateName", fmt::format("'{}' does not make a valid Kubernetes name", meta.required_string("generateName")));
    }
  } else {
    m.name = meta.required_string("name");
  }
  if (!dns_subdomain(m.name)) {
    meta.fail("name", fmt::format("'{}' is not a valid Kubernetes name (lower-case letters, digits, '-' and '.', "
                                  "starting and ending with a letter or digit, at most 253 characters)",
                                  m.name));
  }
  if (const auto ns = meta.string("namespace")) {
    if (!dns_label(*ns)) {
      meta.fail("namespace", fmt::format("'{}' is not a valid namespace (lower-case letters, digits and '-', starting and ending "
                                         "with a letter or digit, at most 63 characters)",
                                         *ns));
    }
    m.namespace_name = *ns;
  }
  m.labels = string_map(meta, "labels");
  m.annotations = string_map(meta, "annotations");
  return m;
}

void check_unique(std::unordered_map<std::string, int>& seen, const std::string& name, const Fields& meta_owner,
                  std::string_view what) {
  const int line = meta_owner.where().line(meta_owner.node());
  const auto [it, inserted] = seen.emplace(name, line);
  if (!inserted) {
    const Fields meta = meta_owner.required_map("metadata");
    meta.fail("name", fmt::format("duplicate {} name '{}' (first at line {})", what, name, it->second));
  }
}

void check_gpusim_annotations(const Where& where, const Entries& annotations, std::span<const std::string_view> known,
                              std::string_view object) {
  for (const Entry& e : annotations) {
    if (!e.key.starts_with(kGpusimPrefix)) continue;
    if (std::find(known.begin(), known.end(), e.key) == known.end()) {
      where.fail(e.node, e.path,
                 fmt::format("unknown gpusim annotation on a {} (known: {})", object, fmt::join(known, ", ")));
    }
  }
}

std::vector<std::string> comma_list(const Where& where, const Entry& annotation, std::string_view what) {
  std::vector<std::string> items;
  std::string_view rest = annotation.value;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    std::string item(rest.substr(0, comma));
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.empty()) where.fail(annotation.node, annotation.path, fmt::format("an empty {} in the list", what));
    items.push_back(std::move(item));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return items;
}

}  // namespace gpusim::traces::k8s
