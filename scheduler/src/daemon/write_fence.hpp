// How long a write may take from now under a leader's fence (the leader
// elector's valid_until): at most `longest`, and nothing once the lease may
// have passed to another replica. Without a fence (no leader election) every
// write may take `longest`.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>

namespace tightpack::daemon {

inline std::optional<std::chrono::milliseconds> write_budget(
    const std::function<std::chrono::steady_clock::time_point()>& valid_until,
    std::chrono::milliseconds longest) {
  if (!valid_until) return longest;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      valid_until() - std::chrono::steady_clock::now());
  if (left <= std::chrono::milliseconds(0)) return std::nullopt;
  return std::min(left, longest);
}

}  // namespace tightpack::daemon
