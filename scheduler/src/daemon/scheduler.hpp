// The in-cluster scheduler: the watch cache feeds the queue, one loop decides
// pod after pod with the engine (the same decide() as `tightpack replay` and
// the sidebar), assumes the chosen node and hands the binding to the API
// workers; pods that fit nowhere get kube-scheduler's condition and Event, and
// may preempt lower-priority pods.
#pragma once

#include <atomic>
#include <boost/json/value.hpp>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "daemon/cache.hpp"
#include "daemon/daemon_config.hpp"
#include "daemon/metrics.hpp"
#include "daemon/move_board.hpp"
#include "daemon/queue.hpp"
#include "daemon/snapshot.hpp"
#include "daemon/unreadable.hpp"
#include "daemon/volume_binder.hpp"
#include "kube/api_workers.hpp"
#include "kube/reflector.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/pools/pools.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::daemon {

struct SchedulerOptions {
  SchedulerConfiguration profiles;
  DaemonConfig daemon;
  boost::json::value scheduler_configuration;  // the document, published by /snapshot
  std::optional<boost::json::value> pools;     // the NodePools document, published by /snapshot
  std::optional<pools::PoolsConfig>
      pools_config;     // the same, decoded: min sizes for /dask/v1/nodes
  Published published;  // --publish: the sidebar's profiles and dask-gateway's worker settings
  size_t bind_workers = 16;
  std::string hostname;
};

class Scheduler {
 public:
  Scheduler(SchedulerOptions options, std::shared_ptr<const kube::ClientConfig> client,
            Metrics& metrics);
  ~Scheduler();

  // Starts the watches; decisions wait for set_active(true).
  void start();
  // Leader or not: only an active scheduler takes pods from the queue.
  void set_active(bool active);
  // Until when a write (a binding, a status patch, a victim's deletion) may
  // be sent: the leader elector's valid_until. Without a fence (no leader
  // election) every write may. A write that would leave later is not sent.
  void set_write_fence(std::function<Clock::time_point()> valid_until);
  // Stops taking pods, gives binds in flight up to `grace` to finish, ends
  // the watches. Returns the number of API calls abandoned.
  size_t stop(std::chrono::milliseconds grace);

  bool synced() const;
  // Why the watch cache cannot keep up with the API server (a list or watch
  // refused again and again), or empty: /readyz reports it.
  std::string watch_problem() const;
  // The redacted cluster view /snapshot serves in `form`, and its entity
  // tag. Built again only when the cache changed and at most every
  // `interval`; the redaction holds the decision lock, writing the text does
  // not.
  struct PublishedSnapshot {
    std::string body;
    std::string etag;
  };
  std::shared_ptr<const PublishedSnapshot> snapshot(
      PodForm form = PodForm::kExpanded, std::chrono::milliseconds interval = kSnapshotInterval);

  // /home's answer for a hub user the hub has vouched for (storage_publish.hpp).
  std::string home(const std::string& user, const std::string& hub_namespace);
  // /dask/v1/nodes's answer: per node with a worker of the Dask cluster
  // `name` in `ns`, its workers and whether anything else keeps it
  // (tightpack/dask_nodes.hpp), for tightpack-dask's preload.
  // `report`: what its preload said of moves (move_board.hpp); nodes a move
  // is emptying are answered `"emptying": true`, and a dask-gateway move's
  // node `"replace": k`.
  std::string dask_nodes(const std::string& ns, const std::string& name, PreloadReport report = {});

  // For the mover (mover.hpp).
  MoveBoard& move_board() { return board_; }
  const SchedulerConfiguration& profiles() const { return options_.profiles; }
  // Nodes being emptied: no pod this scheduler places goes there.
  void set_closed(std::set<std::string> nodes);
  // The cluster as cluster-autoscaler sees it, one node group per pool of
  // --pools (their min sizes), pending pods of every scheduler included;
  // nullopt without --pools. Copied under the lock, planned on without it.
  std::optional<autoscaler::AutoscaleScenario> autoscale_scenario();
  // Pods of ours that no node takes now.
  size_t unschedulable_pods();

  // For the spawn page and the events on waiting pods (wait_outlooks.hpp).
  // The watch cache as cluster-autoscaler sees it, copied under the lock.
  pools::ClusterSnapshot cluster_snapshot();
  // --pools, decoded; nullopt without it.
  const std::optional<pools::PoolsConfig>& pools_config() const { return options_.pools_config; }
  // Pods of ours that wait for room: their last attempt found no node and
  // nominated none. Empty while not active.
  struct WaitingPod {
    std::string key, profile;
    autoscaler::CaPod pod;
  };
  std::vector<WaitingPod> waiting_pods();
  // Posts an event on a pod of ours, as the profile's scheduler, when active.
  void report(const WaitingPod& pod, const std::string& type, const std::string& reason,
              const std::string& note);
  // The workers (not terminating) in `ns` of a Dask operator worker group,
  // or with `gateway` of the dask-gateway cluster `name`: those running
  // (phase Running) on nodes other than `node`, and those on it.
  struct GroupWorkers {
    int64_t running_elsewhere = 0, on_node = 0, all = 0;
  };
  GroupWorkers group_workers(const std::string& ns, const std::string& name,
                             const std::string& node, bool gateway = false);
  static constexpr std::chrono::milliseconds kSnapshotInterval{3000};

 private:
  // Seconds from `t` to now, for the attempt and binding durations.
  static double seconds_since(Clock::time_point t);
  // Watch handlers.
  kube::ReflectorHandler node_handler();
  kube::ReflectorHandler pod_handler();
  kube::ReflectorHandler pdb_handler();
  kube::ReflectorHandler object_handler(const WatchedKind& kind);
  void on_pod(autoscaler::CaPod pod);  // under m_
  void on_pod_gone(const std::string& key);
  // Objects that do not decode (unreadable.hpp); each under m_.
  void pod_unreadable(UnreadablePod pod, bool listed);
  void node_unreadable(const std::string& name, std::string error);
  bool own_pending(const UnreadablePod& pod) const;
  void report_unreadable(const UnreadablePod& pod);  // its event and condition, when active
  void update_unreadable_metric();
  void requeue_if_pending(const PodRecord& rec);
  bool ours(const Pod& pod) const;
  // A pending pod of one of our profiles, not terminating, not gated.
  bool ours_to_place(const PodRecord& rec) const;
  bool schedulable(
      const PodRecord& rec) const;  // ours to place and not assumed: belongs in the queue

  void loop();
  void schedule_one(const std::string& key);  // under m_
  void fail(const std::string& key, const PodRecord& rec, const std::string& profile,
            const std::string& reason, const std::string& message, const std::string& nominated);
  bool eligible_to_preempt(const Pod& pod);
  // Nominates a node and evicts its victims; returns the nominated node and
  // words d's message after this choice (disruption budgets and start times
  // known here can pick another node than decide() named).
  std::string preempt(const std::string& key, const PodRecord& rec, const PodPlan& plan,
                      PlanScratch& scratch, Decision& d);

  // VolumeBinding's PreBind (volume_binder.hpp): the claims of a pod placed
  // on `node` are bound before the pod is; `claim_uids` for the volumes'
  // claimRefs.
  void bind_volumes_then_pod(const std::string& key, const Pod& pod, const std::string& node,
                             BindingPlan claims, const std::string& profile,
                             int64_t timeout_seconds, Clock::time_point started);
  void check_volume_waits(Clock::time_point now);                                  // under m_
  void volume_binding_failed(const std::string& key, const std::string& message);  // under m_

  // API calls, run by the workers.
  void bind(kube::ApiClient& api, const std::string& key, const std::string& uid,
            const std::string& node, const std::string& profile, Clock::time_point started);
  void patch_status(kube::ApiClient& api, const std::string& ns, const std::string& name,
                    const boost::json::object& status);
  void delete_victim(kube::ApiClient& api, const std::string& ns, const std::string& name,
                     const std::string& uid);
  void event(const std::string& ns, const std::string& name, const std::string& uid,
             const std::string& profile, const std::string& type, const std::string& reason,
             const std::string& action, const std::string& note);
  void update_pending_metric();  // under m_
  // How long a write may take from now (at most 30 s), or nothing when the
  // fence forbids it.
  std::optional<std::chrono::milliseconds> write_budget() const;
  // m_ for any thread but the loop's: it announces itself so that the loop
  // steps aside between two pods.
  std::unique_lock<std::mutex> lock_for_update();

  SchedulerOptions options_;
  std::shared_ptr<const kube::ClientConfig> client_;
  Metrics& metrics_;
  std::shared_ptr<kube::RateLimiter> limiter_, event_limiter_;

  mutable std::mutex m_;
  std::atomic<int> waiting_{0};
  std::condition_variable cv_;
  ClusterCache cache_;
  SchedulingQueue queue_;
  MoveBoard board_;
  // The Unschedulable message last written to each pod's condition: the same
  // message is not patched again.
  std::unordered_map<std::string, std::string> condition_written_;
  std::map<std::string, UnreadablePod> unreadable_pods_;  // by key
  std::map<std::string, std::string> unreadable_nodes_;   // name -> the decoder's message
  bool active_ = false;
  bool stopping_ = false;
  // Pods assumed on a node whose claims are being bound: the API writes in
  // flight (no wait yet), then the wait for the claims to be bound.
  struct VolumeBindingInFlight {
    std::string uid, profile;
    Clock::time_point started;
    std::optional<VolumeBindingWait> wait;
  };
  std::map<std::string, VolumeBindingInFlight> volume_bindings_;
  Clock::time_point volumes_checked_{};

  std::mutex snapshot_m_;  // one builder at a time; never taken under m_
  struct SnapshotOfForm {
    std::shared_ptr<const PublishedSnapshot> snapshot;
    uint64_t generation = 0;
    Clock::time_point built{};
  };
  SnapshotOfForm snapshots_[2];  // by PodForm

  std::function<Clock::time_point()> write_fence_;  // set before start()
  std::unique_ptr<kube::ApiWorkers> workers_, event_workers_;
  std::vector<std::unique_ptr<kube::Reflector>> reflectors_;
  std::thread loop_;
};

}  // namespace tightpack::daemon
