#include "sim/k8s/shared_progress.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "sim/core/check.hpp"

namespace gpusim::k8s {
namespace {

// Whether list[i] appeared earlier in the list (a pod's GPUs are few: a scan beats a set).
bool seen_before(const std::vector<std::uint32_t>& list, std::size_t i) {
  return std::find(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(i), list[i]) !=
         list.begin() + static_cast<std::ptrdiff_t>(i);
}

}  // namespace

SharedProgress::SharedProgress(std::vector<SharedGpuModel> gpus, core::Time start, PairRate pair_rate)
    : pair_rate_(std::move(pair_rate)) {
  gpus_.resize(gpus.size());
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    gpus_[g].model = gpus[g];
    gpus_[g].since = start;
  }
}

void SharedProgress::set_present(std::uint32_t first, std::uint32_t count, bool present, core::Time now) {
  for (std::uint32_t g = first; g < first + count; ++g) {
    if (!present && gpus_[g].present) removals_.push_back({gpus_[g].since, now, gpus_[g].model.gpu_weight});
    integrate(gpus_[g], now);
    gpus_[g].present = present;
  }
}

void SharedProgress::advance(PodState& pod, core::Time now) {
  if (!pod.active || pod.fixed_end) return;
  pod.remaining_us -= pod.rate * static_cast<double>((now - pod.updated).micros());
  pod.updated = now;
}

void SharedProgress::integrate(Gpu& gpu, core::Time now) {
  if (now <= gpu.since) return;  // nothing new (or before the first arrival)
  const auto dt = static_cast<double>((now - gpu.since).micros()) / 1e6;
  gpu.since = now;
  if (!gpu.present) return;
  gpu.busy_seconds += gpu.busy * dt;
  totals_.busy_gpu_s += gpu.busy * dt;
  totals_.switch_gpu_s += gpu.switching * dt * gpu.model.gpu_weight;
  if (gpu.measured_pair) totals_.measured_pair_gpu_s += dt;
  totals_.gpu_s_by_pods[static_cast<std::size_t>(std::min(gpu.pods, kCorunnerBuckets - 1))] += dt * gpu.model.gpu_weight;
}

void SharedProgress::recompute(Gpu& gpu) {
  const std::size_t n = gpu.processes.size();
  gpu.pods = 0;
  for (std::size_t i = 0; i < n; ++i) gpu.pods += i == 0 || gpu.processes[i].pod != gpu.processes[i - 1].pod;
  gpu.busy = 0;
  gpu.switching = 0;
  gpu.measured_pair = false;
  if (n == 0) return;
  // A measured pair ran under CUDA's time-slicing; a vGPU scheduler's fixed slices do not share so.
  if (n == 2 && gpu.pods == 2 && pair_rate_ && gpu.model.time_share == TimeShare::kCuda && recompute_measured_pair(gpu)) return;
  double demand = 0;
  for (const Process& p : gpu.processes) demand += std::min(p.demand, p.core_cap);
  const SharedGpuModel& m = gpu.model;
  if (m.mps) {
    const double shared = m.stream_capacity / std::max(1.0, demand);
    for (Process& p : gpu.processes) p.rate = std::min({1.0, m.thread_fraction / p.demand, shared});
    return;
  }
  // Time-slicing: capacity after context switches, shared max-min fair over the demands.
  const double nd = static_cast<double>(n);
  const double slicing = n > 1 ? 1.0 / (1.0 + m.time_slice_overhead * (nd - 1.0) / nd) : 1.0;
  gpu.switching = 1.0 - slicing;
  const double capacity = m.compute * slicing;
  if (m.time_share != TimeShare::kCuda) {
    // The vGPU scheduler's strict round robin: each vGPU gets its slice whether it uses it or not,
    // so a process runs at its share over its demand, at most 1; what it leaves idles the GPU.
    const double on = static_cast<double>(std::max<std::size_t>(n, static_cast<std::size_t>(gpu.powered_on)));
    const double share = m.time_share == TimeShare::kEqualShare ? capacity / on : capacity * m.fixed_share;
    for (Process& p : gpu.processes) p.rate = std::min(1.0, share / p.demand);
    return;
  }
  scratch_.clear();
  for (const Process& p : gpu.processes) scratch_.push_back(std::min(p.demand, p.core_cap));
  std::sort(scratch_.begin(), scratch_.end());
  double level = std::numeric_limits<double>::infinity();  // every demand met
  double left = capacity;
  for (std::size_t i = 0; i < n; ++i) {
    const double fair = left / static_cast<double>(n - i);
    if (scratch_[i] > fair) {
      level = fair;
      break;
    }
    left -= scratch_[i];
  }
  for (Process& p : gpu.processes) p.rate = std::min(1.0, std::min(level, p.core_cap) / p.demand);
}

bool SharedProgress::recompute_measured_pair(Gpu& gpu) {
  Process& a = gpu.processes[0];
  Process& b = gpu.processes[1];
  if (a.pair_class < 0 || b.pair_class < 0) return false;
  const double rate_a = pair_rate_(a.pair_class, b.pair_class);
  const double rate_b = pair_rate_(b.pair_class, a.pair_class);
  if (!(rate_a > 0) || !(rate_b > 0)) return false;
  // The figures are the jobs' speeds on the whole GPU: caps still hold (HAMi's gpucores, MPS's
  // active-thread share), or a pod would run faster beside a partner than alone.
  const auto cap = [&](const Process& p) {
    const double core = p.core_cap / p.demand;
    return gpu.model.mps ? std::min(core, gpu.model.thread_fraction / p.demand) : core;
  };
  a.rate = std::min(rate_a, cap(a));
  b.rate = std::min(rate_b, cap(b));
  gpu.measured_pair = true;
  return true;
}

void SharedProgress::recompute_busy(Gpu& gpu) {
  gpu.busy = 0;
  for (const Process& p : gpu.processes) {
    const PodState& pod = pods_[p.pod];
    gpu.busy += p.demand * (pod.fixed_end ? p.rate : std::min(p.rate, pod.rate));
  }
  // A measured pair may together do more than one job alone; the GPU cannot be more than fully busy.
  if (gpu.measured_pair) gpu.busy = std::min(1.0, gpu.busy);
}

double SharedProgress::pod_rate(const PodState& pod, std::uint32_t id) const {
  double rate = std::numeric_limits<double>::infinity();
  for (const std::uint32_t g : pod.gpus) {
    for (const Process& p : gpus_[g].processes) {
      if (p.pod == id) rate = std::min(rate, p.rate);
    }
  }
  return rate;
}

template <typename Change>
void SharedProgress::update(const std::vector<std::uint32_t>& touched, core::Time now, Change change) {
  for (std::size_t i = 0; i < touched.size(); ++i) {
    if (seen_before(touched, i)) continue;
    Gpu& gpu = gpus_[touched[i]];
    integrate(gpu, now);
    for (const Process& p : gpu.processes) advance(pods_[p.pod], now);
  }
  change();
  touched_pods_.clear();
  for (std::size_t i = 0; i < touched.size(); ++i) {
    if (seen_before(touched, i)) continue;
    Gpu& gpu = gpus_[touched[i]];
    recompute(gpu);
    for (const Process& p : gpu.processes) {
      touched_pods_.push_back(p.pod);
      if (gpu.pods > 1) pods_[p.pod].had_corunner = true;
      if (gpu.measured_pair) pods_[p.pod].had_measured_pair = true;
    }
  }
  std::sort(touched_pods_.begin(), touched_pods_.end());
  touched_pods_.erase(std::unique(touched_pods_.begin(), touched_pods_.end()), touched_pods_.end());
  for (const std::uint32_t id : touched_pods_) {
    PodState& pod = pods_[id];
    if (pod.fixed_end) continue;
    const double rate = pod_rate(pod, id);
    if (rate == pod.rate) continue;  // a pod just added has rate 0 until here
    pod.rate = rate;
    const double left = std::max(0.0, pod.remaining_us) / rate;
    // Finish times are whole microseconds, rounded up so that the work is done by then; one past
    // any simulated time is capped (kFinishOutOfRange) for the caller to refuse, never wrapped.
    const double at = static_cast<double>(now.micros()) + std::ceil(left);
    moved_.push_back({id, at < kFinishOutOfRange ? core::Time::from_micros(static_cast<std::int64_t>(at))
                                                 : core::Time::from_micros(static_cast<std::int64_t>(kFinishOutOfRange))});
  }
  // Busy shares follow the pods' rates: on the touched GPUs and on the other GPUs of their pods
  // (one hop), each integrated up to now first.
  busy_gpus_.clear();
  for (const std::uint32_t id : touched_pods_) busy_gpus_.insert(busy_gpus_.end(), pods_[id].gpus.begin(), pods_[id].gpus.end());
  busy_gpus_.insert(busy_gpus_.end(), touched.begin(), touched.end());
  std::sort(busy_gpus_.begin(), busy_gpus_.end());
  busy_gpus_.erase(std::unique(busy_gpus_.begin(), busy_gpus_.end()), busy_gpus_.end());
  for (const std::uint32_t g : busy_gpus_) {
    integrate(gpus_[g], now);
    recompute_busy(gpus_[g]);
  }
}

void SharedProgress::add(std::uint32_t pod, const std::vector<std::uint32_t>& gpus, double demand, double work_us,
                         bool fixed_end, core::Time now, double core_cap, std::int32_t pair_class) {
  GPUSIM_CHECK(demand > 0 && demand <= 1, "a shared pod's GPU demand is in (0, 1]");
  if (pods_.size() <= pod) pods_.resize(pod + 1);
  moved_.clear();
  PodState& state = pods_[pod];
  GPUSIM_CHECK(!state.active, "a pod added twice to the shared-GPU model");
  update(gpus, now, [&] {
    state = PodState{};
    state.active = true;
    state.fixed_end = fixed_end;
    state.remaining_us = work_us;
    state.work_us = work_us;
    state.rate = 0;  // not yet known: the first recompute sets it
    state.updated = now;
    state.started = now;
    state.gpus = gpus;
    for (const std::uint32_t g : gpus) gpus_[g].processes.push_back({pod, demand, core_cap, pair_class});
  });
}

void SharedProgress::remove(std::uint32_t pod, core::Time now) {
  moved_.clear();
  if (!holds(pod)) return;
  std::vector<std::uint32_t>& gpus = removed_gpus_;
  gpus.assign(pods_[pod].gpus.begin(), pods_[pod].gpus.end());
  update(gpus, now, [&] {
    for (const std::uint32_t g : gpus) {
      auto& list = gpus_[g].processes;
      list.erase(std::remove_if(list.begin(), list.end(), [&](const Process& p) { return p.pod == pod; }), list.end());
    }
    pods_[pod].active = false;
  });
}

void SharedProgress::power(std::uint32_t gpu, int delta, core::Time now) {
  moved_.clear();
  touched_gpu_.assign(1, gpu);
  GPUSIM_CHECK(gpus_[gpu].powered_on + delta >= 0, "a vGPU powered off that was not on");
  update(touched_gpu_, now, [&] { gpus_[gpu].powered_on += delta; });
}

void SharedProgress::pods_on(std::uint32_t gpu, std::vector<std::uint32_t>& out) const {
  out.clear();
  for (const Process& p : gpus_[gpu].processes) out.push_back(p.pod);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

double SharedProgress::busy_seconds(std::uint32_t gpu, core::Time now) const {
  const Gpu& g = gpus_[gpu];
  if (!g.present || now <= g.since) return g.busy_seconds;
  return g.busy_seconds + g.busy * static_cast<double>((now - g.since).micros()) / 1e6;
}

double SharedProgress::work_done_us(std::uint32_t pod, core::Time now) const {
  if (pod >= pods_.size()) return 0;
  const PodState& state = pods_[pod];
  // A pod with a fixed end keeps no work account (it runs until its deletion): its time so far.
  if (state.fixed_end) return state.active && now > state.started ? static_cast<double>((now - state.started).micros()) : 0;
  if (!(state.work_us > 0)) return 0;
  double remaining = state.remaining_us;
  if (state.active && now > state.updated) remaining -= state.rate * static_cast<double>((now - state.updated).micros());
  return std::clamp(state.work_us - remaining, 0.0, state.work_us);
}

double SharedProgress::slowdown(std::uint32_t pod, core::Time now) const {
  const PodState& state = pods_[pod];
  if (!(state.work_us > 0)) return 1;
  return static_cast<double>((now - state.started).micros()) / state.work_us;
}

SharedProgress::Totals SharedProgress::totals(core::Time now) {
  for (Gpu& gpu : gpus_) integrate(gpu, now);
  // A GPU removed after `now` was integrated past it: that time had no pods (the run had ended).
  for (const Removal& r : removals_) {
    const core::Time from = std::max(r.since, now);
    if (r.removed > from) totals_.gpu_s_by_pods[0] -= r.weight * static_cast<double>((r.removed - from).micros()) / 1e6;
  }
  removals_.clear();
  return totals_;
}

}  // namespace gpusim::k8s
