// What the mover and the Dask clusters' tightpack-dask preloads tell each
// other through /dask/v1/nodes: the nodes a move is emptying (answered as
// `emptying`), the nodes a cluster's preload has drained (asked as
// `drained=`), and when each cluster last asked (a move is planned only for
// a cluster whose preload is there to drain it). On a dask-gateway cluster,
// whose worker count lives in its Dask scheduler, the preload makes and
// breaks a move itself: the board answers how many workers to replace on a
// node (`replace`) and keeps what the preload said of it (`raised=`,
// `refused=`, `adaptive=`). Keyed by "namespace/cluster".
// Only clusters with workers are recorded (dask_nodes), and one that has not
// asked for kForgetAfter is forgotten: clusters end, and any caller may ask
// about any name in a namespace it can read.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tightpack::daemon {

// What a cluster's preload said in its last question.
struct PreloadReport {
  std::set<std::string> drained;  // nodes whose workers it has drained for a move
  std::set<std::string> raised;   // nodes whose workers it is replacing (dask-gateway)
  std::set<std::string> refused;  // nodes whose workers it would not replace
  bool adaptive = false;          // cluster.adapt() sets its count (dask-gateway)
};

class MoveBoard {
 public:
  using Clock = std::chrono::steady_clock;
  // Longer than any question the mover asks of the board (MoverOptions::asked_within).
  static constexpr std::chrono::minutes kForgetAfter{10};

  void asked(const std::string& cluster, PreloadReport report, Clock::time_point now) {
    std::lock_guard lock(m_);
    if (now - pruned_ >= std::chrono::minutes(1)) {
      std::erase_if(asked_,
                    [&](const auto& entry) { return now - entry.second.at > kForgetAfter; });
      pruned_ = now;
    }
    Asked& a = asked_[cluster];
    a.at = now;
    a.report = std::move(report);
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
    return it != asked_.end() && it->second.report.drained.contains(node);
  }
  // The last report; empty when the cluster has not asked.
  PreloadReport report(const std::string& cluster) const {
    std::lock_guard lock(m_);
    auto it = asked_.find(cluster);
    return it == asked_.end() ? PreloadReport{} : it->second.report;
  }
  // Whether its last question said it adapts (dask-gateway).
  bool adaptive(const std::string& cluster) const {
    std::lock_guard lock(m_);
    auto it = asked_.find(cluster);
    return it != asked_.end() && it->second.report.adaptive;
  }
  // A dask-gateway move's make: `count` workers to replace on `node`; 0 ends it.
  void set_replacing(const std::string& cluster, const std::string& node, int64_t count) {
    std::lock_guard lock(m_);
    if (count <= 0) {
      replacing_.erase(cluster);
    } else {
      replacing_[cluster] = {node, count};
    }
  }
  std::optional<std::pair<std::string, int64_t>> replacing(const std::string& cluster) const {
    std::lock_guard lock(m_);
    auto it = replacing_.find(cluster);
    return it == replacing_.end() ? std::nullopt : std::optional(it->second);
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
    PreloadReport report;
  };
  mutable std::mutex m_;
  std::map<std::string, Asked> asked_;
  Clock::time_point pruned_{};
  std::map<std::string, std::set<std::string>> emptying_;
  std::map<std::string, std::pair<std::string, int64_t>> replacing_;
};

}  // namespace tightpack::daemon
