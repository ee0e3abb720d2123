#include "daemon/leader_election.hpp"

#include <boost/json.hpp>
#include <random>

#include "log.hpp"

namespace tightpack::daemon {
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

LeaderElector::LeaderElector(LeaderElection config, std::string identity,
                             std::shared_ptr<const kube::ClientConfig> client,
                             std::shared_ptr<kube::RateLimiter> limiter)
    : config_(std::move(config)),
      identity_(std::move(identity)),
      client_(std::move(client), std::move(limiter)) {}

LeaderElector::~LeaderElector() {
  stop(false);
}

std::string LeaderElector::lease_path() const {
  return "/apis/coordination.k8s.io/v1/namespaces/" + config_.resource_namespace + "/leases/" +
         config_.resource_name;
}

void LeaderElector::start(std::function<void()> on_started, std::function<void()> on_lost) {
  on_started_ = std::move(on_started);
  on_lost_ = std::move(on_lost);
  thread_ = std::thread([this] { run(); });
}

void LeaderElector::stop(bool release_lease) {
  {
    std::lock_guard lock(m_);
    if (stopping_.exchange(true)) return;
  }
  cv_.notify_all();
  client_.cancel();
  if (thread_.joinable()) thread_.join();
  const bool was_leader = leader_;
  leader_ = false;
  valid_until_ = 0;
  if (release_lease && was_leader) {
    client_.reset();
    release();
  }
}

bool LeaderElector::sleep_for(std::chrono::milliseconds d) {
  std::unique_lock lock(m_);
  return !cv_.wait_for(lock, d, [&] { return stopping_.load(); });
}

void LeaderElector::run() {
  static thread_local std::mt19937 rng(std::random_device{}());
  // Acquire: retryPeriod with client-go's jitter factor 1.2.
  while (!stopping_) {
    if (try_acquire_or_renew()) break;
    std::uniform_real_distribution<double> jitter(1.0, 2.2);
    if (!sleep_for(std::chrono::milliseconds(
            static_cast<int64_t>(static_cast<double>(config_.retry_period.count()) * jitter(rng)))))
      return;
  }
  if (stopping_) return;
  leader_ = true;
  log_info("leader election: " + identity_ + " holds the lease " + config_.resource_namespace +
           "/" + config_.resource_name);
  on_started_();
  while (sleep_for(config_.retry_period)) {
    if (try_acquire_or_renew()) continue;
    if (stopping_) return;
    if (Clock::now() >= valid_until()) {
      leader_ = false;
      valid_until_ = 0;
      log_error("leader election: lost the lease " + config_.resource_namespace + "/" +
                config_.resource_name + ": no renewal succeeded within the renew deadline");
      on_lost_();
      return;
    }
  }
}

Clock::time_point LeaderElector::valid_until() const {
  return Clock::time_point(Clock::duration(valid_until_.load()));
}

std::string LeaderElector::health() const {
  if (!leader_) return "";
  const auto tolerated =
      valid_until() - config_.renew_deadline + config_.lease_duration + std::chrono::seconds(20);
  if (Clock::now() <= tolerated) return "";
  return "failed election to renew leadership on lease " + config_.resource_name;
}

bool LeaderElector::try_acquire_or_renew() {
  const auto sent = Clock::now();
  // The holder's requests end by the lease's validity; a candidate's take as
  // long as any request.
  std::chrono::milliseconds timeout = std::chrono::seconds(30);
  if (leader_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(valid_until() - sent);
    if (left <= std::chrono::milliseconds(0)) return false;
    timeout = std::min(timeout, left);
  }
  const auto remaining = [&] {
    return std::max(
        std::chrono::milliseconds(0),
        timeout - std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - sent));
  };
  const auto confirm = [&] {
    valid_until_ = (sent + config_.renew_deadline).time_since_epoch().count();
  };
  const std::string now = utc_timestamp(6);
  const int64_t lease_seconds = std::max<int64_t>(1, config_.lease_duration.count() / 1000);
  auto r = client_.request("GET", lease_path(), {}, "application/json", remaining());
  if (!r) {
    log_warning("leader election: " + r.error().what());
    return false;
  }
  if (r->status == 404) {
    acquire_time_ = now;
    json::object lease{
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", {{"name", config_.resource_name}, {"namespace", config_.resource_namespace}}},
        {"spec",
         {{"holderIdentity", identity_},
          {"leaseDurationSeconds", lease_seconds},
          {"acquireTime", now},
          {"renewTime", now},
          {"leaseTransitions", 0}}}};
    auto c = client_.request(
        "POST", "/apis/coordination.k8s.io/v1/namespaces/" + config_.resource_namespace + "/leases",
        json::serialize(lease), "application/json", remaining());
    if (!c || !c->ok()) {
      log_warning("leader election: cannot create the lease: " +
                  (c ? kube::api_error_text(*c) : c.error().what()));
      return false;
    }
    confirm();
    observed_holder_ = identity_;
    observed_renew_ = now;
    observed_at_ = Clock::now();
    return true;
  }
  if (!r->ok()) {
    log_warning("leader election: " + kube::api_error_text(*r));
    return false;
  }
  boost::system::error_code ec;
  json::value lease = json::parse(r->body, ec);
  if (ec || !lease.is_object()) return false;
  json::value& spec_value = lease.as_object()["spec"];
  if (!spec_value.is_object()) spec_value.emplace_object();
  json::object& spec = spec_value.as_object();
  auto str = [&](const char* k) -> std::string {
    const json::value* v = spec.if_contains(k);
    return v && v->is_string() ? std::string(v->get_string()) : "";
  };
  auto num = [&](const char* k) -> int64_t {
    const json::value* v = spec.if_contains(k);
    return v && v->is_int64() ? v->get_int64() : 0;
  };
  const std::string holder = str("holderIdentity"), renew = str("renewTime");
  const int64_t transitions = num("leaseTransitions");
  const int64_t their_seconds = num("leaseDurationSeconds");
  if (holder != observed_holder_ || renew != observed_renew_ ||
      observed_at_ == Clock::time_point{}) {
    observed_holder_ = holder;
    observed_renew_ = renew;
    observed_transitions_ = transitions;
    observed_at_ = Clock::now();
  }
  const auto their_duration =
      std::chrono::seconds(their_seconds > 0 ? their_seconds : lease_seconds);
  if (!holder.empty() && holder != identity_ && observed_at_ + their_duration > Clock::now())
    return false;
  const bool was_mine = holder == identity_;
  if (!was_mine) acquire_time_ = now;
  spec["holderIdentity"] = identity_;
  spec["leaseDurationSeconds"] = lease_seconds;
  spec["renewTime"] = now;
  spec["acquireTime"] = acquire_time_.empty() ? now : acquire_time_;
  spec["leaseTransitions"] = was_mine ? transitions : transitions + 1;
  // The resourceVersion from the GET makes this a compare-and-swap: when
  // another replica wrote first the API answers 409 and we try again later.
  auto u =
      client_.request("PUT", lease_path(), json::serialize(lease), "application/json", remaining());
  if (!u) {
    log_warning("leader election: " + u.error().what());
    return false;
  }
  if (!u->ok()) {
    if (u->status != 409)
      log_warning("leader election: cannot update the lease: " + kube::api_error_text(*u));
    return false;
  }
  confirm();
  observed_holder_ = identity_;
  observed_renew_ = now;
  observed_at_ = Clock::now();
  return true;
}

void LeaderElector::release() {
  auto r = client_.request("GET", lease_path(), {}, "application/json", std::chrono::seconds(5));
  if (!r || !r->ok()) return;
  boost::system::error_code ec;
  json::value lease = json::parse(r->body, ec);
  if (ec || !lease.is_object()) return;
  auto& spec = lease.as_object()["spec"];
  if (!spec.is_object()) return;
  auto& s = spec.as_object();
  if (const auto* h = s.if_contains("holderIdentity");
      !h || !h->is_string() || h->get_string() != identity_)
    return;
  const std::string now = utc_timestamp(6);
  s["holderIdentity"] = "";
  s["leaseDurationSeconds"] = 1;
  s["renewTime"] = now;
  s["acquireTime"] = now;
  auto u = client_.request("PUT", lease_path(), json::serialize(lease), "application/json",
                           std::chrono::seconds(5));
  if (u && u->ok()) {
    log_info("leader election: released the lease " + config_.resource_namespace + "/" +
             config_.resource_name);
  } else {
    log_warning("leader election: could not release the lease: " +
                (u ? kube::api_error_text(*u) : u.error().what()));
  }
}

}  // namespace tightpack::daemon
