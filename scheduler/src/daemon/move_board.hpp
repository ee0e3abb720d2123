// What the mover and the Dask clusters' tightpack-dask preloads tell each
// other through /dask/v1/nodes: the nodes a move is emptying (answered as
// `emptying`), the nodes a cluster's preload has drained (asked as
// `drained=`), and when each cluster last asked (a move is planned only for
// a cluster whose preload is there to drain it). Keyed by "namespace/cluster".
// Only clusters with workers are recorded (dask_nodes), and one that has not
// asked for kForgetAfter is forgotten: clusters end, and any caller may ask
// about any name in a namespace it can read.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tightpack::daemon {

class MoveBoard {
 public:
  using Clock = std::chrono::steady_clock;
  // Longer than any question the mover asks of the board (MoverOptions::asked_within).
  static constexpr std::chrono::minutes kForgetAfter{10};

  void asked(const std::string& cluster, std::set<std::string> drained, Clock::time_point now) {
    std::lock_guard lock(m_);
    if (now - pruned_ >= std::chrono::minutes(1)) {
      std::erase_if(asked_,
                    [&](const auto& entry) { return now - entry.second.at > kForgetAfter; });
      pruned_ = now;
    }
    Asked& a = asked_[cluster];
    a.at = now;
    a.drained = std::move(drained);
  }
  std::optional<Clock::time_point> last_asked(const std::string& cluster) const {
    std::lock_guard lock(m_);
    auto it = asked_.find(cluster);
    return it == asked_.end() ? std::nullopt : std::optional(it->second.at);
  }
  // The clusters that asked at or after `since`.
  std::vector<std::string> asked_since(Clock::time_point since) const {
    std::lock_guard lock(m_);
    std::vector<std::string> out;
    for (const auto& [cluster, a] : asked_) {
      if (a.at >= since) out.push_back(cluster);
    }
    return out;
  }
  bool drained(const std::string& cluster, const std::string& node) const {
    std::lock_guard lock(m_);
    auto it = asked_.find(cluster);
    return it != asked_.end() && it->second.drained.contains(node);
  }
  void set_emptying(const std::string& cluster, std::set<std::string> nodes) {
    std::lock_guard lock(m_);
    if (nodes.empty()) {
      emptying_.erase(cluster);
    } else {
      emptying_[cluster] = std::move(nodes);
    }
  }
  std::set<std::string> emptying(const std::string& cluster) const {
    std::lock_guard lock(m_);
    auto it = emptying_.find(cluster);
    return it == emptying_.end() ? std::set<std::string>{} : it->second;
  }

 private:
  struct Asked {
    Clock::time_point at;
    std::set<std::string> drained;
  };
  mutable std::mutex m_;
  std::map<std::string, Asked> asked_;
  Clock::time_point pruned_{};
  std::map<std::string, std::set<std::string>> emptying_;
};

}  // namespace tightpack::daemon
