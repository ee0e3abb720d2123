// Turns for the daemon's costly answers. Any pod can ask /snapshot in a
// loop; a client that is made to wait spends nothing, where one refused at
// once comes straight back with another TLS handshake. So a request waits
// for its turn, per client address and in all (token buckets that reserve,
// as golang.org/x/time/rate's Reserve), and is refused only when its turn
// is further away than a client should be kept waiting.
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
  // All clients together.
  double rate = 10;
  double burst = 20;
  // A turn further away than this is refused (429 with Retry-After).
  std::chrono::milliseconds max_wait{std::chrono::seconds(5)};
  // Client buckets kept at once; full ones are forgotten first.
  std::size_t max_clients = 4096;
};

class RequestPacer {
 public:
  using Clock = std::chrono::steady_clock;
  explicit RequestPacer(PacerLimits limits = {});

  // How long the request must wait before it is served, its turn reserved;
  // nullopt, with nothing reserved, when that is longer than max_wait or no
  // room is left to remember the client.
  std::optional<Clock::duration> reserve(const std::string& client, Clock::time_point now);
  const PacerLimits& limits() const { return limits_; }
  std::size_t clients() const { return clients_.size(); }

 private:
  struct Bucket {
    double tokens = 0;
    Clock::time_point at;
  };
  static Bucket refill(Bucket b, double rate, double burst, Clock::time_point now);
  void forget_full_buckets(Clock::time_point now);

  PacerLimits limits_;
  Bucket all_;
  std::unordered_map<std::string, Bucket> clients_;
};

}  // namespace tightpack::daemon
