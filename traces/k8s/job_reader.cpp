#include "traces/k8s/job_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <memory>
#include <utility>

#include "traces/k8s/object_meta.hpp"
#include "traces/k8s/pod_reader.hpp"

namespace gpusim::traces::k8s {

namespace {

// A Job's completions become pods: bounded so that a typo cannot exhaust memory.
constexpr std::int64_t kMaxPods = 1'000'000;
// activeDeadlineSeconds: at most 100 years, well inside simulated time.
constexpr std::int64_t kMaxDeadlineSeconds = std::int64_t{100} * 365 * 24 * 3600;

PodFailureRule read_failure_rule(const Fields& r, WorkloadTally& tally) {
  PodFailureRule rule;
  const std::string action = r.required_string("action");
  if (action == "FailJob") rule.action = FailureAction::kFailJob;
  else if (action == "Ignore") rule.action = FailureAction::kIgnore;
  else if (action == "Count") rule.action = FailureAction::kCount;
  else if (action == "FailIndex") r.fail("action", "FailIndex needs completionMode Indexed, which gpusim does not model");
  else r.fail("action", fmt::format("'{}' is not FailJob, Ignore or Count", action));
  const bool on_codes = r.has("onExitCodes");
  if (on_codes == r.has("onPodConditions")) r.fail("action", "a rule needs exactly one of onExitCodes and onPodConditions");
  if (on_codes) {
    const Fields codes = r.required_map("onExitCodes");
    rule.container = codes.string("containerName").value_or("");
    const std::string op = codes.required_string("operator");
    if (op != "In" && op != "NotIn") codes.fail("operator", fmt::format("'{}' is not In or NotIn", op));
    rule.exit_codes_in = op == "In";
    for (const auto& [node, path] : codes.list("values")) {
      if (!node.IsScalar()) r.where().fail(node, path, "expected an integer");
      std::int32_t code = 0;
      const std::string& text = node.Scalar();
      const auto [stop, error] = std::from_chars(text.data(), text.data() + text.size(), code);
      if (error != std::errc{} || stop != text.data() + text.size()) r.where().fail(node, path, fmt::format("'{}' is not an integer", text));
      if (code == 0 && rule.exit_codes_in) r.where().fail(node, path, "0 cannot be used with operator In");
      rule.exit_codes.push_back(code);
    }
    if (rule.exit_codes.empty()) codes.fail("values", "missing or empty");
    return rule;
  }
  for (const auto& [node, path] : r.list("onPodConditions")) {
    const Fields condition(r.where(), node, path);
    const std::string type = condition.required_string("type");
    const std::string status = condition.string("status").value_or("True");
    if (status != "True" && status != "False" && status != "Unknown") {
      condition.fail("status", fmt::format("'{}' is not True, False or Unknown", status));
    }
    if (type == "DisruptionTarget" && status == "True") rule.on_disruption = true;
    else ++tally.other_conditions;  // a condition no simulated pod ever has: never matches
  }
  return rule;
}

// backoffLimit, activeDeadlineSeconds and podFailurePolicy; other spec fields that change how a
// Job runs are named in a note.
void read_job_failure_handling(const Fields& spec, JobSpec& job, WorkloadTally& tally) {
  if (const auto limit = spec.integer("backoffLimit", 0, kInt32Max)) job.backoff_limit = static_cast<std::int32_t>(*limit);
  if (const auto deadline = spec.integer("activeDeadlineSeconds", 1, kMaxDeadlineSeconds)) {
    job.active_deadline = core::Time::from_seconds(*deadline);
  }
  if (const auto policy = spec.map("podFailurePolicy")) {
    for (const auto& [node, path] : policy->list("rules")) job.pod_failure_rules.push_back(read_failure_rule(Fields(spec.where(), node, path), tally));
    if (!policy->has("rules")) policy->missing("rules");
  }
  for (const char* field : {"completionMode", "backoffLimitPerIndex", "maxFailedIndexes", "podReplacementPolicy",
                            "successPolicy", "managedBy"}) {
    if (spec.has(field)) ++tally.unmodelled_job_fields[field];
  }
}

void read_restart_policy(const Fields& pod_template, JobSpec& job, WorkloadTally& tally) {
  const Fields pod_spec = pod_template.required_map("spec");
  const auto policy = pod_spec.string("restartPolicy");
  if (!policy) {
    ++tally.default_restart_policy;
  } else if (*policy == "OnFailure") {
    if (!job.pod_failure_rules.empty()) {
      pod_spec.fail("restartPolicy", "spec.podFailurePolicy needs restartPolicy Never (Kubernetes refuses the Job)");
    }
    job.restart_on_failure = true;
  } else if (*policy != "Never") {
    pod_spec.fail("restartPolicy", fmt::format("'{}': a Job's pods use Never or OnFailure", *policy));
  }
}

}  // namespace

void read_job(const Object& object, const PriorityClasses& classes, WorkloadBuilder& builder) {
  const Fields& fields = object.fields;
  const Meta meta = read_meta(fields, &builder.generated_names);
  const auto [it, inserted] = builder.job_names.emplace(meta.name, object.line);
  if (!inserted) {
    // A generated name can collide with one written out (gpusim numbers the generated names).
    fields.required_map("metadata")
        .fail(meta.generated ? "generateName" : "name",
              fmt::format("duplicate Job name '{}' (first at line {}){}", meta.name, it->second,
                          meta.generated ? "; gpusim made it from generateName and the file's count of generated names" : ""));
  }
  check_gpusim_annotations(fields.where(), meta.annotations, kPodAnnotations, "Job");
  const Fields spec = fields.required_map("spec");
  JobSpec job;
  job.name = meta.name;
  // A Job created suspended, as Kueue's users write them: its pods wait until a controller clears
  // spec.suspend (Kueue, at admission); under any other policy nothing does (the run refuses it).
  if (spec.boolean("suspend").value_or(false)) job.suspend_line = spec.where().line(spec.node()["suspend"]);
  job.parallelism = static_cast<std::int32_t>(spec.integer("parallelism", 1, kInt32Max).value_or(1));
  if (const auto completions = spec.integer("completions", 1, kMaxPods)) {
    job.completions = static_cast<std::int32_t>(*completions);
  } else {
    job.completions = job.parallelism;
    ++builder.tally.default_completions;
  }
  if (static_cast<std::int64_t>(builder.workload.pods.size()) + job.completions > kMaxPods) {
    spec.fail(spec.has("completions") ? "completions" : "parallelism",
              fmt::format("more than {} pods in the workload", kMaxPods));
  }
  read_job_failure_handling(spec, job, builder.tally);
  const Fields pod_template = spec.required_map("template");
  read_restart_policy(pod_template, job, builder.tally);
  // gpusim annotations may sit on the Job or on its template; the template's win.
  // KAI reads its GPU asks from the pod's annotations: on the Job they would give the pods none.
  for (const Entry& e : meta.annotations) {
    if (e.key == "gpu-fraction" || e.key == "gpu-memory" || e.key == "gpu-fraction-num-devices") {
      fields.where().fail(e.node, e.path, "KAI reads this annotation from the pod, not the Job: move it to spec.template.metadata.annotations");
    }
  }
  Entries annotations = meta.annotations;
  Entries template_labels;
  if (const auto template_meta = pod_template.map("metadata")) {
    template_labels = string_map(*template_meta, "labels");
    const Entries own = string_map(*template_meta, "annotations");
    check_gpusim_annotations(fields.where(), own, kPodAnnotations, "Job's pod template");
    for (const Entry& e : own) {
      const auto same =
          std::find_if(annotations.begin(), annotations.end(), [&](const Entry& a) { return a.key == e.key; });
      if (same != annotations.end()) {
        *same = e;
      } else {
        annotations.push_back(e);
      }
    }
  }
  WorkloadTally one;  // the template is read once; its tallies count every pod of the Job
  PodRead read = read_pod_spec(pod_template.required_map("spec"), annotations, classes, one);
  read.constraints.job = static_cast<std::int32_t>(builder.workload.jobs.size());
  read.constraints.restart_on_failure = job.restart_on_failure;
  read.constraints.suspended = job.suspend_line.has_value();
  read_workload_priority_class(fields.where(), meta, read.constraints);
  builder.scale_tally(one, job.completions);
  const auto constraints = std::make_shared<const cluster::PodConstraints>(std::move(read.constraints));
  for (std::int32_t k = 0; k < job.completions; ++k) {
    cluster::PodSpec pod = read.pod;
    pod.name = fmt::format("{}-{}", job.name, k);
    pod.constraints = constraints;
    builder.add(std::move(pod), fields, meta, template_labels);
  }
  builder.workload.jobs.push_back(std::move(job));
}

}  // namespace gpusim::traces::k8s
