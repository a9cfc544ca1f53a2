#include "sim/sched/registry.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "sim/core/status.hpp"
#include "sim/sched/names.hpp"

namespace gpusim::sched {

void Registry::add(const std::string& name, Factory factory) {
  if (!by_key_.emplace(name_key(name), name).second || !factories_.emplace(name, std::move(factory)).second) {
    throw std::logic_error("plugin registered twice: " + name);
  }
}

void Registry::add(const std::string& name, Factory factory, ArgsReader reader) {
  add(name, std::move(factory));
  args_readers_.emplace(name, std::move(reader));
}

void Registry::add_queueing(const std::string& name, Factory factory, ArgsReader reader) {
  if (reader) {
    add(name, std::move(factory), std::move(reader));
  } else {
    add(name, std::move(factory));
  }
  kinds_.emplace(name, PluginKind::kQueueing);
}

PluginKind Registry::kind(const std::string& canonical) const {
  const auto it = kinds_.find(canonical);
  return it == kinds_.end() ? PluginKind::kFramework : it->second;
}

const ArgsReader* Registry::args_reader(const std::string& name) const {
  const auto it = args_readers_.find(name);
  return it == args_readers_.end() ? nullptr : &it->second;
}

std::shared_ptr<const PluginArgs> Registry::default_args(const std::string& name) const {
  const ArgsReader* reader = args_reader(name);
  if (reader == nullptr) return nullptr;
  return (*reader)(YAML::Node(YAML::NodeType::Undefined), io::YamlFields("(defaults)"), name);
}

void Registry::add_alias(const std::string& alias, const std::string& name) {
  if (!factories_.contains(name) || !by_key_.emplace(name_key(alias), name).second) {
    throw std::logic_error("bad plugin alias: " + alias);
  }
}

std::optional<std::string> Registry::canonical(const std::string& name) const {
  const auto it = by_key_.find(name_key(name));
  if (it == by_key_.end()) return std::nullopt;
  return it->second;
}

std::unique_ptr<Plugin> Registry::create(const std::string& name,
                                         const PluginContext& context) const {
  const auto canonical_name = canonical(name);
  if (!canonical_name) {
    throw core::InputError(
        fmt::format("unknown plugin '{}' (known: {})", name, fmt::join(names(), ", ")));
  }
  return factories_.at(*canonical_name)(context);
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, factory] : factories_) out.push_back(name);
  return out;
}

}  // namespace gpusim::sched
