#pragma once
// Field-by-field reading of YAML input files, with errors that name the file, the line and the
// dotted field ("quotas.yaml:4: queues.vc1.deserved: '-3' is not a number from 0 to 1e+06").
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace gpusim::io {

// What went wrong in yaml-cpp's exception `e` from parsing `text`. yaml-cpp reports a line
// indented with a tab as "illegal map value" (or "illegal tab when looking for indentation"),
// which does not say what to change; when the failing line's indentation holds a tab the message
// says so instead: "a tab character at column 3; YAML indents with spaces".
std::string yaml_error_message(std::string_view text, const YAML::Exception& e);
// "file:line: " and that message.
std::string yaml_syntax_error(std::string_view file, std::string_view text, const YAML::Exception& e);

class YamlFields {
 public:
  explicit YamlFields(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  // Throws core::InputError "file:line: field: why", the line being the node's.
  [[noreturn]] void fail(const YAML::Node& node, const std::string& field, const std::string& why) const;
  // Every key of `map` must be one of `known`.
  void only(const YAML::Node& map, const std::string& field, std::initializer_list<const char*> known) const;
  std::string text(const YAML::Node& node, const std::string& field) const;
  // A mapping key as text; a key that is not text (a list, a mapping) fails at its line, naming `field`.
  std::string key(const YAML::Node& key, const std::string& field) const;
  std::int64_t integer(const YAML::Node& node, const std::string& field, std::int64_t low, std::int64_t high) const;
  double number(const YAML::Node& node, const std::string& field, double low, double high) const;
  bool boolean(const YAML::Node& node, const std::string& field) const;

 private:
  std::string file_;
};

}  // namespace gpusim::io
