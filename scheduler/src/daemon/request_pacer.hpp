// Turns for the daemon's costly answers. Any pod can ask /snapshot in a
// loop; a client that is made to wait spends nothing, where one refused at
// once comes straight back with another TLS handshake. So a request waits
// for its turn, per client address, per credential and in all (token buckets
// that reserve, as golang.org/x/time/rate's Reserve), and is refused only
// when its turn is further away than a client should be kept waiting. The
// credential's bucket paces a caller wherever it asks from: one user's many
// pods share her turn.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>

namespace tightpack::daemon {

struct PacerLimits {
  // Per client address: the sidebar's server asks at most every 5 s.
  double per_client_rate = 1;  // answers per second
  double per_client_burst = 5;
  // All clients together: at least this, more as more clients ask (below).
  double rate = 10;
  double burst = 20;
  // A turn further away than this is refused (429 with Retry-After).
  std::chrono::milliseconds max_wait{std::chrono::seconds(5)};
  // Client buckets kept at once; full ones are forgotten first.
  std::size_t max_clients = 4096;
  // The shared rate grows by `per_active_client` for each address that asked
  // within `active_window`, up to `max_rate`. A hub of 50 users whose sidebars
  // ask every 5 s asks 10 a second; of 400, 80: the rate follows the users,
  // and its ceiling bounds what many pods of one user can make the daemon send.
  double per_active_client = 0.4;  // twice what a sidebar asks
  double max_rate = 100;
  std::chrono::seconds active_window{60};
};

class RequestPacer {
 public:
  using Clock = std::chrono::steady_clock;
  explicit RequestPacer(PacerLimits limits = {});

  // How long the request must wait before it is served, its turn reserved;
  // nullopt, with nothing reserved, when that is longer than max_wait or no
  // room is left to remember the client. `credential` (a digest; "" for none,
  // or for one many callers share) has a bucket of its own, at the client
  // address's rate; when no room is left to remember it, it is not paced
  // apart, so that made-up credentials cannot lock a real one out.
  std::optional<Clock::duration> reserve(const std::string& client, Clock::time_point now,
                                         const std::string& credential = "");
  const PacerLimits& limits() const { return limits_; }
  std::size_t clients() const { return clients_.size(); }
  std::size_t credentials() const { return credentials_.size(); }
  // The rate all clients share now (answers a second), as of the last reserve.
  double shared_rate() const { return shared_rate_; }

 private:
  struct Bucket {
    double tokens = 0;
    Clock::time_point at;
    Clock::time_point asked;  // the client's last request
  };
  static Bucket refill(Bucket b, double rate, double burst, Clock::time_point now);
  void forget_full_buckets(std::unordered_map<std::string, Bucket>& buckets, Clock::time_point now);

  double sized_rate(Clock::time_point now);

  PacerLimits limits_;
  Bucket all_;
  std::unordered_map<std::string, Bucket> clients_;
  std::unordered_map<std::string, Bucket> credentials_;
  double shared_rate_ = 0;
  Clock::time_point sized_at_ = Clock::time_point::min();  // counted at most once a second
};

}  // namespace tightpack::daemon
