#pragma once
// Kubernetes' qualified names (label keys, resource names): an optional DNS-1123 subdomain prefix
// and '/', then a name of at most 63 characters, alphanumeric at both ends with '-', '_' and '.'
// inside (k8s.io/apimachinery pkg/util/validation/validation.go, IsQualifiedName, used by
// metav1validation.ValidateLabelName). Returns why `value` is not one, or nothing.
#include <optional>
#include <string>
#include <string_view>

namespace gpusim::traces::k8s {

namespace qualified_name_detail {

inline bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63 characters.
inline std::optional<std::string> name_part_error(std::string_view name) {
  if (name.empty()) return "name part must be non-empty";
  if (name.size() > 63) return "name part must be no more than 63 characters";
  const bool inner_ok = name.find_first_not_of(
                            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == std::string_view::npos;
  if (!inner_ok || !alnum(name.front()) || !alnum(name.back())) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
           "alphanumeric character";
  }
  return std::nullopt;
}

// A lowercase RFC 1123 subdomain: at most 253 characters, [a-z0-9] at both ends of each label,
// '-' inside, labels joined by '.'.
inline std::optional<std::string> prefix_error(std::string_view prefix) {
  if (prefix.empty()) return "prefix part must be non-empty";
  if (prefix.size() > 253) return "prefix part must be no more than 253 characters";
  const auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = prefix.find('.', start);
    const std::string_view label = prefix.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    bool ok = !label.empty() && lower_alnum(label.front()) && lower_alnum(label.back());
    for (const char c : label) ok = ok && (lower_alnum(c) || c == '-');
    if (!ok) {
      return "prefix part must be a lowercase RFC 1123 subdomain (lowercase alphanumeric characters, '-' or '.', "
             "starting and ending with an alphanumeric character)";
    }
    if (dot == std::string_view::npos) return std::nullopt;
    start = dot + 1;
  }
}

}  // namespace qualified_name_detail

inline std::optional<std::string> qualified_name_error(std::string_view value) {
  const std::size_t slash = value.find('/');
  if (slash == std::string_view::npos) return qualified_name_detail::name_part_error(value);
  if (value.find('/', slash + 1) != std::string_view::npos) {
    return "a qualified name must consist of an optional prefix, '/' and a name, with one '/' at most";
  }
  if (auto why = qualified_name_detail::prefix_error(value.substr(0, slash))) return why;
  return qualified_name_detail::name_part_error(value.substr(slash + 1));
}

}  // namespace gpusim::traces::k8s
