#pragma once
// `gpusim run ARGS` as main runs it (app::run_simulate), in this process, with a registry the test
// chose: so that plugins a test defines and registers run through the binary's own code path.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/app/simulate_command.hpp"
#include "sim/io/interrupt.hpp"
#include "sim/sched/registry.hpp"

namespace gpusim::testing {

// The exit code; a bad input throws as it would out of main.
inline int run_as_main(const std::vector<std::string>& args, const sched::Registry& registry) {
  CLI::App cli;
  app::SimulateOptions options;
  CLI::App* run = app::add_run_command(cli, options);
  std::vector<std::string> argv{"gpusim", "run"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<const char*> pointers;
  for (const auto& a : argv) pointers.push_back(a.c_str());
  cli.parse(static_cast<int>(pointers.size()), pointers.data());
  EXPECT_TRUE(run->parsed());
  io::AbandonList abandon;
  return app::run_simulate(options, abandon, registry);
}

}  // namespace gpusim::testing
