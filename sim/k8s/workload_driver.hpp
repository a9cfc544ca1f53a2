#pragma once
// Creates each trace pod at its arrival time and, for pods the trace never saw scheduled, deletes
// them at their deadline if they are still waiting (their owner gave up). A Job's pods are created
// `parallelism` at a time: each success lets the next one in, until the Job fails.
#include "sim/k8s/api_server.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/workload_times.hpp"

namespace gpusim::k8s {

class WorkloadDriver final : public Component {
 public:
  WorkloadDriver(Bus& bus, const ApiServer& api, const traces::Workload& workload, const WorkloadTimes& times);
  // A Job pod's success lets the Job create its next pod; a failed Job creates none.
  void on_message(const Message& message, core::Time now) override;
  void on_timer(std::uint32_t tag, std::uint64_t source, core::Time now) override;

 private:
  Bus& bus_;
  const ApiServer& api_;
  const traces::Workload& workload_;
  std::vector<std::uint8_t> withdrawn_;  // deleted before it was created
  std::vector<std::int32_t> next_of_job_;  // per Job: pods created so far
  std::vector<std::uint32_t> first_of_job_;  // per Job: its first row (its pods are consecutive)
  std::vector<std::uint8_t> job_failed_;
};

}  // namespace gpusim::k8s
