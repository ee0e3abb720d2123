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

void RequestPacer::forget_full_buckets(std::unordered_map<std::string, Bucket>& buckets,
                                       Clock::time_point now) {
  std::erase_if(buckets, [&](const auto& entry) {
    return refill(entry.second, limits_.per_client_rate, limits_.per_client_burst, now).tokens >=
           limits_.per_client_burst;
  });
}

std::optional<RequestPacer::Clock::duration> RequestPacer::reserve(const std::string& client,
                                                                   Clock::time_point now,
                                                                   const std::string& credential) {
  auto it = clients_.find(client);
  if (it == clients_.end()) {
    if (clients_.size() >= limits_.max_clients) forget_full_buckets(clients_, now);
    if (clients_.size() >= limits_.max_clients) return std::nullopt;
  }
  auto held = credential.empty() ? credentials_.end() : credentials_.find(credential);
  bool paced_apart = !credential.empty();
  if (paced_apart && held == credentials_.end() && credentials_.size() >= limits_.max_clients) {
    forget_full_buckets(credentials_, now);
    paced_apart = credentials_.size() < limits_.max_clients;
  }
  auto bucket_of = [&](auto at, auto end) {
    return at == end ? Bucket{limits_.per_client_burst, now}
                     : refill(at->second, limits_.per_client_rate, limits_.per_client_burst, now);
  };
  Bucket mine = bucket_of(it, clients_.end());
  Bucket theirs = bucket_of(held, credentials_.end());
  // The shared bucket fills at the rate sized before this client is counted:
  // the rate so far, then the one its request makes.
  const double rate = sized_rate(now);
  Bucket all = all_.at == Clock::time_point::min() ? Bucket{limits_.burst, now}
                                                   : refill(all_, rate, limits_.burst, now);
  mine.tokens -= 1;
  all.tokens -= 1;
  theirs.tokens -= paced_apart ? 1 : 0;
  // A negative balance is the turns taken ahead of this one.
  const double wait = std::max({0.0, -mine.tokens / limits_.per_client_rate,
                                -theirs.tokens / limits_.per_client_rate, -all.tokens / rate});
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
  if (paced_apart) credentials_.insert_or_assign(credential, theirs);
  all_ = all;
  return std::chrono::duration_cast<Clock::duration>(Seconds(wait));
}

}  // namespace tightpack::daemon
