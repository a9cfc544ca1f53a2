#include "sim/experiment/output_writer.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/os.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <fstream>
#include <sstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <cerrno>
#include <system_error>

#include "sim/core/rng.hpp"
#include "sim/core/status.hpp"
#include "sim/experiment/cluster_files.hpp"
#include "sim/experiment/never_ran.hpp"
#include "sim/report/report.hpp"
#include "sim/report/shown_number.hpp"

namespace gpusim::experiment {
namespace {

namespace fs = std::filesystem;

// One whole file; a short write (disk full) is an error, not a truncated output.
void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::system_error(errno, std::generic_category(), "cannot write " + path.string());
}

// Seconds with six decimals from integer microseconds: exact, locale-free, deterministic; empty
// when negative (not reached). Formatted in place: an output row allocates nothing.
struct Seconds {
  std::int64_t us;
};

// GPU indices joined by '-' ("0-1-3").
struct GpuList {
  const cluster::GpuSet& gpus;
};

// A pod's name, with "-tuned-K" for the K-th copy fill mode added.
struct PodName {
  std::string_view name;
  std::uint32_t clone;
};

// Each container's GPU list, joined by '|'.
struct ContainerGpus {
  const std::vector<cluster::GpuSet>* containers;
};

// A CSV field as RFC 4180 writes it: in double quotes (inner ones doubled) when it holds a comma,
// a quote or a line break (a FitError's reasons are joined with ", "), else as it is.
struct CsvField {
  std::string_view text;
};

// The formatters below take no format spec.
struct NoSpec {
  constexpr auto parse(fmt::format_parse_context& ctx) { return ctx.begin(); }
};

}  // namespace
}  // namespace gpusim::experiment

template <>
struct fmt::formatter<gpusim::experiment::Seconds> : gpusim::experiment::NoSpec {
  template <typename Context>
  auto format(const gpusim::experiment::Seconds& s, Context& ctx) const {
    if (s.us < 0) return ctx.out();
    // Built in place, then appended as one run: a character at a time through the output
    // iterator cost about 300 instructions a value, 12 % of a Philly replay's whole command.
    char text[32];
    char* end = text + sizeof text;
    char* p = end;
    std::int64_t rest = s.us;
    for (int i = 0; i < 6; ++i, rest /= 10) *--p = static_cast<char>('0' + rest % 10);
    *--p = '.';
    do {
      *--p = static_cast<char>('0' + rest % 10);
      rest /= 10;
    } while (rest > 0);
    return fmt::format_to(ctx.out(), FMT_COMPILE("{}"), std::string_view(p, static_cast<std::size_t>(end - p)));
  }
};

namespace gpusim::experiment {
namespace {

// The formatters' bodies, called directly by the formatters that nest them: a nested
// `format_to(out, "{}", ...)` parses its format string at run time, which cost a Philly replay
// 5 % of its whole command.
template <typename Out>
Out write_gpu_list(const cluster::GpuSet& gpus, Out out) {
  bool first = true;
  gpus.for_each([&](int g) {
    if (!first) *out++ = '-';
    first = false;
    const fmt::format_int index(g);
    out = std::copy(index.data(), index.data() + index.size(), out);
  });
  return out;
}

template <typename Out>
Out write_csv_field(std::string_view text, Out out) {
  // Whole runs of text at a time (a fill writes thousands of reasons per run).
  const auto copy = [](std::string_view run, Out to) { return fmt::format_to(to, FMT_COMPILE("{}"), run); };
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return copy(text, out);
  *out++ = '"';
  std::string_view rest = text;
  for (std::size_t quote; (quote = rest.find('"')) != std::string_view::npos; rest.remove_prefix(quote + 1)) {
    out = copy(rest.substr(0, quote + 1), out);
    *out++ = '"';  // doubled
  }
  out = copy(rest, out);
  *out++ = '"';
  return out;
}

}  // namespace
}  // namespace gpusim::experiment

template <>
struct fmt::formatter<gpusim::experiment::GpuList> : gpusim::experiment::NoSpec {
  template <typename Context>
  auto format(const gpusim::experiment::GpuList& list, Context& ctx) const {
    return gpusim::experiment::write_gpu_list(list.gpus, ctx.out());
  }
};

template <>
struct fmt::formatter<gpusim::experiment::PodName> : gpusim::experiment::NoSpec {
  template <typename Context>
  auto format(const gpusim::experiment::PodName& pod, Context& ctx) const {
    using gpusim::experiment::write_csv_field;
    if (pod.clone == 0) return write_csv_field(pod.name, ctx.out());
    // A name that needs quoting (a native trace's may hold a comma) is quoted with its suffix.
    if (pod.name.find_first_of(",\"\r\n") != std::string_view::npos) {
      return write_csv_field(fmt::format("{}-tuned-{}", pod.name, pod.clone), ctx.out());
    }
    return fmt::format_to(ctx.out(), FMT_COMPILE("{}-tuned-{}"), pod.name, pod.clone);
  }
};

template <>
struct fmt::formatter<gpusim::experiment::CsvField> : gpusim::experiment::NoSpec {
  template <typename Context>
  auto format(const gpusim::experiment::CsvField& field, Context& ctx) const {
    return gpusim::experiment::write_csv_field(field.text, ctx.out());
  }
};

template <>
struct fmt::formatter<gpusim::experiment::ContainerGpus> : gpusim::experiment::NoSpec {
  template <typename Context>
  auto format(const gpusim::experiment::ContainerGpus& c, Context& ctx) const {
    auto out = ctx.out();
    for (std::size_t i = 0; i < c.containers->size(); ++i) {
      if (i > 0) *out++ = '|';
      out = gpusim::experiment::write_gpu_list((*c.containers)[i], out);
    }
    return out;
  }
};

namespace gpusim::experiment {
namespace {

// A CSV file written row by row through a buffer, each row formatted by a format string compiled
// with FMT_COMPILE (tables of 10^5 rows and more: parsing the format at run time cost a third of
// the writing).
class CsvFile {
 public:
  explicit CsvFile(const fs::path& path) : file_(fmt::output_file(path.string())) {}
  template <typename Format, typename... Args>
  void row(const Format& format, const Args&... args) {
    fmt::format_to(fmt::appender(buffer_), format, args...);
    if (buffer_.size() >= kFlushBytes) flush();
  }
  // Here, not in the destructor: a failed write must throw, not terminate.
  void close() {
    flush();
    file_.close();
  }

 private:
  static constexpr std::size_t kFlushBytes = 1 << 16;
  void flush() {
    file_.print("{}", std::string_view(buffer_.data(), buffer_.size()));
    buffer_.clear();
  }
  fmt::ostream file_;
  fmt::memory_buffer buffer_;
};

void write_pods(const fs::path& path, const RunResult& run, const OutputContext& ctx) {
  CsvFile out(path);
  out.row(FMT_COMPILE("order,name,cpu_milli,memory_mib,num_gpu,gpu_milli,arrival_s,start_s,end_s,outcome,node,gpus,attempts,"
                      "reason,containers,bound_s,admitted_s,gpu_share_milli\n"));
  for (std::size_t i = 0; i < run.pods.size(); ++i) {
    const PodRecord& r = run.pods[i];
    const auto& pod = ctx.workload->pods[r.source_index];
    // Both branches views: `cond ? string : ""` would copy the name into a temporary the view outlives;
    // the empty one over "", not null (fmt copies it with memcpy, which must not get a null pointer).
    const std::string_view node =
        r.node >= 0 ? std::string_view(ctx.cluster->nodes[static_cast<std::size_t>(r.node)].name) : std::string_view("");
    const std::int32_t gpu_milli = r.gpu_milli >= 0 ? r.gpu_milli : pod.gpu_milli;
    out.row(FMT_COMPILE("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n"), i, PodName{pod.name, r.clone}, pod.cpu_milli,
            pod.memory_mib, pod.gpu_count, gpu_milli, Seconds{r.arrival_us},
            Seconds{r.start_us}, Seconds{r.end_us}, std::string_view(to_string(r.outcome)), node, GpuList{r.gpus}, r.attempts,
            CsvField{r.reason}, ContainerGpus{&r.container_gpus}, Seconds{r.bound_us}, Seconds{r.admitted_us},
            r.gpu_share_milli >= 0 ? r.gpu_share_milli : gpu_milli);
  }
  out.close();
}

// Replay: the runs of rows' earlier pod objects (order: the row of pods.csv).
void write_earlier_runs(const fs::path& path, const RunResult& run, const OutputContext& ctx) {
  CsvFile out(path);
  out.row(FMT_COMPILE("order,node,gpus,start_s,end_s\n"));
  for (const EarlierRun& r : run.earlier_runs) {
    const std::string_view node =
        r.node >= 0 ? std::string_view(ctx.cluster->nodes[static_cast<std::size_t>(r.node)].name) : std::string_view("");
    out.row(FMT_COMPILE("{},{},{},{},{}\n"), r.row, node, GpuList{r.gpus}, Seconds{r.start_us}, Seconds{r.end_us});
  }
  out.close();
}

void write_series(const fs::path& path, const RunResult& run) {
  CsvFile out(path);
  out.row(FMT_COMPILE("time_s,arrived_gpu_milli,allocated_gpu_milli,gpus_in_use,running_pods,pending_pods\n"));
  for (const SeriesPoint& p : run.series) {
    out.row(FMT_COMPILE("{},{},{},{},{},{}\n"), Seconds{p.time_us}, p.arrived_gpu_milli, p.allocated_gpu_milli,
              p.gpus_in_use, p.running_pods, p.pending_pods);
  }
  out.close();
}

// Each change of a queue series: when, the metric, its labels (a CSV field: they hold commas and
// quotes) and the value from then on.
void write_queue_series(const fs::path& path, const RunResult& run) {
  CsvFile out(path);
  out.row(FMT_COMPILE("time_s,metric,labels,value\n"));
  const auto& series = run.queue_series.series();
  for (const k8s::QueueSeries::Point& p : run.queue_series.points()) {
    const k8s::QueueSeries::Series& s = series[p.series];
    out.row(FMT_COMPILE("{},{},{},{:.10g}\n"), Seconds{p.time_us}, s.metric, CsvField{s.labels}, p.value);
  }
  out.close();
}

void write_curve(const fs::path& path, const RunResult& run) {
  auto out = fmt::output_file(path.string());
  out.print("arrived_load_pct,gpu_allocation_pct\n");
  for (const CurvePoint& p : run.curve) out.print("{},{:.2f}\n", p.load_pct, p.allocation_pct);
  out.close();
}

// One line per job (traces of jobs): its pods, GPUs, queue and times; the JCT CDF's data.
void write_jobs(const fs::path& path, const RunResult& run, const OutputContext& ctx) {
  CsvFile out(path);
  out.row(FMT_COMPILE("job,queue,pods,gpus,arrival_s,start_s,end_s,run_s,jct_s,queueing_s,completed\n"));
  const auto& queues = ctx.workload->queues;
  for (const JobRecord& job : run.jobs) {
    const bool started = job.start_us >= 0;
    // A gang's job is named by its workers' common prefix ("job-00042" for "job-00042-w000").
    const cluster::PodSpec& first = ctx.workload->pods[job.first_pod];
    std::string_view name = first.name;
    if (first.gang != 0 && name.rfind("-w") != std::string_view::npos) name = name.substr(0, name.rfind("-w"));
    const std::string_view queue = queues.empty() ? std::string_view("") : std::string_view(queues[job.queue]);
    out.row(FMT_COMPILE("{},{},{},{},{},{},{},{},{},{},{}\n"), CsvField{name}, CsvField{queue}, job.pods, job.gpus, Seconds{job.arrival_us},
              Seconds{job.start_us}, Seconds{job.end_us}, Seconds{job.run_us},
              Seconds{job.completed ? job.end_us - job.arrival_us : -1},
              Seconds{started ? job.start_us - job.arrival_us : -1}, job.completed ? 1 : 0);
  }
  out.close();
}

void write_queues(const fs::path& path, const RunResult& run) {
  auto out = fmt::output_file(path.string());
  out.print("queue,jobs,completed,gpu_hours,mean_jct_s,p95_jct_s,mean_queueing_s,mean_slowdown\n");
  for (const QueueSummary& q : run.queues) {
    out.print("{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.4f}\n", q.name, q.jobs, q.completed, q.gpu_hours, q.mean_jct_s,
              q.p95_jct_s, q.mean_queueing_s, q.mean_slowdown);
  }
  out.close();
}

void write_run_files(const fs::path& dir, const RunResult& run, const OutputContext& ctx) {
  fs::create_directories(dir);
  if (!run.pods.empty()) write_pods(dir / "pods.csv", run, ctx);
  if (!run.earlier_runs.empty()) write_earlier_runs(dir / "earlier-runs.csv", run, ctx);
  if (!run.series.empty()) write_series(dir / "timeseries.csv", run);
  if (!run.curve.empty()) write_curve(dir / "curve.csv", run);
  if (!run.jobs.empty()) write_jobs(dir / "jobs.csv", run, ctx);
  if (!run.queues.empty()) write_queues(dir / "queues.csv", run);
  if (!run.queue_series.empty()) write_queue_series(dir / "queue-series.csv", run);
}

// The cluster (with its first run's devices: every run has the same) and, when it has GPUs, the
// typical pods, so that the output directory stands alone.
void write_cluster_files(const fs::path& dir, const CompareResult& result, const OutputContext& ctx) {
  if (ctx.catalog == nullptr || ctx.cluster == nullptr) return;
  std::span<const NodeDevices> devices;
  if (!result.policies.empty() && !result.policies.front().runs.empty()) devices = result.policies.front().runs.front().node_devices;
  write_nodes_csv(dir / "nodes.csv", *ctx.cluster, *ctx.catalog, devices);
  const bool gpus = std::any_of(ctx.cluster->nodes.begin(), ctx.cluster->nodes.end(),
                                [](const cluster::NodeSpec& node) { return node.gpu_count > 0; });
  if (!gpus) return;
  // The workload's, as the runs' own fragmentation metrics (--typical-pods steers FGD's score only).
  write_typical_pods_csv(dir / "typical-pods.csv", metrics::typical_pods(ctx.workload->pods), *ctx.catalog);
}

// JSON numbers rounded to 6 decimals, by the rule stdout and report.md round from (shown_number.hpp).
double tidy(double x) { return report::summary_value(x); }

nlohmann::ordered_json summary_json(const CompareResult& result, const OutputContext& ctx) {
  nlohmann::ordered_json doc;
  doc["gpusim_version"] = ctx.gpusim_version;
  doc["mode"] = to_string(result.base.mode);
  auto& inputs = doc["inputs"];
  inputs["cluster"] = ctx.cluster_source;
  inputs["cluster_fnv1a64"] = ctx.cluster_digest;
  inputs["workload"] = ctx.workload_source;
  inputs["workload_fnv1a64"] = ctx.workload_digest;
  // Blank and comment lines the readers skipped: reported, never silent (absent when none).
  if (ctx.cluster->skipped_lines > 0) inputs["cluster_skipped_lines"] = ctx.cluster->skipped_lines;
  if (ctx.workload->skipped_lines > 0) inputs["workload_skipped_lines"] = ctx.workload->skipped_lines;
  if (result.base.mode == Mode::kFill) {
    inputs["fill_target"] = result.base.fill_target;
    // Only when not the default, so that default outputs stay as they were.
    if (result.base.order != FillOrder::kShuffled) inputs["order"] = to_string(result.base.order);
    if (!ctx.typical_pods.is_null()) inputs["typical_pods"] = ctx.typical_pods;
  } else {
    inputs["time_compression"] = result.base.time_compression;
    if (result.base.fragmentation_every_s > 0) inputs["fragmentation_every_s"] = result.base.fragmentation_every_s;
  }
  if (!ctx.kube.is_null()) inputs["kube"] = ctx.kube;
  if (!ctx.configs.is_null()) inputs["configs"] = ctx.configs;
  if (!ctx.preemption.is_null()) inputs["preemption"] = ctx.preemption;
  if (!ctx.time_sharing.is_null()) inputs["time_sharing"] = ctx.time_sharing;
  if (!ctx.gang.is_null()) inputs["gang"] = ctx.gang;
  if (!ctx.placement.is_null()) inputs["placement"] = ctx.placement;
  if (!ctx.queue_quotas.is_null()) inputs["queue_quotas"] = ctx.queue_quotas;
  if (!ctx.profile_files.is_null()) inputs["profile_files"] = ctx.profile_files;
  // What the readers assumed or could not model, for the user (absent when nothing).
  if (!ctx.cluster->notes.empty()) inputs["cluster_notes"] = ctx.cluster->notes;
  if (!ctx.workload->notes.empty()) inputs["workload_notes"] = ctx.workload->notes;
  if (!ctx.performance.is_null()) {
    inputs["performance_model"] = {{"reference_gpu", ctx.performance["reference_gpu"]},
                                   {"memory_fraction", ctx.performance["memory_fraction"]},
                                   {"precision", ctx.performance["precision"]},
                                   {"figures", "performance_model.json"}};
  }
  doc["seeds"] = result.seeds;
  auto& policies = doc["policies"] = nlohmann::ordered_json::array();
  for (const PolicySummary& policy : result.policies) {
    nlohmann::ordered_json entry;
    entry["name"] = policy.policy;
    for (const MetricSummary& metric : policy.metrics) {
      // NaN (undefined in every run) is written as null; the runs say why.
      entry[metric.name] = {{"mean", tidy(metric.mean)}, {"std", tidy(metric.std)}};
      if (metric.defined_runs < static_cast<int>(policy.runs.size())) entry[metric.name]["defined_runs"] = metric.defined_runs;
    }
    auto& runs = entry["runs"] = nlohmann::ordered_json::array();
    for (const RunResult& run : policy.runs) {
      nlohmann::ordered_json r;
      r["seed"] = run.config.seed;
      for (const auto& [name, value] : run.metrics) r[name] = tidy(value);
      for (const auto& [name, reason] : run.undefined) r["undefined"][name] = reason;
      // Absent when every pod ran (sim/experiment/never_ran.hpp).
      for (const auto& [cause, pods] : never_ran_by_cause(run)) r["never_ran_by_reason"][cause] = pods;
      runs.push_back(std::move(r));
    }
    policies.push_back(std::move(entry));
  }
  return doc;
}

}  // namespace

std::string file_digest(const fs::path& path) {
  // Read whole through the stream buffer, not a character at a time (a Philly replay's outputs
  // are 19 MB); a file that cannot be opened digests as empty, as before.
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  if (in) bytes << in.rdbuf();
  return fmt::format("{:016x}", core::fnv1a64(bytes.view()));
}

void write_outputs(io::OutputDirectory& out, const CompareResult& result, const OutputContext& ctx) {
  const fs::path& staging = out.staging();
  try {
    write_text(staging / "summary.json", summary_json(result, ctx).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    write_cluster_files(staging, result, ctx);
    if (!ctx.performance.is_null()) write_text(staging / "performance_model.json", ctx.performance.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    for (const PolicySummary& policy : result.policies) {
      for (const RunResult& run : policy.runs) {
        const fs::path run_dir = ctx.single_run
                                     ? staging
                                     : staging / "runs" / policy.policy / fmt::format("seed-{}", run.config.seed);
        write_run_files(run_dir, run, ctx);
      }
    }
    // The report and its plots are drawn from the files just written, as `gpusim report` does.
    const report::RenderResult rendered = report::render(staging);
    if (const std::string note = report::missing_plots_note(rendered); !note.empty()) fmt::print(stderr, "gpusim: note: {}\n", note);
  } catch (const std::system_error& e) {  // fmt's and std::filesystem's I/O errors
    throw core::InputError(fmt::format("{}: cannot write outputs: {}", out.target().string(), e.what()));
  }
  out.commit();
}

}  // namespace gpusim::experiment
