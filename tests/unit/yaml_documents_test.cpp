// traces/k8s/yaml_documents.hpp: marks count the file's lines in every document; text that does
// not move on (which makes yaml-cpp's LoadAll loop for ever) is refused; a document held in
// another file's string counts from its line there.
#include <gtest/gtest.h>

#include "sim/core/status.hpp"
#include "traces/k8s/yaml_documents.hpp"

namespace gpusim::traces {
namespace {

std::string error_of(const std::string& text) {
  try {
    load_yaml_documents(text, "f.yaml");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(YamlDocuments, MarksCountTheFilesLines) {
  const auto docs = load_yaml_documents("# head\na: 1\n---\nb: 2\n\nc: 3\n---\n", "f.yaml");
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[0]["a"].Mark().line + 1, 2);
  EXPECT_EQ(docs[1]["c"].Mark().line + 1, 6);
  EXPECT_TRUE(docs[2].IsNull());  // the trailing '---'
  EXPECT_TRUE(load_yaml_documents("", "f.yaml").empty());
}

TEST(YamlDocuments, SyntaxErrorsAndStrayTextNameTheirLine) {
  EXPECT_EQ(error_of("a: 1\n---\nb: [1,\n"), "f.yaml:4: yaml: end of sequence flow not found");
  EXPECT_EQ(error_of("{a: 1},\n").substr(0, 13), "f.yaml:1: yam");
}

TEST(YamlDocuments, ADocumentInAnotherFilesString) {
  const YAML::Node doc = load_yaml_at_line("x: 1\ny: 2\n", "cm.yaml", 7);
  EXPECT_EQ(doc["y"].Mark().line + 1, 8);
  try {
    load_yaml_at_line("x: 1\n---\ny: 2\n", "cm.yaml", 7);
    ADD_FAILURE();
  } catch (const core::InputError& e) {
    EXPECT_STREQ(e.what(), "cm.yaml:9: yaml: a second document; this text holds one");
  }
  EXPECT_NO_THROW(load_yaml_at_line("x: 1\n---\n", "cm.yaml", 7));
}

}  // namespace
}  // namespace gpusim::traces
