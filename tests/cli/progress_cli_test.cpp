// Progress on stderr, as a user sees it: a live line under a terminal (run through util-linux
// `script`, which gives the command a pseudo-terminal), plain lines in a log, nothing with --quiet;
// and the output files byte for byte the same whichever.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <fstream>
#include <map>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

bool has_script() { return std::system("command -v script > /dev/null 2>&1") == 0; }

// Runs gpusim under a pseudo-terminal in `cwd`; returns what the terminal showed (stdout and
// stderr together).
std::string run_in_terminal(const fs::path& cwd, const std::string& args) {
  const fs::path shown = cwd / ".typescript";
  const std::string command = fmt::format("cd '{}' && TERM=xterm script -qfec '{} {}' /dev/null > '{}' 2>&1", cwd.string(),
                                          GPUSIM_TEST_BINARY, args, shown.string());
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  const std::string text = slurp(shown);
  fs::remove(shown);
  return text;
}

// Every file under `dir`, by path relative to it.
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files[fs::relative(entry.path(), dir).string()] = slurp(entry.path());
  }
  return files;
}

constexpr const char* kCompare = "compare --policies bestfit,fgd --seeds 2";

TEST(Progress, PlainLinesWhenStderrIsNotATerminal) {
  const fs::path dir = fresh_dir("progress-plain");
  const CliResult result = run_gpusim(dir, fmt::format("{} --progress-every 0 --out o", kCompare));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // At least the first look and the last line; every line whole, none rewritten.
  EXPECT_TRUE(result.err.starts_with("gpusim: ")) << result.err;
  EXPECT_NE(result.err.find(" runs done"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("\ngpusim: 4/4 runs done in "), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find('\r'), std::string::npos) << result.err;
  EXPECT_EQ(result.out.find("runs done"), std::string::npos) << "progress goes to stderr only";
}

TEST(Progress, NoneForACommandShorterThanTheIntervalNorWithQuiet) {
  const fs::path dir = fresh_dir("progress-none");
  // Three pods: far within the default interval of 10 s, even in the sanitizer build.
  std::ofstream(dir / "pods.csv")
      << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
         "a,1000,1024,1,1000,,LS,Running,0,30,0\nb,1000,1024,1,1000,,LS,Running,10,70,10\nc,1000,1024,1,1000,,LS,Running,20,90,20\n";
  const std::string args = "compare --mode replay --workload pods.csv --policies bestfit,fgd --seeds 2";
  CliResult result = run_gpusim(dir, args + " --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  result = run_gpusim(dir, args + " --quiet --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  // --quiet and --progress-every contradict each other, in every command that takes them.
  for (const char* command : {"run --out o", "compare --out o", "calibrate"}) {
    result = run_gpusim(dir, fmt::format("{} --quiet --progress-every 5", command));
    EXPECT_EQ(result.exit_code, 2) << command;
    EXPECT_NE(result.err.find("--quiet excludes --progress-every"), std::string::npos) << command << ": " << result.err;
  }
}

TEST(Progress, LiveLineUnderATerminal) {
  ASSERT_TRUE(has_script()) << "script(1) (util-linux, Debian's bsdutils) is required";
  const fs::path dir = fresh_dir("progress-live");
  const std::string shown = run_in_terminal(dir, fmt::format("{} --out o", kCompare));
  // Drawn in place (carriage return, erase to the end of the line) and erased before the results.
  const std::size_t line = shown.find("\rgpusim: ");
  ASSERT_NE(line, std::string::npos) << shown;
  EXPECT_EQ(shown.find("/4 runs done", line), line + 10) << shown;
  EXPECT_NE(shown.find("\033[K"), std::string::npos) << shown;
  // What follows starts on the erased line: the notes on pods that never ran, then the headline.
  EXPECT_NE(shown.find("\r\033[Kgpusim: note: "), std::string::npos) << "the note starts on the erased line: " << shown;
  EXPECT_NE(shown.find("\nbestfit "), std::string::npos) << shown;
  EXPECT_EQ(shown.find("done in"), std::string::npos) << "no plain lines on a terminal: " << shown;
  const std::string quiet = run_in_terminal(dir, fmt::format("{} --quiet --out o", kCompare));
  EXPECT_EQ(quiet.find("runs done"), std::string::npos) << quiet;
  EXPECT_EQ(quiet.find('\r' + std::string("\033[K")), std::string::npos) << quiet;
}

TEST(Progress, OutputsAreTheSameWithAndWithoutIt) {
  const fs::path dir = fresh_dir("progress-outputs");
  for (const char* mode : {"--mode fill", "--mode replay --time-compression 500"}) {
    const std::string args = fmt::format("{} {}", kCompare, mode);
    ASSERT_EQ(run_gpusim(dir, args + " --quiet --out quiet").exit_code, 0);
    ASSERT_EQ(run_gpusim(dir, args + " --progress-every 0 --out plain").exit_code, 0);
    const auto quiet = files_of(dir / "quiet");
    EXPECT_GT(quiet.size(), 10U);
    EXPECT_EQ(files_of(dir / "plain"), quiet) << mode;
    ASSERT_TRUE(has_script()) << "script(1) (util-linux, Debian's bsdutils) is required";
    run_in_terminal(dir, args + " --out live");
    EXPECT_EQ(files_of(dir / "live"), quiet) << mode;
  }
}

}  // namespace
}  // namespace gpusim::testing
