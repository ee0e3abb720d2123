#include "log.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string>

namespace tightpack {
namespace {

std::mutex log_mutex;

void write(const char* severity, std::string_view message) {
  const std::string stamp = utc_timestamp(3);
  std::lock_guard lock(log_mutex);
  std::fprintf(stderr, "%s %s %.*s\n", stamp.c_str(), severity, static_cast<int>(message.size()),
               message.data());
  std::fflush(stderr);
}

}  // namespace

std::string utc_timestamp(int fraction_digits) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
      1000000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char out[48];
  const size_t n = std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%S", &tm);
  if (fraction_digits == 3) {
    std::snprintf(out + n, sizeof out - n, ".%03dZ", static_cast<int>(us / 1000));
  } else if (fraction_digits == 6) {
    std::snprintf(out + n, sizeof out - n, ".%06dZ", static_cast<int>(us));
  } else {
    std::snprintf(out + n, sizeof out - n, "Z");
  }
  return out;
}

void log_info(std::string_view message) {
  write("info", message);
}
void log_warning(std::string_view message) {
  write("warning", message);
}
void log_error(std::string_view message) {
  write("error", message);
}

}  // namespace tightpack
