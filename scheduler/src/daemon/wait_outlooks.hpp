// The event on a pod of ours that no node takes, saying what
// cluster-autoscaler will do for it: "No node has room for this pod now;
// cluster-autoscaler adds a node to pool gpu-t4, ready in about 9 minutes",
// or at once, when it cannot, why. KubeSpawner streams a pod's events to the
// spawn page's progress bar, so a user waiting for her server reads it there
// with no change to the hub.
//
// The prediction is the engine's (pools::predict_scale_up on the watch cache
// with the --pools document, the pod beside every other pending pod, as
// cluster-autoscaler sees them), worded by outlook.hpp as the spawn page and
// `tightpack predict` word it. A pod's wait is counted down from when it was
// first predicted, not predicted afresh each time: a node already being made
// is not yet in the cluster, and the wait must not start again.
//
// Posted when the words change, at most once a minute per pod (the minutes
// counting down), by the leader only, through the scheduler's event workers
// and their rate limit (kube-scheduler's events are limited the same way).
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "daemon/scheduler.hpp"
#include "tightpack/pools/pools.hpp"
#include "tightpack/what_if/outlook.hpp"

namespace tightpack::daemon {

class WaitOutlooks {
 public:
  using Clock = std::chrono::steady_clock;
  WaitOutlooks(Scheduler& scheduler, pools::PoolsConfig pools);
  ~WaitOutlooks();
  void start();
  void stop();

  // How often the waiting pods are looked at: a pod that cannot be helped
  // hears so within this of its first failed attempt.
  static constexpr std::chrono::seconds kInterval{5};
  // A pod's event is posted again no sooner than this (its countdown).
  static constexpr std::chrono::seconds kRepeat{60};
  // Pods predicted per look; the rest wait for the next (each prediction runs
  // cluster-autoscaler's loop on the whole cluster; a ReplicaSet's replicas
  // share one).
  static constexpr size_t kPerRound = 16;

 private:
  struct Told {
    std::string uid;
    Outlook outlook;
    Clock::time_point since;   // when this outlook was first predicted
    Clock::time_point posted;  // when the note below was posted
    std::string note;
  };
  void loop();
  void round(Clock::time_point now);
  // Posts `outlook` on `w` when its words changed since it was last told.
  void tell(const Scheduler::WaitingPod& w, const Outlook& outlook, Clock::time_point now);

  Scheduler& scheduler_;
  pools::PoolsConfig pools_;
  std::map<std::string, Told> told_;  // by pod key; the loop's thread only

  std::mutex m_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace tightpack::daemon
