#include "daemon/request_pacer.hpp"

#include <algorithm>

namespace tightpack::daemon {
namespace {

using Seconds = std::chrono::duration<double>;

}  // namespace

RequestPacer::RequestPacer(PacerLimits limits) : limits_(limits), shared_rate_(limits.rate) {
  all_.tokens = limits_.burst;
  all_.at = Clock::time_point::min();
}

double RequestPacer::sized_rate(Clock::time_point now) {
  if (sized_at_ != Clock::time_point::min() && now - sized_at_ < std::chrono::seconds(1))
    return shared_rate_;
  sized_at_ = now;
  const auto since = now - limits_.active_window;
  const auto active =
      static_cast<double>(std::count_if(clients_.begin(), clients_.end(), [&](const auto& entry) {
        return entry.second.asked >= since;
      }));
  shared_rate_ = std::clamp(active * limits_.per_active_client, limits_.rate,
                            std::max(limits_.rate, limits_.max_rate));
  return shared_rate_;
}

RequestPacer::Bucket RequestPacer::refill(Bucket b, double rate, double burst,
                                          Clock::time_point now) {
  if (now > b.at) {
    b.tokens = std::min(burst, b.tokens + rate * Seconds(now - b.at).count());
    b.at = now;
  }
  return b;
}

void RequestPacer::forget_full_buckets(Clock::time_point now) {
  std::erase_if(clients_, [&](const auto& entry) {
    return refill(entry.second, limits_.per_client_rate, limits_.per_client_burst, now).tokens >=
           limits_.per_client_burst;
  });
}

std::optional<RequestPacer::Clock::duration> RequestPacer::reserve(const std::string& client,
                                                                   Clock::time_point now) {
  auto it = clients_.find(client);
  if (it == clients_.end()) {
    if (clients_.size() >= limits_.max_clients) forget_full_buckets(now);
    if (clients_.size() >= limits_.max_clients) return std::nullopt;
  }
  Bucket mine = it == clients_.end()
                    ? Bucket{limits_.per_client_burst, now}
                    : refill(it->second, limits_.per_client_rate, limits_.per_client_burst, now);
  // The shared bucket fills at the rate sized before this client is counted:
  // the rate so far, then the one its request makes.
  const double rate = sized_rate(now);
  Bucket all = all_.at == Clock::time_point::min() ? Bucket{limits_.burst, now}
                                                   : refill(all_, rate, limits_.burst, now);
  mine.tokens -= 1;
  all.tokens -= 1;
  // A negative balance is the turns taken ahead of this one.
  const double wait = std::max({0.0, -mine.tokens / limits_.per_client_rate, -all.tokens / rate});
  if (Seconds(wait) > limits_.max_wait) {
    // Refused, nothing taken; but it asked, and the shared rate counts it.
    if (it != clients_.end()) {
      it->second.asked = now;
    } else {
      clients_.emplace(client, Bucket{limits_.per_client_burst, now, now});
    }
    return std::nullopt;
  }
  mine.asked = now;
  clients_.insert_or_assign(client, mine);
  all_ = all;
  return std::chrono::duration_cast<Clock::duration>(Seconds(wait));
}

}  // namespace tightpack::daemon
