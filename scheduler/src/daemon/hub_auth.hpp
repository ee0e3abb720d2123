// Who a JupyterHub API token belongs to, asked of the hub itself as
// JupyterHub's own services ask it (jupyterhub.services.auth.HubAuth:
// GET {hub API}/user with "Authorization: token <t>", which names the
// token's owner). A notebook server holds its user's token
// ($JUPYTERHUB_API_TOKEN); /home answers with that user's home claims only.
//
// Any pod can reach the daemon, so: the token never appears in a log or an
// answer; answers are cached by the token's SHA-256 (60 s for a user, 10 s
// for a refusal), so a caller cannot make the daemon flood the hub; a
// service's token is refused (it names no user); the hub's answer is read to
// at most 64 KiB within 5 s.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "tightpack/error.hpp"

namespace tightpack::daemon {

// --hub-api-url: http://host[:port]/path, e.g. http://hub:8081/hub/api (the
// hub's internal API, plain HTTP inside the cluster as zero-to-jupyterhub
// serves it; https is not supported).
struct HubEndpoint {
  std::string url, host, port, prefix;  // prefix without a trailing "/"
};
Result<HubEndpoint> parse_hub_api_url(std::string_view url);

struct HubDecision {
  unsigned status =
      200;             // 200, 401 (no or unknown token), 403 (not a user's), 503 (the hub failed)
  std::string user;    // on 200
  std::string reason;  // for the answer and the log; never the token
};

class HubAuth {
 public:
  using Clock = std::chrono::steady_clock;
  explicit HubAuth(HubEndpoint endpoint) : endpoint_(std::move(endpoint)) {}

  // `authorization` is the request's header ("token <t>" or "Bearer <t>").
  // Thread-safe; the hub is asked outside the lock.
  HubDecision check(const std::string& authorization);

  static constexpr std::chrono::seconds kUserTtl{60}, kRefusalTtl{10}, kTimeout{5};
  static constexpr size_t kCacheLimit = 4096, kMaxAnswerBytes = size_t{64} * 1024;
  static constexpr size_t kConcurrentAsks = 2;

 private:
  HubDecision ask(const std::string& token) const;

  struct Cached {
    HubDecision decision;
    Clock::time_point until;
  };
  HubEndpoint endpoint_;
  std::mutex m_;
  std::unordered_map<std::string, Cached> cache_;  // by SHA-256 of the token
  size_t asking_ = 0;                              // asks of the hub under way
};

}  // namespace tightpack::daemon
