// The daemon's Prometheus metrics, named as kube-scheduler names the same
// things so that existing dashboards and alerts read them.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace tightpack::daemon {

class Metrics {
 public:
  enum class Result { Scheduled, Unschedulable, Error };

  // scheduler_schedule_attempts_total and scheduler_scheduling_attempt_duration_seconds.
  void attempt(const std::string& profile, Result result, double seconds);
  void preemption(
      int victims);  // scheduler_preemption_attempts_total, scheduler_preemption_victims
  void pending(size_t active, size_t backoff, size_t unschedulable);  // scheduler_pending_pods
  void leader(bool is_leader);            // leader_election_master_status
  void binding(double seconds, bool ok);  // tightpack_binding_duration_seconds (kube-scheduler's is
                                          // a framework extension point)
  void api_error();                       // tightpack_api_errors_total
  void events_dropped(size_t n);          // tightpack_events_dropped_total
  void snapshot_built(double seconds);    // tightpack_snapshot_build_duration_seconds
  // tightpack_unreadable_objects{kind} and tightpack_reduced_pods
  void unreadable(size_t pods, size_t nodes, size_t reduced_pods);

  // tightpack_moves_started_total, tightpack_moves_ended_total{result}, tightpack_moves_in_flight
  void move_started();
  void move_ended(bool done);
  void moves_in_flight(size_t n);

  std::string text(const std::string& lease_name) const;

 private:
  // kube-scheduler's buckets: exponential from 1 ms, factor 2, 15 buckets.
  static constexpr size_t kBuckets = 15;
  struct Histogram {
    std::array<uint64_t, kBuckets> counts{};
    uint64_t count = 0;
    double sum = 0;
    void observe(double v);
  };
  static double bound(size_t i);
  static void write_histogram(std::string& out, const std::string& name, const std::string& labels,
                              const Histogram& h);

  mutable std::mutex m_;
  std::map<std::pair<std::string, Result>, uint64_t> attempts_;
  std::map<std::pair<std::string, Result>, Histogram> durations_;
  uint64_t preemption_attempts_ = 0;
  Histogram victims_;
  size_t active_ = 0, backoff_ = 0, unschedulable_ = 0;
  bool leader_ = false;
  Histogram binding_;
  uint64_t binding_errors_ = 0;
  uint64_t api_errors_ = 0;
  uint64_t events_dropped_ = 0;
  Histogram snapshot_builds_;
  size_t unreadable_pods_ = 0, unreadable_nodes_ = 0, reduced_pods_ = 0;
  uint64_t moves_started_ = 0, moves_done_ = 0, moves_abandoned_ = 0;
  size_t moves_in_flight_ = 0;
};

}  // namespace tightpack::daemon
