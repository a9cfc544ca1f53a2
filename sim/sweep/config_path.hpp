#pragma once
// A field of a configuration file named by its path, for the sweep axes that vary it:
//   profiles[0].pluginConfig[name=LoadAwareScheduling].args.usageThresholds["koordinator.sh/gpu-core"]
// A step is a mapping key (bare, or quoted when it holds '.', '[' or ']'), a list index [N], or
// the list element whose field equals a value [field=value].
//
// A cell's copy of the file is the file's text with that one value's characters replaced, so its
// comments, order and quoting stay, and the copy differs from the file in that value alone.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpusim::sweep {

struct PathStep {
  enum Kind { kKey, kIndex, kMatch } kind = kKey;
  std::string key;         // kKey: the key; kMatch: the element's field
  std::size_t index = 0;   // kIndex
  std::string value;       // kMatch: the value that field must have
};

// Parses a path. Throws std::invalid_argument saying what is wrong and where in the path.
std::vector<PathStep> parse_config_path(std::string_view path);

// Where a scalar value lies in a YAML text: the characters [begin, end) that spell it.
struct TextSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
};

// The span of the scalar at `steps` in document `document` of `text`. Throws std::invalid_argument
// saying which step finds nothing (and what is there instead), or that the field is a list or a
// mapping rather than one value.
TextSpan locate_config_field(const std::string& text, std::size_t document, const std::vector<PathStep>& steps);

// How many YAML documents `text` holds, not counting empty ones after the first (a trailing
// `---`). Throws std::invalid_argument on a syntax error.
std::size_t yaml_document_count(const std::string& text);

// `value` as a YAML scalar. `quote` is how the value it replaces was written: '"' or '\'' keeps
// those quotes (a quoted "1" is a string, and stays one); otherwise as written when it reads back
// as the same text, double-quoted when not.
std::string yaml_scalar_text(const std::string& value, char quote = 0);

}  // namespace gpusim::sweep
