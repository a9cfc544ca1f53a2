#include "sim/sched/framework.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <numeric>

#include "sim/cluster/device_class.hpp"
#include "sim/core/rng.hpp"
#include "sim/core/status.hpp"
#include "sim/sched/nodes_to_score.hpp"

namespace gpusim::sched {
namespace {

// Builds `name` once per framework (a plugin named at several extension points is one object,
// as in kube-scheduler) and checks that it implements extension point T.
template <typename T>
T* build(const std::string& name, const char* point, const Registry& registry, const PluginContext& context,
         const std::map<std::string, std::shared_ptr<const PluginArgs>>& profile_args,
         std::vector<std::unique_ptr<Plugin>>& owned) {
  Plugin* plugin = nullptr;
  const std::string canonical = registry.canonical(name).value_or(name);
  for (const auto& existing : owned) {
    if (existing->name() == canonical) plugin = existing.get();
  }
  if (plugin == nullptr) {
    // The plugin's args: the profile's pluginConfig, else its reader's defaults.
    PluginContext own = context;
    std::shared_ptr<const PluginArgs> defaults;
    const auto given = profile_args.find(canonical);
    if (given != profile_args.end()) {
      own.args = given->second.get();
    } else {
      defaults = registry.default_args(canonical);
      own.args = defaults.get();
    }
    owned.push_back(registry.create(name, own));
    plugin = owned.back().get();
  }
  T* typed = dynamic_cast<T*>(plugin);
  if (typed == nullptr) {
    throw core::InputError(fmt::format("plugin '{}' cannot be used as a {} plugin", name, point));
  }
  return typed;
}

template <typename T>
bool enabled(const Plugin* plugin, const std::vector<T*>& at_point) {
  return std::find(at_point.begin(), at_point.end(), dynamic_cast<const T*>(plugin)) != at_point.end();
}

}  // namespace

// A profile the framework cannot run correctly is refused when it is built, not when a pod
// first meets it.
void Framework::check_profile(const Profile& profile, const Registry& registry) const {
  const auto has_filter = [&](const char* name) {
    return std::any_of(profile.filter.begin(), profile.filter.end(),
                       [&](const std::string& f) { return registry.canonical(f) == name; });
  };
  // The cluster accepts only placements that fit; these two filters are what guarantees it.
  for (const char* required : {"node-resources-fit", "gpu-fit"}) {
    if (!has_filter(required)) {
      throw core::InputError(fmt::format("profile '{}': filter must include {} (without it the scheduler would "
                                         "choose nodes the pod does not fit on)", profile.name, required));
    }
  }
  // A plugin that keeps state through an extension point must be enabled there: GpuClustering
  // listed only as a score never saw its Reserve calls and silently degraded.
  for (const auto& plugin : owned_) {
    const char* missing = nullptr;
    if (dynamic_cast<const ReservePlugin*>(plugin.get()) != nullptr && !enabled(plugin.get(), reservers_)) missing = "reserve";
    if (dynamic_cast<const PreFilterPlugin*>(plugin.get()) != nullptr && !enabled(plugin.get(), pre_filters_)) missing = "preFilter";
    if (dynamic_cast<const PostFilterPlugin*>(plugin.get()) != nullptr && !enabled(plugin.get(), post_filters_)) missing = "postFilter";
    if (dynamic_cast<const PermitPlugin*>(plugin.get()) != nullptr && !enabled(plugin.get(), permits_)) missing = "permit";
    if (missing != nullptr) {
      throw core::InputError(fmt::format("profile '{}': plugin '{}' implements {} but the profile does not enable it there "
                                         "(add it to {}: its state would never be updated)",
                                         profile.name, plugin->name(), missing, missing));
    }
  }
}

Framework::Framework(const Profile& profile, const Registry& registry,
                     const PluginContext& context, ClusterState& cluster)
    : profile_(profile), cluster_(cluster), cycle_(cluster.node_count()), verdicts_(cluster.node_count()),
      rankings_(cluster.node_count()) {
  queue_sort_ = build<QueueSortPlugin>(profile.queue_sort, "queue-sort", registry, context, profile.plugin_args, owned_);
  for (const auto& name : profile.pre_filter) {
    pre_filters_.push_back(build<PreFilterPlugin>(name, "pre-filter", registry, context, profile.plugin_args, owned_));
  }
  for (const auto& name : profile.filter) {
    filters_.push_back(build<FilterPlugin>(name, "filter", registry, context, profile.plugin_args, owned_));
  }
  for (const auto& name : profile.post_filter) {
    post_filters_.push_back(build<PostFilterPlugin>(name, "post-filter", registry, context, profile.plugin_args, owned_));
  }
  for (const auto& [name, weight] : profile.score) {
    if (weight <= 0) throw core::InputError(fmt::format("score plugin '{}': weight must be > 0", name));
    scorers_.emplace_back(build<ScorePlugin>(name, "score", registry, context, profile.plugin_args, owned_), weight);
  }
  gpu_selector_ = build<GpuSelector>(profile.gpu_selection, "gpu-selection", registry, context, profile.plugin_args, owned_);
  extenders_.assign(context.extenders.begin(), context.extenders.end());
  if (!context.node_gpu_selection.empty()) {
    node_gpu_selectors_.assign(context.node_gpu_selection.size(), gpu_selector_);
    std::vector<std::pair<std::string, GpuSelector*>> built;  // one plugin per name, in first-use order
    for (std::size_t n = 0; n < context.node_gpu_selection.size(); ++n) {
      const std::string& name = context.node_gpu_selection[n];
      if (name.empty()) continue;
      auto it = std::find_if(built.begin(), built.end(), [&](const auto& b) { return b.first == name; });
      if (it == built.end()) {
        built.emplace_back(name, build<GpuSelector>(name, "gpu-selection", registry, context, profile.plugin_args, owned_));
        it = built.end() - 1;
      }
      node_gpu_selectors_[n] = it->second;
    }
  }
  for (const auto& name : profile.reserve) {
    reservers_.push_back(build<ReservePlugin>(name, "reserve", registry, context, profile.plugin_args, owned_));
  }
  for (const auto& name : profile.permit) {
    permits_.push_back(build<PermitPlugin>(name, "permit", registry, context, profile.plugin_args, owned_));
  }
  binder_ = build<BindPlugin>(profile.bind, "bind", registry, context, profile.plugin_args, owned_);
  check_profile(profile, registry);

  const std::size_t n = cluster.node_count();
  active_filters_.reserve(filters_.size());
  feasible_.reserve(n);
  candidates_.assign(cluster.node_words(), 0);
  plugin_scores_.reserve(n);
  total_scores_.assign(n, 0);
  tie_rank_.resize(n);
  std::iota(tie_rank_.begin(), tie_rank_.end(), 0U);
  rankable_ = !scorers_.empty() && extenders_.empty() && profile.percentage_of_nodes_to_score == 100 &&
              std::all_of(scorers_.begin(), scorers_.end(), [](const auto& s) { return s.first->node_local(); }) &&
              ((scorers_.size() == 1 && scorers_.front().second > 0) ||
               std::none_of(scorers_.begin(), scorers_.end(), [](const auto& s) { return s.first->normalize_keeps_the_best(); }));
  if (profile.tie_break == TieBreak::kSeededRank) {
    core::Rng rng = core::Rng::stream(context.seed, "tie-break-rank");
    rng.shuffle(std::span<std::uint32_t>(tie_rank_));
  }
}

Framework::~Framework() = default;

std::optional<cluster::Placement> Framework::schedule(const PodSpec& pod) {
  cycle_.reset();
  cycle_.chosen_node = -1;
  feasible_.clear();
  feasible_count_ = 0;
  for (PreFilterPlugin* plugin : pre_filters_) {
    if (!plugin->pre_filter(pod, cluster_, cycle_).is_ok()) {
      last_outcome_ = Outcome::kRejectedByPreFilter;
      return std::nullopt;
    }
  }

  // PostFilter may free room (preemption); then the filters run once more.
  active_filters_.clear();
  active_filters_node_local_ = true;
  for (const FilterPlugin* plugin : filters_) {
    if (!plugin->applies(pod, cluster_)) continue;
    active_filters_.push_back(plugin);
    active_filters_node_local_ = active_filters_node_local_ && plugin->node_local();
  }
  ShapeRankings::Ranking* ranking = rankable_ && active_filters_node_local_ ? rankings_.ranking(pod) : nullptr;
  const auto make_room = [&] {
    for (PostFilterPlugin* plugin : post_filters_) {
      if (plugin->post_filter(pod, cluster_, cycle_).is_ok()) return true;
    }
    return false;
  };
  NodeIndex chosen = 0;
  if (ranking != nullptr) {
    // Node-local scores read only the pod in PreScore, so it runs before the nodes are known.
    for (auto& [plugin, weight] : scorers_) plugin->pre_score(pod, {}, cluster_, cycle_);
    std::optional<NodeIndex> best = ranked_best(*ranking, pod);
    if (!best && make_room()) best = ranked_best(*ranking, pod);
    feasible_count_ = ranking->feasible;
    if (!best) {
      last_outcome_ = Outcome::kNoFeasibleNode;
      return std::nullopt;
    }
    chosen = *best;
  } else {
    for (int attempt = 0; attempt < 2 && feasible_.empty(); ++attempt) {
      filter_nodes(pod);
      if (!feasible_.empty() || attempt == 1 || !make_room()) break;
    }
    // The extender is called after the filters, with the nodes that passed them (as kube-scheduler).
    for (Extender* extender : extenders_) {
      if (feasible_.empty()) break;
      extender->filter(pod, feasible_, cluster_);
    }
    feasible_count_ = feasible_.size();
    if (feasible_.empty()) {
      last_outcome_ = Outcome::kNoFeasibleNode;
      return std::nullopt;
    }
    // As kube-scheduler: a single feasible node is taken without scoring.
    chosen = feasible_.size() == 1 ? feasible_.front() : select_host(pod);
  }
  cluster::Placement placement{chosen, {}};
  if (pod.wants_gpu()) {
    if (cluster::has_device_classes(cluster_.node(chosen))) {
      // Several device resources (MIG mixed): whatever the profile's GPU choice, the pod takes
      // devices of its own resource, as kube-scheduler counts each extended resource apart.
      placement.gpus = cluster::first_fit_of_class(pod, cluster_, chosen);
    } else if (Extender* binder = gpu_binder(chosen)) {
      placement.gpus = binder->select(pod, chosen, cluster_);
    } else {
      GpuSelector* selector = node_gpu_selectors_.empty() ? gpu_selector_ : node_gpu_selectors_[chosen];
      placement.gpus = selector->select(pod, chosen, cluster_, cycle_);
    }
  }
  std::size_t reserved = 0;
  bool ok = true;
  for (; reserved < reservers_.size() && ok; ++reserved) {
    ok = reservers_[reserved]->reserve(pod, placement).is_ok();
  }
  for (PermitPlugin* plugin : permits_) {
    if (!ok) break;
    ok = plugin->permit(pod, placement).is_ok();
  }
  if (ok) ok = binder_->bind(pod, placement).is_ok();
  if (!ok) {
    for (std::size_t i = reserved; i-- > 0;) reservers_[i]->unreserve(pod, placement);
    last_outcome_ = Outcome::kDenied;
    return std::nullopt;
  }
  cluster_.allocate(pod, placement);
  for (Extender* extender : extenders_) extender->placed(pod, placement);
  last_outcome_ = Outcome::kScheduled;
  return placement;
}

// Runs the filters on every present node, in node order. A GPU pod visits only the nodes whose
// free GPU share could hold it (the cluster's bucket index): the gpu-fit filter, which every
// profile has, would reject the others, and filters keep no state, so the feasible nodes and
// their order are the same as with a visit of all nodes.
//
// With percentageOfNodesToScore 100 (the built-in profiles) every node is examined, in node order:
// the same feasible set as kube-scheduler's, which also examines every node then (from a rotating
// start, in parallel; the order does not matter, as the host is chosen by score and tie-break).
void Framework::filter_nodes(const PodSpec& pod) {
  // A profile without score plugins looks for one feasible node whatever the percentage, as
  // kube-scheduler's numFeasibleNodesToFind does.
  if (profile_.percentage_of_nodes_to_score != 100 || scorers_.empty()) {
    filter_some_nodes(pod);
    return;
  }
  // Node-local filters give the verdict they gave this shape last time until the node changes
  // (sim/sched/filter_verdicts.hpp). A filter that does not apply passes every node, so which of
  // them apply does not change a verdict.
  const std::uint32_t slot = active_filters_node_local_ ? verdicts_.slot(pod) : FilterVerdicts::kNoSlot;
  const auto try_node = [&](NodeIndex n) {
    if (!cluster_.present(n)) return;
    if (slot != FilterVerdicts::kNoSlot) {
      const FilterVerdicts::Verdict known = verdicts_.find(slot, n, cluster_.version(n));
      if (known != FilterVerdicts::Verdict::kUnknown) {
        if (known == FilterVerdicts::Verdict::kPass) feasible_.push_back(n);
        return;
      }
    }
    bool pass = true;
    for (const FilterPlugin* plugin : active_filters_) {
      if (!plugin->filter(pod, n, cluster_, cycle_).is_ok()) {
        pass = false;
        break;
      }
    }
    if (slot != FilterVerdicts::kNoSlot) verdicts_.remember(slot, n, cluster_.version(n), pass);
    if (pass) feasible_.push_back(n);
  };
  if (!pod.wants_gpu()) {
    const auto node_count = static_cast<NodeIndex>(cluster_.node_count());
    for (NodeIndex n = 0; n < node_count; ++n) try_node(n);
    return;
  }
  // gpu-fit asks gpu_count x gpu_milli of the node's free share, or gpu_count whole devices
  // (device classes); the smaller is a bound for both.
  const std::int64_t need = std::int64_t{pod.gpu_count} * std::min(pod.gpu_milli, cluster::kMilliPerGpu);
  cluster_.nodes_with_gpu_free(need, candidates_);
  for (std::size_t w = 0; w < candidates_.size(); ++w) {
    for (std::uint64_t bits = candidates_[w]; bits != 0; bits &= bits - 1) {
      try_node(static_cast<NodeIndex>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))));
    }
  }
}

// kube-scheduler's findNodesThatPassFilters with fewer nodes to find than there are: it starts
// where the last filter stage stopped (nextStartNodeIndex) and stops once it has found
// feasible_nodes_to_find() nodes (one, when the profile has no score plugin); the next stage starts
// after the last node examined (feasible or not). Upstream examines nodes in parallel, so which
// nodes it finds varies from run to run; gpusim walks them one by one in node order from the start
// (wrapping around), so it finds the first ones in that order, deterministically. Nodes not
// present are skipped and not counted (kube-scheduler's snapshot lists present nodes only), but the
// start moves over node indices, absent nodes included.
void Framework::filter_some_nodes(const PodSpec& pod) {
  const std::size_t all = cluster_.node_count();
  if (all == 0) return;
  const auto wanted = static_cast<std::size_t>(
      scorers_.empty() ? 1
                       : feasible_nodes_to_find(profile_.percentage_of_nodes_to_score,
                                                static_cast<std::int64_t>(cluster_.present_count())));
  // A GPU pod examines the nodes the GPU bucket index lets through (as filter_nodes); the others
  // are rejected by gpu-fit, so they count as examined.
  const bool gpu = pod.wants_gpu();
  if (gpu) {
    const std::int64_t need = std::int64_t{pod.gpu_count} * std::min(pod.gpu_milli, cluster::kMilliPerGpu);
    cluster_.nodes_with_gpu_free(need, candidates_);
  }
  std::size_t walked = 0;
  for (; walked < all && feasible_.size() < wanted; ++walked) {
    const auto n = static_cast<NodeIndex>((next_start_ + walked) % all);
    if (!cluster_.present(n)) continue;
    if (gpu && ((candidates_[n / 64] >> (n % 64)) & 1U) == 0) continue;
    bool ok = true;
    for (const FilterPlugin* plugin : active_filters_) {
      if (!plugin->filter(pod, n, cluster_, cycle_).is_ok()) {
        ok = false;
        break;
      }
    }
    if (ok) feasible_.push_back(n);
  }
  next_start_ = (next_start_ + walked) % all;
}

Extender* Framework::gpu_binder(NodeIndex n) const {
  for (Extender* extender : extenders_) {
    if (extender->picks_gpus(n)) return extender;
  }
  return nullptr;
}

NodeIndex Framework::select_host(const PodSpec& pod) {
  for (const NodeIndex n : feasible_) total_scores_[n] = 0;
  for (auto& [plugin, weight] : scorers_) {
    plugin->pre_score(pod, feasible_, cluster_, cycle_);
    plugin_scores_.clear();
    for (const NodeIndex n : feasible_) {
      plugin_scores_.push_back(NodeScore{n, plugin->score(pod, n, cluster_, cycle_)});
    }
    plugin->normalize(plugin_scores_);
    for (const NodeScore& s : plugin_scores_) total_scores_[s.node] += weight * s.score;
  }
  // Highest total wins; among equals, the smallest tie-break rank.
  NodeIndex best = feasible_.front();
  for (const NodeIndex n : feasible_) {
    if (total_scores_[n] > total_scores_[best] ||
        (total_scores_[n] == total_scores_[best] && tie_rank_[n] < tie_rank_[best])) {
      best = n;
    }
  }
  return best;
}

// The walk over every node (filter_nodes, then select_host) would pick the feasible node with the
// highest total and, among equals, the smallest tie rank; a single feasible node it takes without
// scoring, which is the same node. The ranking's heap gives that node once entries of nodes that
// changed after they were pushed are dropped from its top.
std::optional<NodeIndex> Framework::ranked_best(ShapeRankings::Ranking& ranking, const PodSpec& pod) {
  const auto changes = ranking.built ? cluster_.changes_since(ranking.mark) : std::nullopt;
  if (changes) {
    for (const NodeIndex n : *changes) rank_node(ranking, pod, n);
  } else {
    ranking.heap.clear();
    ranking.feasible = 0;
    std::fill(ranking.stamps.begin(), ranking.stamps.end(), 0);
    const auto node_count = static_cast<NodeIndex>(cluster_.node_count());
    for (NodeIndex n = 0; n < node_count; ++n) rank_node(ranking, pod, n);
  }
  ranking.built = true;
  ranking.mark = cluster_.change_mark();
  while (!ranking.heap.empty()) {
    const ShapeRankings::Entry& top = ranking.heap.front();
    if (ranking.stamps[top.node] == (((top.version + 1) << 1) | 1U)) return top.node;
    std::pop_heap(ranking.heap.begin(), ranking.heap.end(), ShapeRankings::below);
    ranking.heap.pop_back();
  }
  return std::nullopt;
}

void Framework::rank_node(ShapeRankings::Ranking& ranking, const PodSpec& pod, NodeIndex n) {
  const std::uint64_t version = cluster_.version(n);
  std::uint64_t& stamp = ranking.stamps[n];
  if ((stamp >> 1) == version + 1) return;  // a node that changed twice: already seen as it is now
  const bool passed_before = (stamp & 1U) != 0;
  bool pass = cluster_.present(n);
  for (std::size_t f = 0; pass && f < active_filters_.size(); ++f) {
    pass = active_filters_[f]->filter(pod, n, cluster_, cycle_).is_ok();
  }
  stamp = ((version + 1) << 1) | (pass ? 1U : 0U);
  ranking.feasible = ranking.feasible + (pass ? 1 : 0) - (passed_before ? 1 : 0);
  if (!pass) return;
  std::int64_t total = 0;
  for (auto& [plugin, weight] : scorers_) total += weight * plugin->score(pod, n, cluster_, cycle_);
  ranking.heap.push_back({total, tie_rank_[n], n, version});
  std::push_heap(ranking.heap.begin(), ranking.heap.end(), ShapeRankings::below);
  if (ranking.heap.size() > 2 * ranking.stamps.size() + 64) {
    // Compact: keep each node's current entry only.
    std::erase_if(ranking.heap, [&](const ShapeRankings::Entry& e) {
      return ranking.stamps[e.node] != (((e.version + 1) << 1) | 1U);
    });
    std::make_heap(ranking.heap.begin(), ranking.heap.end(), ShapeRankings::below);
  }
}

void Framework::release(const PodSpec& pod, const cluster::Placement& placement) {
  // Reserve plugins that keep per-node bookkeeping (GpuClustering) forget the pod here too.
  for (std::size_t i = reservers_.size(); i-- > 0;) reservers_[i]->unreserve(pod, placement);
  cluster_.release(pod, placement);
  for (Extender* extender : extenders_) extender->released(pod, placement);
}

}  // namespace gpusim::sched
