// The built-in policies' files (policies/profiles/<name>.yaml, read as KubeSchedulerConfigurations)
// give exactly the profiles the C++ table gave before they became files: the table is kept here,
// frozen, as the oracle, so that moving a policy into its file changed nothing it does.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "sim/config/profiles.hpp"
#include "sim/core/status.hpp"
#include "sim/sched/plugin_args.hpp"

namespace gpusim::sched {
namespace {

constexpr std::int64_t kArtifactWeight = 1000;

Profile gpu_milli_profile(std::string name, std::string scorer, std::string gpu_selection) {
  Profile profile;
  profile.name = std::move(name);
  // kube-scheduler's NodeAffinity and TaintToleration pass at once for trace pods (no
  // constraints) on untainted nodes, so the FGD experiment is unchanged.
  profile.filter = {"node-resources-fit", "gpu-fit", "node-affinity", "taint-toleration"};
  profile.score = {{std::move(scorer), kArtifactWeight}};
  profile.gpu_selection = std::move(gpu_selection);
  return profile;
}


// The table as sim/sched/profile.cpp had it (commit 7083897).
Profile legacy_profile(const std::string& name) {
  if (name == "kube-default") {
    Profile profile = gpu_milli_profile(name, "least-allocated", "first-fit");
    // The one deliberate change: kube-default's file names kube-scheduler's NodeResourcesFit at
    // score, which is now upstream's scorer (non-zero requests); gpusim's least-allocated kept
    // the older arithmetic. No committed result moves (results/dlrm is identical); an openb fill
    // does, by its one pod that asks no memory (policies/README.md, "kube-scheduler's plugins").
    profile.score = {{"node-resources-fit", 1}, {"balanced-allocation", 1}};
    return profile;
  }
  if (name == "binpack") {
    Profile profile = gpu_milli_profile(name, "most-allocated", "first-fit");
    profile.score = {{"most-allocated", 1}};
    return profile;
  }
  // The FGD paper's six policies with the artifact's GPU-selection methods.
  if (name == "random") return gpu_milli_profile(name, "random", "random");
  if (name == "dotprod") return gpu_milli_profile(name, "dot-product", "best");
  if (name == "gpu-clustering") {
    // Its per-node class counts are kept by its Reserve hook (and forgotten on release).
    Profile profile = gpu_milli_profile(name, "gpu-clustering", "best");
    profile.reserve = {"gpu-clustering"};
    return profile;
  }
  if (name == "gpu-packing") return gpu_milli_profile(name, "gpu-packing", "best");
  if (name == "bestfit") return gpu_milli_profile(name, "best-fit", "best");
  if (name == "fgd") return gpu_milli_profile(name, "fgd", "fgd");
  if (name == "topology-aware") {
    // Bin packing with HAMi-style topology-aware GPU choice (policies/score/topology_aware.cpp);
    // for scheduler-assigned nodes with a known topology.
    Profile profile = gpu_milli_profile(name, "topology-aware", "topology-aware");
    profile.score = {{"topology-aware", 2}, {"most-allocated", 1}};
    return profile;
  }
  // Deep-learning queue policies (policies/README.md): a job goes to the node it leaves with the
  // fewest free GPUs (best fit: consolidated, whole machines kept for large jobs), ties by node
  // index, so that only the queue order differs.
  if (name == "fifo" || name == "sjf" || name == "backfill" || name == "srtf" || name == "tiresias" || name == "preemption" ||
      name == "drf" || name == "gavel-maxmin" || name == "gavel-ftf" || name == "maxmin" || name == "ftf" || name == "themis" || name == "gang" ||
      name == "proportion" || name == "capacity") {
    Profile profile = gpu_milli_profile(name, "best-fit", "first-fit");
    profile.score = {{"best-fit", 1}};
    profile.tie_break = TieBreak::kNodeIndex;
    if (name == "fifo") {
      // Strict first come, first served: a job waits until every job submitted before it started.
      profile.queue_sort = "fifo";
      profile.queue_mode = QueueMode::kStrict;
    } else if (name == "backfill") {
      // FIFO with EASY backfilling: later jobs may start if they do not delay the first waiting one.
      profile.queue_sort = "fifo";
      profile.queue_mode = QueueMode::kBackfill;
    } else if (name == "sjf") {
      // Shortest job first by the trace's run time (an oracle), non-preemptive; a job that does not
      // fit lets shorter-queued ones behind it start.
      profile.queue_sort = "shortest-job";
    } else if (name == "srtf") {
      // Shortest remaining time first (oracle), preemptive: a waiting job preempts jobs with more
      // time left, which restart from their last checkpoint.
      profile.preemption = Preemption::kSrtf;
    } else if (name == "drf") {
      // Dominant resource fairness across queues (Ghodsi et al., NSDI'11), FIFO within a queue,
      // non-preemptive.
      profile.queue_sort = "fifo";
      profile.drf = true;
    } else if (name == "proportion" || name == "capacity") {
      // Volcano's proportion and capacity plugins (sim/k8s/queue_quotas.hpp): the queue with the
      // least held over deserved GPUs goes first, FIFO within a queue; a queue within its deserved
      // GPUs reclaims what others borrowed beyond theirs.
      profile.queue_sort = "fifo";
      profile.queue_quotas = name == "proportion" ? QueueQuotaMode::kProportion : QueueQuotaMode::kCapacity;
    } else if (name == "tiresias") {
      // Discretised 2D-LAS (Tiresias, NSDI'19): queues by attained GPU-time, FIFO within a queue;
      // a job in a higher queue preempts jobs in lower ones.
      profile.preemption = Preemption::kTiresias;
    } else if (name == "gang") {
      // Coscheduling (scheduler-plugins): arrival order, a job that does not fit waits aside, and a
      // gang's workers wait at Permit for the rest (policies/gang/coscheduling.cpp).
      profile.queue_sort = "fifo";
      profile.gang_permit = true;
    } else if (name == "themis") {
      // Themis (NSDI'20), approximated: rounds are leases, offered to the jobs furthest from
      // finish-time fairness first (policies/time_sharing/time_share_rounds.cpp, policies/README.md).
      profile.queue_sort = "fifo";
      profile.time_share = TimeSharePolicy::kThemis;
      profile.heterogeneity_aware = true;
    } else if (name == "gavel-maxmin" || name == "gavel-ftf" || name == "maxmin" || name == "ftf") {
      // Gavel (OSDI'20): an LP gives each job its share of time on each GPU type; rounds give the
      // GPUs to the jobs furthest below their shares (policies/time_sharing/rounds_plugin.cpp).
      profile.queue_sort = "fifo";
      profile.time_share = name.ends_with("maxmin") ? TimeSharePolicy::kMaxMin : TimeSharePolicy::kFinishTimeFair;
      profile.heterogeneity_aware = name.starts_with("gavel-");
    } else {
      // kube-scheduler's priority queue and DefaultPreemption (pods of lower priority make room,
      // the victims and the node chosen as selectVictimsOnNode and pickOneNodeForPreemption do).
      profile.preemption = Preemption::kPriority;
    }
    return profile;
  }
  ADD_FAILURE() << "no legacy profile " << name;
  return {};
}


// Every field of a profile that changes what it does.
std::string fingerprint(const Profile& p) {
  std::string out = fmt::format("{}|{}|{}|{}|{}|", p.name, p.queue_sort, fmt::join(p.pre_filter, ","), fmt::join(p.filter, ","),
                                fmt::join(p.post_filter, ","));
  for (const auto& s : p.score) out += fmt::format("{}={},", s.name, s.weight);
  out += fmt::format("|{}|{}|{}|{}|{}|{}|{}|", p.gpu_selection, fmt::join(p.reserve, ","), fmt::join(p.permit, ","), p.bind,
                     static_cast<int>(p.tie_break), static_cast<int>(p.queue_mode), static_cast<int>(p.preemption));
  out += fmt::format("{}|{}|{}|{}|{}|{}|{}|", fmt::join(p.tiresias.thresholds_gpu_s, ","), p.tiresias.starvation_knob,
                     static_cast<int>(p.tiresias.queue_order), p.drf, static_cast<int>(p.time_share), p.heterogeneity_aware,
                     p.themis_fairness);
  out += fmt::format("{}|{}|{}|{}|{}|{}|", p.round_length.micros(), p.gang_permit, p.gang_timeout.micros(),
                     p.gang_denied_backoff.micros(), static_cast<int>(p.queue_quotas), p.percentage_of_nodes_to_score);
  for (const auto& [name, args] : p.plugin_args) {
    out += name + "{";
    for (const auto& line : args->describe()) out += fmt::format("{}={},", line.name, line.value);
    out += "}";
  }
  return out;
}

TEST(BuiltinProfileFiles, EachFileGivesTheProfileTheTableGave) {
  ASSERT_EQ(policy::builtin_profile_files().size(), builtin_profile_names().size());
  for (const auto& name : builtin_profile_names()) {
    const Profile from_file = config::builtin_profile(name);
    // Policies added after the table was frozen have no entry in it.
    if (name == "kueue" || name == "kai") {
      EXPECT_EQ(from_file.queue_admission_plugin, name);
      EXPECT_EQ(from_file.queue_sort, "fifo");
      continue;
    }
    EXPECT_EQ(fingerprint(from_file), fingerprint(legacy_profile(name))) << config::builtin_profile_file(name)->path;
  }
}

TEST(BuiltinProfileFiles, AnySpellingAndThePapersNames) {
  EXPECT_EQ(config::builtin_profile("FGD").name, "fgd");
  EXPECT_EQ(config::builtin_profile("BestFit").name, "bestfit");
  EXPECT_EQ(config::builtin_profile_file("gpu_packing")->path, "policies/profiles/gpu-packing.yaml");
  EXPECT_THROW(config::builtin_profile("fgdd"), core::InputError);
}

}  // namespace
}  // namespace gpusim::sched
