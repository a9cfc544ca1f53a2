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

}  // namespace gpusim::cluster
