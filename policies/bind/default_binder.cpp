// Binds at once: the framework commits the placement in the same cycle. Device-plugin models
// in later issues replace this with an Allocate call that can fail or lag.
#include <memory>

#include "policies/builtin_parts.hpp"

namespace gpusim::policy {
namespace {

class DefaultBinder final : public sched::BindPlugin {
 public:
  std::string_view name() const override { return "default-binder"; }
  sched::Status bind(const sched::PodSpec&, const cluster::Placement&) override { return sched::Status::ok(); }
};

}  // namespace

void register_binders(sched::Registry& registry) {
  registry.add("default-binder", [](const sched::PluginContext&) { return std::make_unique<DefaultBinder>(); });
}

}  // namespace gpusim::policy
