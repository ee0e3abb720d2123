// The daemon's log: one line per event on standard error, prefixed with the
// UTC time and the severity, as a log collector expects.
#pragma once

#include <string_view>

namespace tightpack {

void log_info(std::string_view message);
void log_warning(std::string_view message);
void log_error(std::string_view message);

}  // namespace tightpack
