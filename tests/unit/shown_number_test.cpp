// The one rounding rule of stdout and report.md: half away from zero on the value summary.json
// stores, so a mean and its stored copy always read the same.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sim/report/shown_number.hpp"

namespace gpusim::report {
namespace {

TEST(ShownNumber, ATieOfTheStoredValueRoundsAwayFromZero) {
  // 90.815 is stored as 90.81499999999999773 in binary: fmt's {:.2f} writes 90.81, the rule 90.82.
  EXPECT_EQ(decimals(90.815, 2), "90.82");
  EXPECT_EQ(decimals(-90.815, 2), "-90.82");
  EXPECT_EQ(decimals(1.005, 2), "1.01");
  EXPECT_EQ(decimals(2.5, 0), "3");
  EXPECT_EQ(decimals(-0.035, 2), "-0.04");
  EXPECT_EQ(decimals(0.125, 2), "0.13");
  EXPECT_EQ(decimals(90.8149, 2), "90.81");
  EXPECT_DOUBLE_EQ(shown_value(90.815, 2), 90.82);
}

TEST(ShownNumber, AMeanAndItsStoredCopyReadTheSame) {
  // The mean stdout printed (unrounded) and the one report.md read back from summary.json.
  for (const double mean : {90.81500000000001, 90.81499999999999, 90.8150000004, 12.345, 0.0049999999, 1234567.125}) {
    for (int places = 0; places <= 6; ++places) {
      EXPECT_EQ(decimals(mean, places), decimals(summary_value(mean), places)) << mean << " to " << places;
    }
  }
  EXPECT_EQ(decimals(90.81500000000001, 2), "90.82");
  EXPECT_EQ(decimals(90.81499999999999, 2), "90.82");
}

TEST(ShownNumber, SignsZerosAndOddValues) {
  EXPECT_EQ(decimals(-0.001, 2), "0.00");  // no "-0.00"
  EXPECT_EQ(decimals(-0.0, 2), "0.00");
  EXPECT_EQ(decimals(7, 0), "7");
  EXPECT_EQ(decimals(0.5, 1), "0.5");
  EXPECT_EQ(decimals(3.14159265, 6), "3.141593");
  EXPECT_EQ(signed_decimals(0.05, 2), "+0.05");
  EXPECT_EQ(signed_decimals(-0.03, 2), "-0.03");
  EXPECT_EQ(signed_decimals(0, 2), "+0.00");
  EXPECT_EQ(decimals(std::numeric_limits<double>::quiet_NaN(), 2), "nan");
  EXPECT_EQ(decimals(std::numeric_limits<double>::infinity(), 2), "inf");
  EXPECT_EQ(decimals(2.5e12, 2), "2500000000000.00");  // beyond the exact range: as fmt writes it
  EXPECT_THROW(decimals(1, 7), std::invalid_argument);
  EXPECT_THROW(decimals(1, -1), std::invalid_argument);
}

}  // namespace
}  // namespace gpusim::report
