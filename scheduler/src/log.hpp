// The daemon's log: one line per event on standard error, prefixed with the
// UTC time and the severity, as a log collector expects.
#pragma once

#include <string>
#include <string_view>

namespace tightpack {

void log_info(std::string_view message);
void log_warning(std::string_view message);
void log_error(std::string_view message);

// Now in UTC as RFC 3339 with `fraction_digits` (0, 3 or 6) digits of the
// second: the log's stamps, metav1.Time (0) and metav1.MicroTime (6).
std::string utc_timestamp(int fraction_digits);

}  // namespace tightpack
