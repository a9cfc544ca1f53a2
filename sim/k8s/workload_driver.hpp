#pragma once
// Creates each trace pod at its arrival time and, for pods the trace never saw scheduled, deletes
// them at their deadline if they are still waiting (their owner gave up).
#include "sim/k8s/api_server.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/workload_times.hpp"

namespace gpusim::k8s {

class WorkloadDriver final : public Component {
 public:
  WorkloadDriver(Bus& bus, const ApiServer& api, const traces::Workload& workload, const WorkloadTimes& times);
  void on_message(const Message&, core::Time) override {}
  void on_timer(std::uint32_t tag, std::uint64_t source, core::Time now) override;

 private:
  Bus& bus_;
  const ApiServer& api_;
  std::vector<std::uint8_t> withdrawn_;  // deleted before it was created
};

}  // namespace gpusim::k8s
