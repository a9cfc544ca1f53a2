#include "sim/sched/registry.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "sim/core/status.hpp"

namespace gpusim::sched {

void Registry::add(const std::string& name, Factory factory) {
  if (!factories_.emplace(name, std::move(factory)).second) {
    throw std::logic_error("plugin registered twice: " + name);
  }
}

std::unique_ptr<Plugin> Registry::create(const std::string& name,
                                         const PluginContext& context) const {
  const auto it = factories_.find(name);
  if (it == factories_.end()) {
    throw core::InputError(
        fmt::format("unknown plugin '{}' (known: {})", name, fmt::join(names(), ", ")));
  }
  return it->second(context);
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, factory] : factories_) out.push_back(name);
  return out;
}

}  // namespace gpusim::sched
