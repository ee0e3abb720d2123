// The watch stream's framing (scheduler/src/kube/watch_lines.hpp): the input
// is cut into chunks of sizes read from its first bytes, with a small line
// limit so that oversized lines are reached. Checked: the lines handed on are
// exactly the non-empty lines of the input, in order, up to where the stream
// stopped; a line longer than the limit is reported, never handed on whole
// nor held beyond one chunk past the limit; stopping on request stops.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "kube/watch_lines.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const size_t max_line = 1 + data[0] % 64;
  const size_t stop_after = data[1] % 16;  // 0: never ask to stop
  const uint8_t chunking = data[2];
  std::string_view text(reinterpret_cast<const char*>(data + 3), size - 3);

  tightpack::kube::WatchLines lines(max_line);
  std::vector<std::string> got;
  size_t fed_bytes = 0, at = 0, round = 0;
  tightpack::kube::WatchLines::Fed last = tightpack::kube::WatchLines::Fed::More;
  while (at < text.size() && last == tightpack::kube::WatchLines::Fed::More) {
    const size_t n = std::min(text.size() - at, size_t{1} + (chunking * (round + 7)) % 97);
    const size_t chunk_size = n;
    last = lines.feed(text.substr(at, n), [&](std::string_view line) {
      check(!line.empty() && line.find('\n') == std::string_view::npos);
      got.emplace_back(line);
      return stop_after == 0 || got.size() < stop_after;
    });
    at += n;
    fed_bytes += n;
    ++round;
    if (last == tightpack::kube::WatchLines::Fed::Oversized) {
      check(lines.pending().size() > max_line);
      // Nothing longer than the limit was held before this chunk.
      check(lines.pending().size() <= max_line + chunk_size);
    } else {
      check(lines.pending().size() <= max_line ||
            last == tightpack::kube::WatchLines::Fed::Stopped);
    }
  }
  if (last == tightpack::kube::WatchLines::Fed::Stopped)
    check(stop_after != 0 && got.size() == stop_after);

  // The lines handed on are the first non-empty lines of what was fed.
  std::vector<std::string> want;
  std::string_view fed = text.substr(0, fed_bytes);
  size_t start = 0;
  for (size_t nl; (nl = fed.find('\n', start)) != std::string_view::npos; start = nl + 1) {
    if (nl > start) want.emplace_back(fed.substr(start, nl - start));
  }
  check(got.size() <= want.size());
  for (size_t i = 0; i < got.size(); ++i) check(got[i] == want[i]);
  if (last != tightpack::kube::WatchLines::Fed::Stopped) check(got.size() == want.size());
  if (last == tightpack::kube::WatchLines::Fed::More) {
    check(lines.pending() == fed.substr(start));
  }
  return 0;
}
