#pragma once
// The settings HAMi's Helm chart has (charts/hami values.yaml and what its templates read), to
// refuse a values file's misspelt or invented keys rather than ignore them.
#include <cstdint>
#include <string_view>

namespace gpusim::k8s {

enum class ChartKey : std::uint8_t {
  kUnknown,  // the chart has no such setting
  kMap,      // a map of the chart's settings (e.g. "devicePlugin")
  kSetting,  // a setting (e.g. "devicePlugin.deviceSplitCount"), or inside a map the chart passes on
             // whole (e.g. "devicePlugin.resources.limits.cpu")
};

// `path` is dotted from the top of the values.
ChartKey hami_chart_key(std::string_view path);

}  // namespace gpusim::k8s
