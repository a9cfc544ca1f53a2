#pragma once
// How the report's plots tell policies apart and name their axes: the pieces of gnuplot script
// plots.cpp puts together. Policies' lines often coincide (policies that place alike, a CDF's
// ends), so each series has its own colour, dash type and point marks: one drawn over another
// still shows.
#include <cstddef>
#include <optional>
#include <string>

namespace gpusim::report {

// Point marks per series: enough to tell a line by them, few enough not to hide it.
inline constexpr std::size_t kMarksPerSeries = 8;

struct SeriesStyle {
  const char* colour;  // "#rrggbb": Paul Tol's "bright" colours, told apart by colour-blind eyes too, its light grey
                       // replaced by black (a grey line over another was invisible), then a mid grey
  int dash;            // dt: 1 solid, 2 dashed, 4 dash-dot, 5 dash-dot-dot, 3 dotted
  int point;           // pt: open circle, square, triangles, diamond, then crosses and stars
};

// The style of the `index`-th series of a plot (they repeat after 5 dashes, 8 colours and marks).
SeriesStyle series_style(std::size_t index);

// A gnuplot string literal. Titles are drawn `noenhanced`: policy names are text, not markup
// ("my_policy" must not become a subscript).
std::string quoted(const std::string& text);

// Which points of series `index` of `count` carry its marks, as a gnuplot selector: every
// rows/kMarksPerSeries-th of its `rows` data rows, each series starting a little later than the one
// before, so that the marks of coinciding series alternate rather than cover each other.
std::string every_nth_row(std::size_t rows, std::size_t index, std::size_t count);

// One series of a line plot: the line (`with` "steps" or "lines", the file's first data block), its
// point marks (the points `marks` selects, e.g. every_nth_row's or "index 1"), and (with `title`)
// one key entry showing both.
std::string series_clause(const std::string& file, const char* with, double line_width, std::size_t index, const std::string& marks,
                          const std::optional<std::string>& title);

// `set xtics` for a log axis of seconds, labelled in the units people read durations in ("1 min",
// "1 h", "10 d") rather than as numbers of six decimals.
std::string duration_log_tics();

}  // namespace gpusim::report
