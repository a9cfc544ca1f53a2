#pragma once
// The queue series of a run under a policy with queues of its own (queue-series.csv: Kueue's and
// KAI's metrics and gpusim's per-queue standings, sim/k8s/queue_metrics.hpp), as OpenMetrics
// families for `gpusim export openmetrics`: each series sampled at the export's times from its first
// point on, at the value it last changed to.
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <vector>

#include "sim/report/output_files.hpp"

namespace gpusim::report {

struct QueueSeriesFile {
  Table table;
  double last_time_s = 0;  // the last change
};

// Reads and checks queue-series.csv; throws core::InputError "file:line: field: why".
QueueSeriesFile read_queue_series(const std::filesystem::path& csv);

// Writes its families; `times` are seconds after `epoch`, in order.
void write_queue_families(const QueueSeriesFile& file, std::int64_t epoch, const std::vector<double>& times, std::ostream& out);

}  // namespace gpusim::report
