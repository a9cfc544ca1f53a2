#pragma once
// Numbers as gpusim shows them to people (stdout, report.md): one rounding rule, so that two
// places never show the same figure differently. A figure is first taken as summary.json stores it
// (rounded to 6 decimals), then rounded half away from zero to the decimals shown. A mean computed
// as 90.81499999999999 in one place and stored as 90.815 in another reads 90.82 in both.
#include <string>

namespace gpusim::report {

// `x` as summary.json stores it: the nearest multiple of 1e-6 (ties to even), so that the files
// read well and diff cleanly.
double summary_value(double x);

// summary_value(x) rounded half away from zero to `places` decimals (0 to 6).
double shown_value(double x, int places);

// shown_value(x, places) written with exactly `places` decimals ("-0.00" reads "0.00"); NaN and
// infinities as fmt writes them.
std::string decimals(double x, int places);

// As decimals, with a sign always: "+0.05", "-0.03", "+0.00".
std::string signed_decimals(double x, int places);

}  // namespace gpusim::report
