#pragma once
// One spelling rule for policy and plugin names everywhere (command line, configuration files): names
// match ignoring case and the separators '-', '_', '.' and ' ', so the FGD paper's "BestFit",
// "best_fit" and gpusim's "bestfit" are one name. Outputs always print the canonical name.
#include <string>
#include <string_view>

namespace gpusim::sched {

// The comparison key of a name: lower case, separators dropped.
std::string name_key(std::string_view name);

}  // namespace gpusim::sched
