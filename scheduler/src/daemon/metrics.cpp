#include "daemon/metrics.hpp"

#include <cmath>
#include <cstdio>

namespace tightpack::daemon {
namespace {

const char* result_name(Metrics::Result r) {
  switch (r) {
    case Metrics::Result::Scheduled:
      return "scheduled";
    case Metrics::Result::Unschedulable:
      return "unschedulable";
    case Metrics::Result::Error:
      return "error";
  }
  return "error";
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

double Metrics::bound(size_t i) {
  return 0.001 * std::pow(2.0, static_cast<double>(i));
}

void Metrics::Histogram::observe(double v) {
  for (size_t i = 0; i < kBuckets; ++i) {
    if (v <= bound(i)) ++counts[i];
  }
  ++count;
  sum += v;
}

void Metrics::attempt(const std::string& profile, Result result, double seconds) {
  std::lock_guard lock(m_);
  ++attempts_[{profile, result}];
  durations_[{profile, result}].observe(seconds);
}

void Metrics::preemption(int victims) {
  std::lock_guard lock(m_);
  ++preemption_attempts_;
  victims_.observe(victims);
}

void Metrics::pending(size_t active, size_t backoff, size_t unschedulable) {
  std::lock_guard lock(m_);
  active_ = active;
  backoff_ = backoff;
  unschedulable_ = unschedulable;
}

void Metrics::leader(bool is_leader) {
  std::lock_guard lock(m_);
  leader_ = is_leader;
}

void Metrics::binding(double seconds, bool ok) {
  std::lock_guard lock(m_);
  binding_.observe(seconds);
  if (!ok) ++binding_errors_;
}

void Metrics::api_error() {
  std::lock_guard lock(m_);
  ++api_errors_;
}

void Metrics::events_dropped(size_t n) {
  std::lock_guard lock(m_);
  events_dropped_ += n;
}

void Metrics::unreadable(size_t pods, size_t nodes, size_t reduced_pods) {
  std::lock_guard lock(m_);
  unreadable_pods_ = pods;
  unreadable_nodes_ = nodes;
  reduced_pods_ = reduced_pods;
}

void Metrics::move_started() {
  std::lock_guard lock(m_);
  ++moves_started_;
}

void Metrics::move_ended(bool done) {
  std::lock_guard lock(m_);
  ++(done ? moves_done_ : moves_abandoned_);
}

void Metrics::moves_in_flight(size_t n) {
  std::lock_guard lock(m_);
  moves_in_flight_ = n;
}

void Metrics::snapshot_built(double seconds) {
  std::lock_guard lock(m_);
  snapshot_builds_.observe(seconds);
}

void Metrics::write_histogram(std::string& out, const std::string& name, const std::string& labels,
                              const Histogram& h) {
  const std::string sep = labels.empty() ? "" : ",";
  for (size_t i = 0; i < kBuckets; ++i) {
    out += name + "_bucket{" + labels + sep + "le=\"" + number(bound(i)) + "\"} " +
           std::to_string(h.counts[i]) + "\n";
  }
  out += name + "_bucket{" + labels + sep + "le=\"+Inf\"} " + std::to_string(h.count) + "\n";
  const std::string braces = labels.empty() ? "" : "{" + labels + "}";
  out += name + "_sum" + braces + " " + number(h.sum) + "\n";
  out += name + "_count" + braces + " " + std::to_string(h.count) + "\n";
}

namespace {

// A metric family's HELP and TYPE lines, as the text format wants them first.
void family(std::string& out, const char* name, const char* type, const char* help) {
  out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

}  // namespace

std::string Metrics::text(const std::string& lease_name) const {
  std::lock_guard lock(m_);
  std::string out;
  family(out, "scheduler_schedule_attempts_total", "counter",
         "Number of attempts to schedule pods, by the result.");
  for (const auto& [k, v] : attempts_) {
    out += "scheduler_schedule_attempts_total{profile=\"" + k.first + "\",result=\"" +
           result_name(k.second) + "\"} " + std::to_string(v) + "\n";
  }
  family(out, "scheduler_scheduling_attempt_duration_seconds", "histogram",
         "Scheduling attempt latency in seconds (scheduling algorithm + binding).");
  for (const auto& [k, h] : durations_) {
    write_histogram(out, "scheduler_scheduling_attempt_duration_seconds",
                    "profile=\"" + k.first + "\",result=\"" + result_name(k.second) + "\"", h);
  }
  family(out, "scheduler_pending_pods", "gauge", "Number of pending pods, by the queue type.");
  out += "scheduler_pending_pods{queue=\"active\"} " + std::to_string(active_) + "\n";
  out += "scheduler_pending_pods{queue=\"backoff\"} " + std::to_string(backoff_) + "\n";
  out += "scheduler_pending_pods{queue=\"unschedulable\"} " + std::to_string(unschedulable_) + "\n";
  family(out, "scheduler_preemption_attempts_total", "counter",
         "Total preemption attempts in the cluster till now.");
  out += "scheduler_preemption_attempts_total " + std::to_string(preemption_attempts_) + "\n";
  family(out, "scheduler_preemption_victims", "histogram",
         "Number of selected preemption victims.");
  write_histogram(out, "scheduler_preemption_victims", "", victims_);
  family(out, "leader_election_master_status", "gauge",
         "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 "
         "indicates master.");
  out +=
      "leader_election_master_status{name=\"" + lease_name + "\"} " + (leader_ ? "1" : "0") + "\n";
  family(out, "tightpack_binding_duration_seconds", "histogram",
         "Latency of the pods/binding call.");
  write_histogram(out, "tightpack_binding_duration_seconds", "", binding_);
  family(out, "tightpack_binding_errors_total", "counter",
         "Bindings the API refused or that failed.");
  out += "tightpack_binding_errors_total " + std::to_string(binding_errors_) + "\n";
  family(out, "tightpack_api_errors_total", "counter",
         "API calls other than bindings that failed.");
  out += "tightpack_api_errors_total " + std::to_string(api_errors_) + "\n";
  family(out, "tightpack_events_dropped_total", "counter",
         "Events not sent because too many were waiting.");
  out += "tightpack_events_dropped_total " + std::to_string(events_dropped_) + "\n";
  family(out, "tightpack_unreadable_objects", "gauge",
         "Watched objects that do not decode: a bound pod's node counts as full, a node is not "
         "schedulable, a pending pod of ours is told why.");
  out += "tightpack_unreadable_objects{kind=\"pod\"} " + std::to_string(unreadable_pods_) + "\n";
  out += "tightpack_unreadable_objects{kind=\"node\"} " + std::to_string(unreadable_nodes_) + "\n";
  family(out, "tightpack_reduced_pods", "gauge",
         "Pods kept without what goes beyond the per-object budget: without their tolerations "
         "(counted, unmovable in forecasts), or as a stand-in that fills its node.");
  out += "tightpack_reduced_pods " + std::to_string(reduced_pods_) + "\n";
  family(out, "tightpack_snapshot_build_duration_seconds", "histogram",
         "Time to redact and serialise /snapshot, once per build.");
  write_histogram(out, "tightpack_snapshot_build_duration_seconds", "", snapshot_builds_);
  family(out, "tightpack_moves_started_total", "counter",
         "Moves of Dask workers off a node begun: a worker group raised (--move-dask-workers).");
  out += "tightpack_moves_started_total " + std::to_string(moves_started_) + "\n";
  family(out, "tightpack_moves_ended_total", "counter",
         "Moves ended: done (the node has none of the group's workers) or abandoned (the user's "
         "size kept, or the raise undone).");
  out += "tightpack_moves_ended_total{result=\"done\"} " + std::to_string(moves_done_) + "\n";
  out += "tightpack_moves_ended_total{result=\"abandoned\"} " + std::to_string(moves_abandoned_) +
         "\n";
  family(out, "tightpack_moves_in_flight", "gauge", "Moves begun and not ended.");
  out += "tightpack_moves_in_flight " + std::to_string(moves_in_flight_) + "\n";
  return out;
}

}  // namespace tightpack::daemon
