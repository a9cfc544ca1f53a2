#pragma once
// How a command's exception ends the process: its message on stderr and its exit code
// (sim/app/exit_codes.hpp). Shared by gpusim's main and gpusim-sweep-mpi's, so that no exception
// reaches std::terminate and every error reads the same.
#include <exception>

namespace gpusim::app {

// The exit code `error` ends the process with, printing nothing.
int exit_code_of(const std::exception_ptr& error);

// Prints `error`'s message on stderr and returns its exit code.
int report_error(const std::exception_ptr& error);

}  // namespace gpusim::app
