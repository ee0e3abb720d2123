// helper.DefaultNormalizeScore: scales scores so the maximum becomes 100,
// optionally reversed; all-zero scores stay 0 (or become 100 when reversed).
#pragma once

#include <cstdint>

#include "tightpack/go_int.hpp"

namespace tightpack::plugins {

inline constexpr int64_t kMaxNodeScore = 100;

inline int64_t default_normalize(int64_t score, int64_t max_score, bool reverse) {
  if (max_score == 0) return reverse ? kMaxNodeScore : score;
  if (score == 0) return reverse ? kMaxNodeScore : 0;  // most nodes: no division
  int64_t s = go_div(kMaxNodeScore * score, max_score);
  return reverse ? kMaxNodeScore - s : s;
}

}  // namespace tightpack::plugins
