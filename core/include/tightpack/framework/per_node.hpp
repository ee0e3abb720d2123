// A per-node verdict or score computed once per combination of the labels
// it reads: the nodes of a pool share them, so a plan for 1,000 nodes of
// three pools asks three times.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "tightpack/cluster.hpp"

namespace tightpack {

// Calls compute(n) once per distinct combination of the values of `keys`
// and fills the result for every node; when the verdict also depends on the
// node's name, or on many keys, once per node.
template <class Compute>
std::vector<int64_t> per_node_by_labels(const Cluster& c, std::vector<std::string> keys,
                                        bool uses_name, Compute&& compute) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<int64_t> out(c.size());
  if (uses_name || keys.size() > 2) {
    for (NodeIndex i = 0; i < c.size(); ++i) out[i] = compute(i);
    return out;
  }
  const std::vector<StrId>* first = keys.size() > 0 ? c.label_column(keys[0]) : nullptr;
  const std::vector<StrId>* second = keys.size() > 1 ? c.label_column(keys[1]) : nullptr;
  std::unordered_map<uint64_t, int64_t> memo;
  for (NodeIndex i = 0; i < c.size(); ++i) {
    uint64_t key =
        (first ? (*first)[i] : kNoStr) | (uint64_t{second ? (*second)[i] : kNoStr} << 32);
    auto [it, fresh] = memo.try_emplace(key, 0);
    if (fresh) it->second = compute(i);
    out[i] = it->second;
  }
  return out;
}

}  // namespace tightpack
