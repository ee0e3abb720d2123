// client-go's leader election on a coordination.k8s.io/v1 Lease: try to
// acquire every retryPeriod; the holder renews every retryPeriod and gives up
// when no renewal succeeded for renewDeadline; another candidate takes over
// once it has seen the same record for leaseDuration.
//
// Fencing: the lease is known to be ours until renewDeadline after the start
// of the last renewal that succeeded (valid_until). Another candidate cannot
// take it before leaseDuration after it saw that renewal, which is later, so
// a write sent before valid_until cannot meet another leader's. Every lease
// request is bounded by valid_until too, so that a stalled renewal cannot
// keep the holder believing it leads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "daemon/daemon_config.hpp"
#include "kube/api_client.hpp"

namespace tightpack::daemon {

class LeaderElector {
 public:
  LeaderElector(LeaderElection config, std::string identity,
                std::shared_ptr<const kube::ClientConfig> client,
                std::shared_ptr<kube::RateLimiter> limiter);
  ~LeaderElector();

  // `on_started` when this replica becomes the leader, `on_lost` when it was
  // and is no more (then the elector stops).
  void start(std::function<void()> on_started, std::function<void()> on_lost);
  // Ends the elector; when leading and `release`, hands the lease back so the
  // next replica need not wait for it to expire.
  void stop(bool release);
  bool leader() const { return leader_; }
  // Until when this replica may write as the leader; the epoch when it is not
  // the leader.
  std::chrono::steady_clock::time_point valid_until() const;
  // kube-scheduler's leader-election health check (client-go's
  // HealthzAdaptor, 20 s tolerance): empty when healthy, else why not. A
  // leader whose lease expired that long ago without its noticing is stuck.
  std::string health() const;
  const std::string& identity() const { return identity_; }
  std::string lease_path() const;

 private:
  void run();
  // client-go's tryAcquireOrRenew.
  bool try_acquire_or_renew();
  void release();
  bool sleep_for(std::chrono::milliseconds d);

  LeaderElection config_;
  std::string identity_;
  kube::ApiClient client_;
  std::function<void()> on_started_, on_lost_;
  std::atomic<bool> leader_{false};
  std::atomic<bool> stopping_{false};
  std::mutex m_;
  std::condition_variable cv_;
  std::thread thread_;
  // What we last saw in the lease, and when it last changed (by our clock:
  // clocks of replicas need not agree).
  std::string observed_holder_, observed_renew_;
  int64_t observed_transitions_ = 0;
  std::chrono::steady_clock::time_point observed_at_{};
  std::string acquire_time_;
  std::atomic<std::chrono::steady_clock::rep> valid_until_{0};
};

}  // namespace tightpack::daemon
