// The scheduler's life: the watches it starts, leadership, the write fence and
// an orderly stop (kube-scheduler's scheduler.go). Its other parts, along
// kube-scheduler's seams: event_handlers.cpp, schedule_one.cpp,
// binding_cycle.cpp, api_calls.cpp and views.cpp.
#include "daemon/scheduler.hpp"

#include <algorithm>

#include "daemon/write_fence.hpp"

namespace tightpack::daemon {

double Scheduler::seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

Scheduler::Scheduler(SchedulerOptions options, std::shared_ptr<const kube::ClientConfig> client,
                     Metrics& metrics)
    : options_(std::move(options)),
      client_(std::move(client)),
      metrics_(metrics),
      limiter_(std::make_shared<kube::RateLimiter>(options_.daemon.qps, options_.daemon.burst)),
      // kube-scheduler's events go through a client of their own, with the same limits.
      event_limiter_(
          std::make_shared<kube::RateLimiter>(options_.daemon.qps, options_.daemon.burst)),
      queue_(options_.daemon.initial_backoff, options_.daemon.max_backoff) {
  cache_.set_places([this](const Pod& pod) { return ours(pod); });
}

Scheduler::~Scheduler() {
  stop(std::chrono::milliseconds(0));
}

bool Scheduler::ours(const Pod& pod) const {
  const std::string& name =
      pod.scheduler_name.empty() ? std::string("default-scheduler") : pod.scheduler_name;
  return options_.profiles.find(name) != nullptr;
}

void Scheduler::start() {
  // Binds, status patches and victim deletions: a bounded backlog, so that a
  // slow API server costs retries, not memory. A bind that finds it full is
  // forgotten and its pod backs off (schedule_one); a patch or a deletion is
  // made again by the pod's next attempt.
  workers_ = std::make_unique<kube::ApiWorkers>(options_.bind_workers, client_, limiter_, 10000);
  // Events are best effort, as kube-scheduler's broadcaster's are: a bounded
  // backlog, the overflow dropped and counted.
  event_workers_ = std::make_unique<kube::ApiWorkers>(
      std::max<size_t>(2, options_.bind_workers / 4), client_, event_limiter_, 10000);
  reflectors_.push_back(std::make_unique<kube::Reflector>("/api/v1/nodes", "nodes", client_,
                                                          limiter_, node_handler()));
  reflectors_.push_back(
      std::make_unique<kube::Reflector>("/api/v1/pods", "pods", client_, limiter_, pod_handler()));
  reflectors_.push_back(std::make_unique<kube::Reflector>("/apis/policy/v1/poddisruptionbudgets",
                                                          "poddisruptionbudgets", client_, limiter_,
                                                          pdb_handler()));
  for (const WatchedKind& kind : kWatchedKinds) {
    reflectors_.push_back(std::make_unique<kube::Reflector>(kind.path, kind.resource, client_,
                                                            limiter_, object_handler(kind)));
  }
  for (auto& r : reflectors_) r->start();
  loop_ = std::thread([this] { loop(); });
}

void Scheduler::set_active(bool active) {
  {
    auto lock = lock_for_update();
    active_ = active;
    // Own pods that cannot be read are told so by whoever leads.
    if (active_) {
      for (const auto& [key, pod] : unreadable_pods_) {
        if (own_pending(pod)) report_unreadable(pod);
      }
    }
  }
  cv_.notify_all();
}

bool Scheduler::own_pending(const UnreadablePod& pod) const {
  Pod named;
  named.scheduler_name = pod.scheduler_name;
  return ours(named) && pod.node_name.empty() && !pod.deleting && pod.phase != "Succeeded" &&
         pod.phase != "Failed";
}

void Scheduler::set_write_fence(std::function<Clock::time_point()> valid_until) {
  write_fence_ = std::move(valid_until);
}

std::optional<std::chrono::milliseconds> Scheduler::write_budget() const {
  return daemon::write_budget(write_fence_, std::chrono::seconds(30));
}

size_t Scheduler::stop(std::chrono::milliseconds grace) {
  {
    auto lock = lock_for_update();
    if (stopping_) return 0;
    stopping_ = true;
    active_ = false;
  }
  cv_.notify_all();
  if (loop_.joinable()) loop_.join();
  size_t abandoned = 0;
  if (workers_) abandoned += workers_->drain(grace);
  if (event_workers_)
    abandoned += event_workers_->drain(std::min(grace, std::chrono::milliseconds(2000)));
  for (auto& r : reflectors_) r->stop();
  return abandoned;
}

bool Scheduler::synced() const {
  if (reflectors_.empty()) return false;
  for (const auto& r : reflectors_) {
    if (!r->synced()) return false;
  }
  return true;
}

std::string Scheduler::watch_problem() const {
  for (const auto& r : reflectors_) {
    if (r->forbidden()) {
      return "the API server refused to list or watch " + r->what() + " " +
             std::to_string(kube::Reflector::kForbiddenLimit) +
             " times in a row (401/403): the scheduler's credentials lack a right it needs "
             "(docs/deploy.md)";
    }
  }
  return "";
}

}  // namespace tightpack::daemon
