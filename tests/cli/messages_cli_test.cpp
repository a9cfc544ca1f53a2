// Messages, word for word: every usage error reads "gpusim: error: ...".
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <fstream>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMoreHelp = "Run with --help for more information.\n";

TEST(Messages, EveryUsageErrorSaysGpusimError) {
  const fs::path dir = fresh_dir("messages-usage");
  const std::pair<const char*, std::string> cases[] = {
      // CLI11's own errors.
      {"run --no-such-option --out o", "The following argument was not expected: --no-such-option"},
      {"run", "--out is required"},
      {"run --seed -1 --out o", "--seed: -1 is negative; seeds are 0 .. 2^63-1"},
      {"", "A subcommand is required"},
      // gpusim's.
      {"frobnicate", "unknown command 'frobnicate' (commands: run, compare, export, report, trace, policies, calibrate, validate)"},
      {"run --policy fgd,bestfit --out o", "--policy takes one policy; use `gpusim compare --policies` for several"},
      {"run --mode replay --fill-target 1.2 --out o", "--fill-target applies to --mode fill only"},
  };
  for (const auto& [args, what] : cases) {
    const CliResult result = run_gpusim(dir, args);
    EXPECT_EQ(result.exit_code, 2) << args;
    EXPECT_EQ(result.err, "gpusim: error: " + what + "\n" + kMoreHelp) << args;
  }
  EXPECT_FALSE(fs::exists(dir / "o"));
}

}  // namespace
}  // namespace gpusim::testing
