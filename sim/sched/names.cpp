#include "sim/sched/names.hpp"

namespace gpusim::sched {

std::string name_key(std::string_view name) {
  std::string key;
  key.reserve(name.size());
  for (const char c : name) {
    if (c == '-' || c == '_' || c == '.' || c == ' ') continue;
    key += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return key;
}

}  // namespace gpusim::sched
