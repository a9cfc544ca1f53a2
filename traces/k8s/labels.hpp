#pragma once
// Node label syntax as the API server checks it (k8s.io/apimachinery pkg/util/validation:
// IsQualifiedName for keys, IsValidLabelValue for values), for labels gpusim's own files set.
#include <string_view>

namespace gpusim::traces::k8s {

// An optional prefix (a DNS subdomain of at most 253 characters) and '/', then a name of 1 to 63
// letters, digits, '-', '_' or '.', beginning and ending with a letter or digit.
bool label_key_valid(std::string_view key);
// Empty, or at most 63 letters, digits, '-', '_' or '.', beginning and ending with a letter or digit.
bool label_value_valid(std::string_view value);

}  // namespace gpusim::traces::k8s
