#include "sim/perf/calibration.hpp"

#include <fmt/format.h>

#include <cmath>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>

#include "sim/core/status.hpp"
#include "sim/io/json_number.hpp"

namespace gpusim::perf {
namespace {

struct Point {
  double x;  // bytes or flops
  double t;  // microseconds
  bool holdout;
};

// Largest coefficient of variation of t among points that share x (the same size, measured
// in different sweeps).
double max_sweep_cv(const std::vector<Point>& points) {
  std::map<double, std::vector<double>> by_size;
  for (const Point& p : points) by_size[p.x].push_back(p.t);
  double worst = 0;
  for (const auto& [x, times] : by_size) {
    if (times.size() < 2) continue;
    double mean = 0, squares = 0;
    for (const double t : times) mean += t;
    mean /= static_cast<double>(times.size());
    for (const double t : times) squares += (t - mean) * (t - mean);
    worst = std::max(worst, std::sqrt(squares / static_cast<double>(times.size() - 1)) / mean);
  }
  return worst;
}

// Hold out every third point of each sweep, in size order.
std::vector<Point> split(std::vector<std::pair<double, double>> xs_ts) {
  std::sort(xs_ts.begin(), xs_ts.end());
  std::vector<Point> points;
  for (std::size_t i = 0; i < xs_ts.size(); ++i) points.push_back({xs_ts[i].first, xs_ts[i].second, i % 3 == 2});
  return points;
}

FittedTerm fit_term(std::string name, const std::vector<Point>& points) {
  std::vector<double> x, t;
  for (const Point& p : points) {
    if (!p.holdout) {
      x.push_back(p.x);
      t.push_back(p.t);
    }
  }
  if (x.size() < 2) throw std::runtime_error(name + ": fewer than two training samples");
  const AffineFit fit = fit_affine(x, t);
  FittedTerm term;
  term.name = std::move(name);
  term.t0_us = fit.intercept;
  term.rate_per_s = fit.slope > 0 ? 1e6 / fit.slope : 0;
  std::vector<double> pred_train, meas_train, pred_hold, meas_hold;
  for (const Point& p : points) {
    (p.holdout ? pred_hold : pred_train).push_back(fit.predict(p.x));
    (p.holdout ? meas_hold : meas_train).push_back(p.t);
  }
  term.train = relative_errors(pred_train, meas_train);
  term.holdout = relative_errors(pred_hold, meas_hold);
  term.sweep_cv = max_sweep_cv(points);
  return term;
}

// Points of all sweeps, grouped by sweep so that the hold-out pattern repeats per sweep.
std::vector<Point> sweep_points(const nlohmann::json& samples, const char* x_field,
                                const std::function<bool(const nlohmann::json&)>& keep) {
  std::map<int, std::vector<std::pair<double, double>>> by_sweep;
  for (const auto& s : samples) {
    if (!keep(s)) continue;
    by_sweep[s.value("sweep", 0)].emplace_back(s.at(x_field).get<double>(), s.at("median_us").get<double>());
  }
  std::vector<Point> points;
  for (auto& [sweep, xs] : by_sweep) {
    const auto part = split(std::move(xs));
    points.insert(points.end(), part.begin(), part.end());
  }
  return points;
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (const double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

// Homogeneous co-location runs of one kind ("processes" or "streams"), per class.
std::map<std::string, std::map<int, double>> sharing_means(const nlohmann::json& runs) {
  std::map<std::string, std::map<int, double>> out;
  for (const auto& r : runs) {
    out[r.at("class").get<std::string>()][io::checked_integer<int>(r.at("n"), "sharing run n")] = mean(r.at("norm_throughput").get<std::vector<double>>());
  }
  return out;
}

double predict_time_slice(double delta_inf, int n) {
  const double delta = delta_inf * (n - 1.0) / n;
  return 1.0 / (n * (1.0 + delta));
}

// One sharing term: fitted on every N but 4, which is held out and predicted.
// `fit(n, norm)` returns the parameter; `predict(parameter, n)` the per-member throughput.
template <typename Fit, typename Predict>
SharingTerm fit_sharing(std::string name, const std::map<int, double>& by_n, Fit fit, Predict predict) {
  SharingTerm term{std::move(name), {}, {}, 0, {}, {}};
  std::vector<double> train_n, train_norm;
  for (const auto& [n, norm] : by_n) {
    term.n.push_back(n);
    term.norm.push_back(norm);
    if (n != 4) {
      train_n.push_back(n);
      train_norm.push_back(norm);
    }
  }
  term.parameter = fit(train_n, train_norm);
  std::vector<double> held_out_predicted, held_out_measured;
  for (std::size_t i = 0; i < term.n.size(); ++i) {
    term.predicted.push_back(predict(term.parameter, term.n[i]));
    if (term.n[i] == 4) {
      held_out_predicted.push_back(term.predicted.back());
      held_out_measured.push_back(term.norm[i]);
    }
  }
  term.holdout = relative_errors(held_out_predicted, held_out_measured);
  return term;
}

}  // namespace

const FittedTerm* Calibration::term(std::string_view name) const {
  for (const auto& t : terms) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const SharingTerm* Calibration::sharing_term(std::string_view name) const {
  for (const auto& t : sharing) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

Calibration fit_calibration(const nlohmann::json& samples, const std::string& gpu_model, const std::string& provenance) {
  Calibration c;
  c.gpu_model = gpu_model;
  c.provenance = provenance;
  c.device = samples.value("device", nlohmann::json::object());
  c.run = samples.value("run", nlohmann::json::object());
  c.samples = samples;
  if (samples.contains("launch")) {
    c.launch_async_us = samples["launch"]["async"].at("median_us").get<double>();
    c.launch_sync_us = samples["launch"]["sync_roundtrip"].at("median_us").get<double>();
  }
  if (samples.contains("memory")) {
    const auto& memory = samples["memory"];
    const double l2 = c.device.value("l2_bytes", 50.0 * (1 << 20));
    c.terms.push_back(fit_term("memory.dram", sweep_points(memory.at("samples"), "bytes", [&](const nlohmann::json& s) {
                                 return s.at("bytes").get<double>() >= 4 * l2;
                               })));
    c.terms.push_back(fit_term("memory.l2", sweep_points(memory.at("samples"), "bytes", [&](const nlohmann::json& s) {
                                 const double b = s.at("bytes").get<double>();
                                 return b >= l2 / 16 && b <= l2 / 2;
                               })));
    for (const auto& copy : memory.value("copy_d2d", nlohmann::json::array())) {
      c.copy_d2d_gbps = std::max(c.copy_d2d_gbps, copy.at("gbps_read_plus_write").get<double>());
    }
  }
  if (samples.contains("gemm")) {
    for (const auto& [precision, data] : samples["gemm"].items()) {
      if (!data.is_object() || !data.contains("samples")) continue;
      c.terms.push_back(fit_term("gemm." + precision, sweep_points(data["samples"], "flops", [](const nlohmann::json& s) {
                                   const int m = s.at("m"), n = s.at("n"), k = s.at("k");
                                   return m == n && n == k && m >= 2048 && m % 128 == 0;
                                 })));
    }
  }
  if (samples.contains("colocation")) {
    const auto& co = samples["colocation"];
    for (const auto& [klass, by_n] : sharing_means(co.at("processes"))) {
      c.sharing.push_back(fit_sharing("time_slice." + klass, by_n, [](const auto& n, const auto& norm) {
        std::vector<double> delta;  // the overhead each measurement implies
        for (std::size_t i = 0; i < n.size(); ++i) delta.push_back(1.0 / (n[i] * norm[i]) - 1.0);
        return fit_overhead(n, delta);
      }, predict_time_slice));
    }
    for (const auto& [klass, by_n] : sharing_means(co.at("streams"))) {
      c.sharing.push_back(fit_sharing("streams." + klass, by_n, [](const auto& n, const auto& norm) {
        return fit_capacity(n, norm);
      }, [](double capacity, int n) { return std::min(1.0, capacity / n); }));
    }
    // Heterogeneous pairs, predicted from the homogeneous fits: two processes share the time
    // slices, with the mean of the two classes' overheads at N = 2.
    for (const auto& pair : co.value("process_pairs", nlohmann::json::array())) {
      const std::string a = pair.at("a"), b = pair.at("b");
      const SharingTerm* ta = c.sharing_term("time_slice." + a);
      const SharingTerm* tb = c.sharing_term("time_slice." + b);
      if (ta == nullptr || tb == nullptr) continue;
      MixTerm mix{"mix." + a + "+" + b, pair.at("norm_throughput").get<std::vector<double>>(), {}, {}};
      const double delta = (ta->parameter + tb->parameter) / 2;
      mix.predicted = {predict_time_slice(delta, 2), predict_time_slice(delta, 2)};
      mix.error = relative_errors(mix.predicted, mix.norm);
      c.mixes.push_back(std::move(mix));
    }
  }
  return c;
}

namespace {

nlohmann::json errors_json(const ErrorStats& e) { return {{"mape", e.mape}, {"max_ape", e.max_ape}, {"n", e.n}}; }
ErrorStats errors_from(const nlohmann::json& j) {
  return {j.at("mape").get<double>(), j.at("max_ape").get<double>(), io::checked_integer<int>(j.at("n"), "error count n")};
}

}  // namespace

nlohmann::json to_json(const Calibration& c) {
  nlohmann::ordered_json doc;
  doc["schema"] = "gpusim-calibration/1";
  doc["gpu_model"] = c.gpu_model;
  doc["provenance"] = c.provenance;
  doc["device"] = c.device;
  doc["run"] = c.run;
  doc["launch"] = {{"async_us", c.launch_async_us}, {"sync_roundtrip_us", c.launch_sync_us}};
  doc["copy_d2d_gbps"] = c.copy_d2d_gbps;
  auto& terms = doc["terms"] = nlohmann::ordered_json::array();
  for (const auto& t : c.terms) {
    terms.push_back({{"name", t.name}, {"t0_us", t.t0_us}, {"rate_per_s", t.rate_per_s},
                     {"train", errors_json(t.train)}, {"holdout", errors_json(t.holdout)}, {"sweep_cv", t.sweep_cv}});
  }
  auto& sharing = doc["sharing"] = nlohmann::ordered_json::array();
  for (const auto& s : c.sharing) {
    sharing.push_back({{"name", s.name}, {"n", s.n}, {"norm", s.norm}, {"parameter", s.parameter},
                       {"predicted", s.predicted}, {"holdout", errors_json(s.holdout)}});
  }
  auto& mixes = doc["mixes"] = nlohmann::ordered_json::array();
  for (const auto& m : c.mixes) {
    mixes.push_back({{"name", m.name}, {"norm", m.norm}, {"predicted", m.predicted}, {"error", errors_json(m.error)}});
  }
  doc["samples"] = c.samples;
  return nlohmann::json(doc);
}

Calibration calibration_from_json(const nlohmann::json& doc, const std::string& source) {
  try {
    if (doc.at("schema") != "gpusim-calibration/1") {
      throw core::InputError(fmt::format("{}: schema: expected gpusim-calibration/1", source));
    }
    Calibration c;
    c.gpu_model = doc.at("gpu_model");
    c.provenance = doc.at("provenance");
    c.device = doc.value("device", nlohmann::json::object());
    c.run = doc.value("run", nlohmann::json::object());
    c.launch_async_us = doc.at("launch").at("async_us");
    c.launch_sync_us = doc.at("launch").at("sync_roundtrip_us");
    c.copy_d2d_gbps = doc.at("copy_d2d_gbps");
    for (const auto& t : doc.at("terms")) {
      c.terms.push_back({t.at("name"), t.at("t0_us"), t.at("rate_per_s"), errors_from(t.at("train")),
                         errors_from(t.at("holdout")), t.value("sweep_cv", 0.0)});
    }
    for (const auto& s : doc.at("sharing")) {
      c.sharing.push_back({s.at("name"), io::checked_integers<int>(s.at("n"), "sharing n"), s.at("norm").get<std::vector<double>>(),
                           s.at("parameter"), s.at("predicted").get<std::vector<double>>(), errors_from(s.at("holdout"))});
    }
    for (const auto& m : doc.value("mixes", nlohmann::json::array())) {
      c.mixes.push_back({m.at("name"), m.at("norm").get<std::vector<double>>(),
                         m.at("predicted").get<std::vector<double>>(), errors_from(m.at("error"))});
    }
    c.samples = doc.value("samples", nlohmann::json::object());
    check_calibration(c, source);
    return c;
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError(fmt::format("{}: {}", source, e.what()));
  } catch (const std::domain_error& e) {
    throw core::InputError(fmt::format("{}: {}", source, e.what()));
  }
}

Calibration calibration_from_text(const std::string& text, const std::string& source) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for huge numbers
    throw core::InputError(fmt::format("{}: invalid JSON: {}", source, e.what()));
  }
  return calibration_from_json(doc, source);
}

void check_calibration(const Calibration& c, const std::string& source) {
  const auto fail = [&](const std::string& field, const std::string& why, double value) {
    throw core::InputError(fmt::format("{}: {}: {} (got {})", source, field, why, value));
  };
  const auto finite_at_least = [&](const std::string& field, double value, double low) {
    if (!std::isfinite(value) || value < low) fail(field, fmt::format("must be a finite number >= {}", low), value);
  };
  // The model id names files (<gpu_model>.json): a catalog-style id, never a path.
  const bool plain_id = !c.gpu_model.empty() && std::isalnum(static_cast<unsigned char>(c.gpu_model.front())) &&
                        std::all_of(c.gpu_model.begin(), c.gpu_model.end(), [](char ch) {
                          return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.';
                        });
  if (!plain_id) {
    throw core::InputError(fmt::format("{}: gpu_model: '{}' is not a catalog id (letters, digits, '-', '_', '.')", source, c.gpu_model));
  }
  finite_at_least("launch.async_us", c.launch_async_us, 0);
  finite_at_least("launch.sync_roundtrip_us", c.launch_sync_us, 0);
  finite_at_least("copy_d2d_gbps", c.copy_d2d_gbps, 0);
  for (std::size_t i = 0; i < c.terms.size(); ++i) {
    const FittedTerm& t = c.terms[i];
    const std::string at = fmt::format("terms[{}] ({})", i, t.name);
    // A rate of 0 or less would make a speed factor meaningless (it used to turn into 1).
    if (!std::isfinite(t.rate_per_s) || t.rate_per_s <= 0) fail(at + ".rate_per_s", "must be a finite number > 0", t.rate_per_s);
    finite_at_least(at + ".t0_us", t.t0_us, 0);
    finite_at_least(at + ".sweep_cv", t.sweep_cv, 0);
  }
  for (std::size_t i = 0; i < c.sharing.size(); ++i) {
    const SharingTerm& s = c.sharing[i];
    const std::string at = fmt::format("sharing[{}] ({})", i, s.name);
    if (s.name.starts_with("time_slice.")) {
      // A negative overhead would make co-located pods faster than running alone.
      finite_at_least(at + ".parameter", s.parameter, 0);
    } else if (!std::isfinite(s.parameter) || s.parameter <= 0) {
      fail(at + ".parameter", "must be a finite number > 0", s.parameter);
    }
    if (s.n.size() != s.norm.size()) {
      throw core::InputError(fmt::format("{}: {}: n and norm differ in length", source, at));
    }
    for (const int n : s.n) {
      if (n < 1) fail(at + ".n", "process counts must be >= 1", n);
    }
  }
}

std::string validation_table(const Calibration& c) {
  std::string md = "| term | model | fitted | train MAPE | hold-out MAPE | hold-out max | hold-out n | target | sweep CV |\n";
  md += "|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& t : c.terms) {
    const bool memory = t.name.starts_with("memory.");
    md += fmt::format("| {} | t0 + {} / rate | {:.1f} {}, t0 {:.2f} us | {:.2f}% | {:.2f}% | {:.2f}% | {} | {} | {:.2f}% |\n", t.name,
                      memory ? "bytes" : "flops", memory ? t.rate_per_s / 1e9 : t.rate_per_s / 1e12,
                      memory ? "GB/s" : "TFLOP/s", t.t0_us, 100 * t.train.mape, 100 * t.holdout.mape,
                      100 * t.holdout.max_ape, t.holdout.n, memory ? "<= 5%" : "<= 10%", 100 * t.sweep_cv);
  }
  for (const auto& s : c.sharing) {
    const bool slice = s.name.starts_with("time_slice.");
    md += fmt::format("| {} | {} | {:.3f} | | {:.2f}% | {:.2f}% | {} | <= 15% | |\n", s.name,
                      slice ? "1/(N(1+d_inf(N-1)/N))" : "min(1, capacity/N)", s.parameter, 100 * s.holdout.mape,
                      100 * s.holdout.max_ape, s.holdout.n);
  }
  for (const auto& m : c.mixes) {
    md += fmt::format("| {} | from the homogeneous fits | | | {:.2f}% | {:.2f}% | {} | <= 15% | |\n", m.name,
                      100 * m.error.mape, 100 * m.error.max_ape, m.error.n);
  }
  return md;
}

namespace {

// The names nvidia-smi, cudaGetDeviceProperties and dcgm-exporter (modelName) report, for every
// catalog model that has one; the first of a model is its canonical name. Matched as upper-case
// tokens with the vendor words dropped, whole names only: "L40" is not "L4", "GH200" not "H200".
struct DeviceName {
  std::string_view name;
  std::string_view id;
};
constexpr DeviceName kDeviceNames[] = {
    {"Tesla K80", "k80"},
    {"Tesla P100-SXM2-16GB", "p100-sxm2-16gb"},
    {"Tesla P100-PCIE-16GB", "p100-pcie-16gb"},
    {"Tesla P100-PCIE-12GB", "p100-pcie-12gb"},
    {"Tesla P40", "p40"},
    {"Tesla V100-PCIE-16GB", "v100-pcie"},
    {"Tesla V100-PCIE-32GB", "v100-pcie"},
    {"Tesla V100-SXM2-16GB", "v100-sxm2-16gb"},
    {"Tesla V100-SXM2-32GB", "v100-sxm2-32gb"},
    {"Tesla T4", "t4"},
    {"NVIDIA A10", "a10"},
    {"NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb"},
    {"NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb"},
    {"NVIDIA L4", "l4"},
    {"NVIDIA L40S", "l40s"},
    {"NVIDIA H100 80GB HBM3", "h100-sxm5-80gb"},
    {"NVIDIA H100 SXM5 80GB", "h100-sxm5-80gb"},
    {"NVIDIA H100 PCIe", "h100-pcie-80gb"},
    {"NVIDIA H100 PCIe 80GB", "h100-pcie-80gb"},
    {"NVIDIA H200", "h200-sxm-141gb"},
    {"NVIDIA H200 141GB HBM3e", "h200-sxm-141gb"},
    // The driver's name for device 0x2BB5 (NVIDIA/open-gpu-kernel-modules README, supported GPUs).
    {"NVIDIA RTX PRO 6000 Blackwell Server Edition", "rtx-pro-6000-blackwell-server"},
};

std::vector<std::string> device_tokens(std::string_view name) {
  std::vector<std::string> tokens;
  std::string token;
  const auto flush = [&] {
    if (!token.empty() && token != "NVIDIA" && token != "TESLA") tokens.push_back(token);
    token.clear();
  };
  for (const char ch : name) {
    if (std::isalnum(static_cast<unsigned char>(ch))) token += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    else flush();
  }
  flush();
  return tokens;
}

}  // namespace

std::string catalog_id_for_device(std::string_view name) {
  const std::vector<std::string> tokens = device_tokens(name);
  for (const DeviceName& known : kDeviceNames) {
    if (device_tokens(known.name) == tokens) return std::string(known.id);
  }
  std::string id;
  for (const char ch : name) {
    if (std::isalnum(static_cast<unsigned char>(ch))) id += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    else if (!id.empty() && id.back() != '-') id += '-';
  }
  while (!id.empty() && id.back() == '-') id.pop_back();
  return id;
}

std::string device_name_for(std::string_view catalog_id) {
  for (const DeviceName& known : kDeviceNames) {
    if (known.id == catalog_id) return std::string(known.name);
  }
  return "";
}

}  // namespace gpusim::perf
