// The framing of a watch stream: one JSON event per line, in chunks that cut
// lines anywhere. Kept apart from the connection so that it can be fuzzed on
// its own (fuzz/fuzz_watch_lines.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tightpack::kube {

class WatchLines {
 public:
  enum class Fed {
    More,       // every complete line handed on; waiting for the rest
    Stopped,    // on_line returned false
    Oversized,  // the unfinished line is longer than the limit: the stream is broken
  };

  explicit WatchLines(size_t max_line) : max_line_(max_line) {}

  // Appends `chunk` and hands each complete, non-empty line (without its
  // '\n') to on_line. Only the unfinished line is searched again, not all
  // that is pending, so a long event costs its length once.
  template <class OnLine>
  Fed feed(std::string_view chunk, OnLine&& on_line) {
    const size_t searched = pending_.size();
    pending_.append(chunk);
    size_t start = 0;
    Fed result = Fed::More;
    for (size_t nl, from = searched; (nl = pending_.find('\n', from)) != std::string::npos;
         start = from = nl + 1) {
      if (nl > start && !on_line(std::string_view(pending_).substr(start, nl - start))) {
        start = nl + 1;
        result = Fed::Stopped;
        break;
      }
    }
    pending_.erase(0, start);
    if (result == Fed::More && pending_.size() > max_line_) result = Fed::Oversized;
    return result;
  }

  // What arrived after the last '\n'.
  std::string_view pending() const { return pending_; }

 private:
  std::string pending_;
  size_t max_line_;
};

}  // namespace tightpack::kube
