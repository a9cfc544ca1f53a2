// Fuzz target: KAI's Queue reader (sim/k8s/kai_queues.hpp), its cross-file checks, the trace queues'
// leaf queues, and KAI's fair-share division over what it accepts. Accepted Queues hold what KAI
// gives meaning to (quotas and limits -1 or at least 0, weights at least 0); routes name leaf queues;
// the division gives every queue a finite share of at least 0 (KAI gives each its quota first,
// even past the amount divided, so no upper bound holds).
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sim/core/status.hpp"
#include "sim/k8s/kai_fair_share.hpp"
#include "sim/k8s/kai_queues.hpp"
#include "traces/k8s/yaml_documents.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace gpusim::k8s::kai;

// A broken invariant is a crash; the message says which.
void require(bool holds, const char* what) {
  if (holds) return;
  std::fprintf(stderr, "fuzz_kai_queues: %s\n", what);
  std::abort();
}

bool amount_ok(double v) { return v == kUnlimited || v >= 0; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  const std::string text = fuzz::as_text(data, size);
  try {
    for (const YAML::Node& doc : traces::load_yaml_documents(text, "fuzz.yaml")) (void)is_kai_file(doc);
  } catch (const core::InputError&) {
  }
  try {
    Queues queues;
    parse_kai_queues(text, "fuzz.yaml", queues);
    for (const Queue& q : queues.queues) {
      for (const QueueResource* r : {&q.gpu, &q.cpu, &q.memory}) {
        require(amount_ok(r->quota) && amount_ok(r->limit), "a quota or limit other than -1 below 0");
        require(r->over_quota_weight >= 0, "a negative over-quota weight");
      }
    }
    check_kai_queues(queues);
    std::vector<std::string> trace_queues{"default", "a", "vc1"};
    for (const Queue& q : queues.queues) trace_queues.push_back(q.name);
    try {
      const std::vector<std::uint32_t> leaves = leaves_of_trace_queues(queues, trace_queues);
      require(leaves.size() == trace_queues.size(), "a trace queue without a leaf");
      for (const std::uint32_t l : leaves) {
        for (const Queue& q : queues.queues) require(q.parent != queues.queues[l].name, "a route to a queue with children");
      }
    } catch (const core::InputError&) {
    }
    // The division of 100 GPUs, parents before children, each queue asking 10 more than its quota.
    std::vector<QueueShareInput> inputs;
    std::vector<std::size_t> order;
    const auto add = [&](auto&& self, const std::string& parent, std::int32_t parent_index) -> void {
      for (std::size_t i = 0; i < queues.queues.size(); ++i) {
        const Queue& q = queues.queues[i];
        if (q.parent != parent) continue;
        QueueShareInput in{q.name, parent_index, q.gpu.quota, q.gpu.limit, q.gpu.over_quota_weight, q.priority,
                           (q.gpu.quota == kUnlimited ? 0 : q.gpu.quota) + 10, 0};
        inputs.push_back(in);
        self(self, q.name, static_cast<std::int32_t>(inputs.size() - 1));
      }
    };
    add(add, "", -1);
    const std::vector<double> shares = fair_shares(100, 0, inputs);
    require(shares.size() == inputs.size(), "a share per queue");
    for (const double share : shares) require(share >= 0 && std::isfinite(share), "a fair share negative or not finite");
  } catch (const core::InputError&) {
  }
  return 0;
}
