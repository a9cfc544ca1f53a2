// The pieces of gnuplot script that tell policies apart and name a duration axis.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

#include "sim/report/plot_style.hpp"

namespace gpusim::report {
namespace {

TEST(PlotStyle, TheFirstEightSeriesDifferInColourDashAndMarkPairs) {
  std::set<std::string> colours;
  std::set<std::pair<int, int>> dash_and_point;
  std::set<std::tuple<std::string, int, int>> styles;
  for (std::size_t i = 0; i < 8; ++i) {
    const SeriesStyle style = series_style(i);
    colours.insert(style.colour);
    dash_and_point.insert({style.dash, style.point});
  }
  EXPECT_EQ(colours.size(), 8U);
  EXPECT_EQ(dash_and_point.size(), 8U) << "two lines of one colour blindness would read alike";
  // The cycles (8 colours, 5 dashes, 8 marks) repeat a whole style only after 40 series.
  for (std::size_t i = 0; i < 40; ++i) {
    const SeriesStyle style = series_style(i);
    styles.insert({style.colour, style.dash, style.point});
  }
  EXPECT_EQ(styles.size(), 40U);
}

TEST(PlotStyle, ASeriesIsItsLineItsMarksAndOneKeyEntry) {
  const std::string clause = series_clause("jct-cdf-fgd.dat", "steps", 2, 1, every_nth_row(400, 1, 3), "fgd");
  EXPECT_EQ(clause,
            "\"jct-cdf-fgd.dat\" index 0 using 1:2 with steps lc rgb '#ee6677' lw 2 dt 2 notitle, "
            "\"jct-cdf-fgd.dat\" every 50::16 using 1:2 with points lc rgb '#ee6677' pt 4 ps 0.9 notitle, "
            "keyentry with linespoints lc rgb '#ee6677' lw 2 dt 2 pt 4 ps 0.9 title \"fgd\" noenhanced");
  // Without a title (the fill plot's inset): no key entry.
  EXPECT_EQ(series_clause("a.dat", "lines", 2, 0, "index 1", std::nullopt).find("keyentry"), std::string::npos);
  EXPECT_EQ(every_nth_row(3, 0, 2), "every 1::0") << "fewer rows than marks: every row";
  EXPECT_EQ(quoted("my \"odd\" policy\\"), "\"my \\\"odd\\\" policy\\\\\"");
}

TEST(PlotStyle, ALogDurationAxisTicksInUnitsPeopleRead) {
  const std::string tics = duration_log_tics();
  EXPECT_EQ(tics.rfind("set xtics (", 0), 0U) << tics;
  for (const char* tick : {"\"1 s\" 1,", "\"1 min\" 60,", "\"1 h\" 3600,", "\"1 d\" 86400,", "\"100 d\" 8.64e+06,"}) {
    EXPECT_NE(tics.find(tick), std::string::npos) << tick << " in " << tics;
  }
  EXPECT_EQ(tics.find("0.0000"), std::string::npos);
}

}  // namespace
}  // namespace gpusim::report
