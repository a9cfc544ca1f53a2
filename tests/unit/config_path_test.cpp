// A configuration field's path, and where its value lies in the file's text: the span a sweep cell's
// copy replaces, so that a comment, a quote or a flow collection around it stays as written.
#include "sim/sweep/config_path.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <stdexcept>
#include <string>

namespace gpusim::sweep {
namespace {

std::string spelled(const std::string& text, std::size_t document, const std::string& path) {
  const TextSpan span = locate_config_field(text, document, parse_config_path(path));
  return text.substr(span.begin, span.end - span.begin);
}

TEST(ConfigPath, StepsAreKeysIndicesMatchesAndQuotedKeys) {
  const auto steps = parse_config_path(R"(profiles[0].pluginConfig[name=LoadAware].args.usage["koordinator.sh/gpu-core"])");
  ASSERT_EQ(steps.size(), 7U);
  EXPECT_EQ(steps[0].key, "profiles");
  EXPECT_EQ(steps[1].kind, PathStep::kIndex);
  EXPECT_EQ(steps[3].kind, PathStep::kMatch);
  EXPECT_EQ(steps[3].key, "name");
  EXPECT_EQ(steps[3].value, "LoadAware");
  EXPECT_EQ(steps[6].key, "koordinator.sh/gpu-core");
  EXPECT_EQ(parse_config_path(R"(a."b.c".d)")[1].key, "b.c");
  for (const char* bad : {"", ".a", "a.", "a..b", "a[", "a[x]", "a[=1]", "a]", R"(a["b)", "a[0]b"}) {
    EXPECT_THROW(parse_config_path(bad), std::invalid_argument) << bad;
  }
}

TEST(ConfigPath, TheSpanIsTheValueAsWrittenWithoutItsCommentOrNeighbours) {
  const std::string text =
      "a: 10   # a comment\n"
      "b: {x: 1, y: 'two'}\n"
      "c:\n"
      "- name: first\n"
      "  weight: \"3\"\n"
      "- {name: second, weight: 4}\n"
      "d: [5, 6]\n";
  EXPECT_EQ(spelled(text, 0, "a"), "10");
  EXPECT_EQ(spelled(text, 0, "b.x"), "1");
  EXPECT_EQ(spelled(text, 0, "b.y"), "'two'");
  EXPECT_EQ(spelled(text, 0, "c[name=first].weight"), "\"3\"");
  EXPECT_EQ(spelled(text, 0, "c[name=second].weight"), "4");
  EXPECT_EQ(spelled(text, 0, "d[1]"), "6");
  EXPECT_THROW(spelled(text, 0, "c"), std::invalid_argument);  // a list, not one value
  EXPECT_THROW(spelled(text, 0, "d[2]"), std::invalid_argument);
}

TEST(ConfigPath, DocumentsAreCountedAndChosen) {
  const std::string text = "kind: A\nn: 1\n---\nkind: B\nn: 22\n";
  EXPECT_EQ(yaml_document_count(text), 2U);
  EXPECT_EQ(spelled(text, 1, "n"), "22");
  EXPECT_THROW(spelled(text, 2, "n"), std::invalid_argument);
}

TEST(ConfigPath, AByteOrderMarkAndATrailingSeparatorChangeNothing) {
  const std::string text = std::string("\xEF\xBB\xBF") + "a: 10\nb: 2\n---\n";
  EXPECT_EQ(yaml_document_count(text), 1U);
  EXPECT_EQ(spelled(text, 0, "b"), "2");
}

// Whatever the value and however the file wrote the one it replaces, the text reads back as it.
TEST(ConfigPath, EveryValueReadsBackAsItselfInEachQuoting) {
  for (const std::string value : {"1", "0.5", "it's", "x\"y\\z", "a\nb", "c\x01" "d", "tab\there", "null", "a: b", "#z", "é €"}) {
    for (const char quote : {'\0', '"', '\''}) {
      const std::string text = "k: " + yaml_scalar_text(value, quote) + "\n";
      const YAML::Node doc = YAML::Load(text);
      ASSERT_TRUE(doc["k"].IsScalar()) << text;
      EXPECT_EQ(doc["k"].Scalar(), value) << text;
    }
  }
}

TEST(ConfigPath, AValueIsQuotedOnlyWhereItWouldNotReadBackAsWritten) {
  // In the quotes of the value it replaces: a quoted "1" was a string, and "2" stays one.
  EXPECT_EQ(yaml_scalar_text("2", '"'), "\"2\"");
  EXPECT_EQ(yaml_scalar_text("it's", '\''), "'it''s'");
  EXPECT_EQ(yaml_scalar_text("0.5"), "0.5");
  EXPECT_EQ(yaml_scalar_text("koordinator.sh/gpu-core"), "koordinator.sh/gpu-core");
  EXPECT_EQ(yaml_scalar_text("a: b"), "\"a: b\"");
  EXPECT_EQ(yaml_scalar_text("say \"hi\""), "\"say \\\"hi\\\"\"");
}

}  // namespace
}  // namespace gpusim::sweep
