// The writes to the API server: the binding, the status patch, a victim's
// deletion, events; each fenced by the lease.
#include <boost/json.hpp>

#include "daemon/scheduler.hpp"
#include "log.hpp"
#include "tightpack/framework/preemption.hpp"
#include "tightpack/timestamp.hpp"

namespace tightpack::daemon {
namespace json = boost::json;

// ------------------------------------------------------------------ API calls

void Scheduler::bind(kube::ApiClient& api, const std::string& key, const std::string& uid,
                     const std::string& node, const std::string& profile,
                     Clock::time_point started) {
  const auto [ns, name] = split_key(key);
  {
    // The node may have gone while the binding waited for its turn.
    auto lock = lock_for_update();
    if (stopping_) return;
    if (!cache_.nodes().count(node)) {
      cache_.forget(key);
      if (const PodRecord* r = cache_.pod(key); r && r->pending())
        queue_.backoff(key, Clock::now());
      cv_.notify_all();
      return;
    }
  }
  json::object binding{{"apiVersion", "v1"},
                       {"kind", "Binding"},
                       {"metadata", {{"name", name}, {"namespace", ns}, {"uid", uid}}},
                       {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  const auto budget = write_budget();
  if (!budget) {
    // Leadership is no longer confirmed: another replica may be deciding
    // already. The room goes back; whoever leads next places the pod.
    log_warning("binding " + key + " to " + node + " not sent: the lease is not confirmed");
    auto lock = lock_for_update();
    cache_.forget(key);
    cv_.notify_all();
    return;
  }
  const auto t0 = Clock::now();
  auto r = api.request("POST", "/api/v1/namespaces/" + ns + "/pods/" + name + "/binding",
                       json::serialize(binding), "application/json", *budget);
  const bool ok = r && r->ok();
  metrics_.binding(seconds_since(t0), ok);
  auto lock = lock_for_update();
  if (ok) {
    metrics_.attempt(profile, Metrics::Result::Scheduled, seconds_since(started));
    event(ns, name, uid, profile, "Normal", "Scheduled", "Binding",
          "Successfully assigned " + ns + "/" + name + " to " + node);
    return;
  }
  // Not bound by us: give the room back. A 409 means the pod is bound
  // already (by us on an earlier try, or by someone else): the watch shows
  // where, and the pod is never bound again.
  cache_.forget(key);
  const std::string why = r ? kube::api_error_text(*r) : r.error().what();
  if (r && (r->status == 404 || r->status == 409)) {
    log_info("binding " + key + " to " + node + " not needed: " + why);
    if (r->status == 409) {
      if (const PodRecord* rec = cache_.pod(key); rec && rec->pending())
        queue_.backoff(key, Clock::now());
    }
    cv_.notify_all();
    return;
  }
  log_warning("binding " + key + " to " + node + " failed: " + why);
  metrics_.attempt(profile, Metrics::Result::Error, seconds_since(started));
  if (const PodRecord* rec = cache_.pod(key); rec && rec->pending()) {
    queue_.backoff(key, Clock::now());
    event(ns, name, uid, profile, "Warning", "FailedScheduling", "Scheduling",
          "Binding rejected: " + why);
  }
  cv_.notify_all();
}

void Scheduler::patch_status(kube::ApiClient& api, const std::string& ns, const std::string& name,
                             const json::object& status) {
  const std::string body = json::serialize(json::object{{"status", status}});
  const auto budget = write_budget();
  if (!budget) {
    log_warning("status of " + ns + "/" + name + " not written: the lease is not confirmed");
    auto lock = lock_for_update();
    condition_written_.erase(ns + "/" + name);
    return;
  }
  auto r = api.request("PATCH", "/api/v1/namespaces/" + ns + "/pods/" + name + "/status", body,
                       "application/strategic-merge-patch+json", *budget);
  if (r && (r->ok() || r->status == 404)) return;
  metrics_.api_error();
  log_warning("status of " + ns + "/" + name + ": " +
              (r ? kube::api_error_text(*r) : r.error().what()));
  // Let the next attempt write it again.
  auto lock = lock_for_update();
  condition_written_.erase(ns + "/" + name);
}

// A pod of our own that does not decode: what fail() writes for a pod that
// fits nowhere, with kube-scheduler's reason for an error.
void Scheduler::report_unreadable(const UnreadablePod& pod) {
  if (!active_) return;
  const std::string message =
      "tightpack cannot read this pod, so it does not schedule it: " + pod.error;
  const std::string written = "SchedulerError\n" + message + "\n";
  std::string& last = condition_written_[pod.key()];
  if (last == written) return;
  last = written;
  const std::string profile =
      pod.scheduler_name.empty() ? std::string("default-scheduler") : pod.scheduler_name;
  event(pod.ns, pod.name, pod.uid, profile, "Warning", "FailedScheduling", "Scheduling", message);
  json::object status{
      {"conditions", json::array{json::object{{"type", "PodScheduled"},
                                              {"status", "False"},
                                              {"reason", "SchedulerError"},
                                              {"message", message},
                                              {"lastProbeTime", nullptr},
                                              {"lastTransitionTime", utc_timestamp(0)}}}}};
  workers_->submit([this, ns = pod.ns, name = pod.name, status](kube::ApiClient& api) {
    patch_status(api, ns, name, status);
  });
}

void Scheduler::delete_victim(kube::ApiClient& api, const std::string& ns, const std::string& name,
                              const std::string& uid) {
  // The uid precondition: never delete a new pod that took the victim's name.
  json::object options{{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (!uid.empty()) options["preconditions"] = json::object{{"uid", uid}};
  const auto budget = write_budget();
  if (!budget) {
    log_warning("preemption: " + ns + "/" + name + " not deleted: the lease is not confirmed");
    return;
  }
  auto r = api.request("DELETE", "/api/v1/namespaces/" + ns + "/pods/" + name,
                       json::serialize(options), "application/json", *budget);
  if (r && (r->ok() || r->status == 404 || r->status == 409)) return;
  metrics_.api_error();
  log_warning("preemption: deleting " + ns + "/" + name + ": " +
              (r ? kube::api_error_text(*r) : r.error().what()));
}

void Scheduler::event(const std::string& ns, const std::string& name, const std::string& uid,
                      const std::string& profile, const std::string& type,
                      const std::string& reason, const std::string& action,
                      const std::string& note) {
  static std::atomic<uint64_t> sequence{0};
  const std::string now = utc_timestamp(6);
  char suffix[32];
  std::snprintf(
      suffix, sizeof suffix, ".%llx",
      static_cast<unsigned long long>(std::chrono::system_clock::now().time_since_epoch().count()) +
          sequence++);
  // events.k8s.io/v1, as kube-scheduler records them: the reporting controller
  // is the profile's schedulerName.
  json::object e{
      {"apiVersion", "events.k8s.io/v1"},
      {"kind", "Event"},
      {"metadata", {{"name", name + suffix}, {"namespace", ns}}},
      {"eventTime", now},
      {"reportingController", profile},
      {"reportingInstance", profile + "-" + options_.hostname},
      {"action", action},
      {"reason", reason},
      {"regarding",
       {{"apiVersion", "v1"}, {"kind", "Pod"}, {"namespace", ns}, {"name", name}, {"uid", uid}}},
      {"note", note.size() > 1024 ? note.substr(0, 1021) + "..." : note},
      {"type", type}};
  std::string body = json::serialize(e);
  const bool queued =
      event_workers_->submit([this, ns, body = std::move(body)](kube::ApiClient& api) {
        auto r = api.request("POST", "/apis/events.k8s.io/v1/namespaces/" + ns + "/events", body);
        if (!r || !r->ok()) {
          metrics_.api_error();
          log_warning("event in " + ns + ": " + (r ? kube::api_error_text(*r) : r.error().what()));
        }
      });
  if (!queued) metrics_.events_dropped(1);
}

}  // namespace tightpack::daemon
