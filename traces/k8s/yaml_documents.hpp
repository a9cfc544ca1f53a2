#pragma once
// The documents of a multi-document YAML file ("---" between them), for readers of Kubernetes-style
// objects. Each document is parsed with the lines before it kept as blank lines, so yaml-cpp's
// marks count lines from the start of the file and io::YamlFields' errors name the file's line.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace gpusim::traces {

// Every document of `text`, empty ones (a trailing "---") included as null nodes. Throws
// core::InputError "file:line: yaml: why" on a syntax error. Not YAML::LoadAll: yaml-cpp 0.7
// neither consumes nor refuses a token that cannot start a node (the ',' of "{a: 1},"), so LoadAll
// returns null documents for ever; a first pass here refuses a document that does not move on.
std::vector<YAML::Node> load_yaml_documents(const std::string& text, const std::string& file);

// `text` parsed as one YAML document whose first line is line `first_line` (1-based) of `file`:
// for a document held in a string of another file (a ConfigMap's block scalar). Throws
// core::InputError "file:line: yaml: why" on a syntax error or a second document.
YAML::Node load_yaml_at_line(const std::string& text, const std::string& file, int first_line);

}  // namespace gpusim::traces
