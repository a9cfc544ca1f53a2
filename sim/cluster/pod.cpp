#include "sim/cluster/pod.hpp"

namespace gpusim::cluster {

const char* to_string(Qos qos) {
  switch (qos) {
    case Qos::kUnspecified: return "";
    case Qos::kLatencySensitive: return "LS";
    case Qos::kBestEffort: return "BE";
    case Qos::kBurstable: return "Burstable";
    case Qos::kGuaranteed: return "Guaranteed";
  }
  return "";
}

const char* to_string(TracePhase phase) {
  switch (phase) {
    case TracePhase::kUnknown: return "";
    case TracePhase::kRunning: return "Running";
    case TracePhase::kSucceeded: return "Succeeded";
    case TracePhase::kFailed: return "Failed";
    case TracePhase::kPending: return "Pending";
  }
  return "";
}

}  // namespace gpusim::cluster
