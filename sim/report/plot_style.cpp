#include "sim/report/plot_style.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

namespace gpusim::report {

SeriesStyle series_style(std::size_t index) {
  static constexpr const char* kColours[] = {"#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#000000", "#777777"};
  static constexpr int kDashes[] = {1, 2, 4, 5, 3};
  static constexpr int kPoints[] = {6, 4, 8, 12, 10, 2, 3, 14};
  return {kColours[index % std::size(kColours)], kDashes[index % std::size(kDashes)], kPoints[index % std::size(kPoints)]};
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

std::string every_nth_row(std::size_t rows, std::size_t index, std::size_t count) {
  const std::size_t every = std::max<std::size_t>(1, rows / kMarksPerSeries);
  return fmt::format("every {}::{}", every, count == 0 ? 0 : index * every / count);
}

std::string series_clause(const std::string& file, const char* with, double line_width, std::size_t index, const std::string& marks,
                          const std::optional<std::string>& title) {
  const SeriesStyle style = series_style(index);
  const std::string colour = fmt::format("lc rgb '{}'", style.colour);
  const std::string line = fmt::format("lw {} dt {}", line_width, style.dash);
  const std::string point = fmt::format("pt {} ps 0.9", style.point);
  std::string clause = fmt::format("{} index 0 using 1:2 with {} {} {} notitle, {} {} using 1:2 with points {} {} notitle", quoted(file),
                                   with, colour, line, quoted(file), marks, colour, point);
  if (title) clause += fmt::format(", keyentry with linespoints {} {} {} title {} noenhanced", colour, line, point, quoted(*title));
  return clause;
}

std::string duration_log_tics() {
  static constexpr std::pair<const char*, double> kTicks[] = {
      {"1 ms", 0.001}, {"10 ms", 0.01}, {"0.1 s", 0.1}, {"1 s", 1},      {"10 s", 10},      {"1 min", 60},
      {"10 min", 600}, {"1 h", 3600},   {"1 d", 86400}, {"10 d", 864000}, {"100 d", 8640000}, {"1000 d", 86400000}};
  std::vector<std::string> ticks;
  for (const auto& [label, seconds] : kTicks) ticks.push_back(fmt::format("\"{}\" {:g}", label, seconds));
  return fmt::format("set xtics ({})\n", fmt::join(ticks, ", "));
}

}  // namespace gpusim::report
