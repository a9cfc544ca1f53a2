#pragma once
// gpusim's exit codes: one table, printed by `gpusim --help` and listed in the README.
namespace gpusim::app {

enum ExitCode : int {
  kExitOk = 0,
  kExitBadInput = 1,   // a file's content, a name that resolves to nothing, a refused --out
  kExitUsage = 2,      // the command line's form: unknown option, missing or malformed value,
                       // a number out of range, an option that does not apply to the mode
  kExitNoGpu = 3,      // `gpusim calibrate` found no GPU (or no CUDA build)
  kExitInternal = 70,  // a gpusim bug (BSD EX_SOFTWARE); please report it
  // Stopped by a signal: 128 + its number (SIGINT 130, SIGTERM 143, SIGHUP 129).
};

inline constexpr const char* kExitCodeHelp =
    "Exit codes: 0 success; 1 bad input (files, names, --out refused); 2 usage (unknown option, missing or\n"
    "malformed value, number out of range, option not for this mode); 3 no GPU (calibrate); 70 internal error;\n"
    "128+N stopped by signal N (130 SIGINT, 143 SIGTERM), the partial output removed.";

}  // namespace gpusim::app
