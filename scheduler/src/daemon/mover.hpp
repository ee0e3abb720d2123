// Move, don't evict, in the cluster: the leader plans moves of opted-in Dask
// operator workers with core's planner (packing/moves.hpp) on the watch
// cache, and carries each out through the operator (move_steps.hpp): the
// worker group raised, the node closed to this scheduler's placements so the
// replacements go where the plan said, the node named `emptying` to the
// cluster's tightpack-dask preload once they run, the group lowered once the
// preload has drained it. Every write is conditional on the object's
// resourceVersion: a size the user set meanwhile is never overwritten. A
// leader that takes over undoes what the last one began (the state is on the
// DaskCluster). A dask-gateway cluster's count lives in its Dask scheduler:
// there the cluster's preload raises and lowers it as the mover's answers
// say (`replace` on /dask/v1/nodes, move_board.hpp), and a move lives only
// in this leader and that preload, which lowers the count again when no
// leader names the node. Off unless `tightpack schedule --move-dask-workers`.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "daemon/metrics.hpp"
#include "daemon/move_steps.hpp"
#include "daemon/scheduler.hpp"
#include "kube/api_client.hpp"
#include "kube/client_config.hpp"
#include "kube/rate_limiter.hpp"
#include "tightpack/packing/moves.hpp"

namespace tightpack::daemon {

struct MoverOptions {
  std::chrono::milliseconds interval{60000};  // between two plans
  std::chrono::milliseconds tick{2000};       // between two looks at the moves in flight
  MoveTimeouts timeouts;
  size_t max_moves = 4;                    // in flight, cluster-wide
  int64_t max_use_percent = 75;            // packing::MoveRules'
  std::chrono::seconds cooldown{600};      // a Dask cluster's rest after one of its moves ended
  std::chrono::seconds asked_within{120};  // its preload asked /dask/v1/nodes within this
  std::string identity;
};

class Mover {
 public:
  using Clock = std::chrono::steady_clock;
  Mover(MoverOptions options, Scheduler& scheduler,
        std::shared_ptr<const kube::ClientConfig> client,
        std::shared_ptr<kube::RateLimiter> limiter, Metrics& metrics);
  ~Mover();
  // Until when a write may be sent (the leader elector's valid_until); unset: always.
  void set_write_fence(std::function<Clock::time_point()> valid_until);
  void start();
  // Active: the leader's. Becoming active first undoes moves another began.
  void set_active(bool active);
  void stop();

 private:
  struct Move {
    std::string ns, cluster;
    MoveState state;
    bool gateway = false;       // a dask-gateway cluster: its preload makes and breaks
    bool acknowledged = false;  // (gateway) its preload said it raised the count
    std::string key() const { return ns + "/" + cluster; }
  };

  void loop();
  void recover();
  void plan();
  void begin(const packing::ScenarioMove& planned, const autoscaler::AutoscaleScenario& s);
  void advance(Move& move, bool room_wanted);
  // Ends a move: its annotation removed, the node opened, the metric counted.
  // By value: `move` may be the entry of moves_ it erases.
  void end(Move move, bool done, const std::string& why);

  // API calls, each bounded by the write fence.
  std::optional<std::chrono::milliseconds> budget() const;
  struct Group {
    int64_t replicas = 0;
    std::string resource_version;
  };
  // nullopt with `gone` when the group is not there (404).
  std::optional<Group> get_group(const std::string& ns, const std::string& name, bool& gone);
  bool set_replicas(const std::string& ns, const std::string& group, const Group& seen,
                    int64_t replicas);
  bool write_state(const Move& move, bool remove);
  // nullopt: the API did not say (no right to read it, an error).
  std::optional<bool> exists(const std::string& path);
  void close_nodes();

  MoverOptions options_;
  Scheduler& scheduler_;
  Metrics& metrics_;
  kube::ApiClient api_;
  std::function<Clock::time_point()> valid_until_;
  std::map<std::string, Move> moves_;                      // by namespace/cluster
  std::map<std::string, Clock::time_point> rested_until_;  // by namespace/cluster
  Clock::time_point next_plan_{};
  std::optional<Clock::time_point> room_wanted_since_;  // since a pod of ours waits for room

  std::mutex m_;
  std::condition_variable cv_;
  bool active_ = false, recovered_ = false, stopping_ = false;
  std::thread thread_;
};

}  // namespace tightpack::daemon
