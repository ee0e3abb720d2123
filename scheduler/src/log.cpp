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
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  std::lock_guard lock(log_mutex);
  std::fprintf(stderr, "%s.%03dZ %s %.*s\n", stamp, static_cast<int>(ms), severity, static_cast<int>(message.size()),
               message.data());
  std::fflush(stderr);
}

}  // namespace

void log_info(std::string_view message) { write("info", message); }
void log_warning(std::string_view message) { write("warning", message); }
void log_error(std::string_view message) { write("error", message); }

}  // namespace tightpack
