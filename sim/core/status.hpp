#pragma once
// Errors caused by input (files, flags, configs). Engine bugs use GPUSIM_CHECK instead.
#include <stdexcept>
#include <string>

namespace gpusim::core {

// Thrown by readers and loaders at the program's boundary; the message already names the
// file, line and field ("file:line: field: reason").
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gpusim::core
