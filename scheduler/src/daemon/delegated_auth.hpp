// Who may read what the secure port serves, decided as kube-scheduler
// decides it (k8s.io/apiserver's delegating authenticator and authorizer):
// the caller's bearer token is reviewed by the API server (TokenReview), and
// the user it names must be allowed `get` on the path (SubjectAccessReview
// with nonResourceAttributes), e.g. by a ClusterRole with
// nonResourceURLs: ["/metrics"]. Answers are cached for 10 s, as there.
// /snapshot also takes a shared token the operator hands to notebook servers
// (a file from a Secret), compared in constant time.
//
// A review is a network call the API server may be slow to answer, and any
// pod can send a token: no lock is held across one; a credential is reviewed
// once at a time however many requests carry it (the others wait for that
// answer); at most kConcurrentReviews run at once, each with a client of its
// own, so the handler threads beyond them stay free for callers whose
// decision is cached; a decision that has just expired is served while its
// renewal runs, or when the API server cannot answer, for kStaleGrace.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "kube/api_client.hpp"

namespace tightpack::daemon {

struct AuthDecision {
  unsigned status =
      200;             // 200, 401 (no or bad credentials), 403 (not allowed), 503 (the API failed)
  std::string reason;  // for the answer's body and the log; never the token
};

class DelegatedAuth {
 public:
  using Clock = std::chrono::steady_clock;

  DelegatedAuth(std::shared_ptr<const kube::ClientConfig> client,
                std::shared_ptr<kube::RateLimiter> limiter, std::string shared_token_file = "");

  // `authorization` is the request's Authorization header; `path` the
  // request's path. Thread-safe.
  AuthDecision check(const std::string& authorization, const std::string& path);

  // The same review, the user asked about an API resource instead of a path:
  // may it `verb` `resource` in `ns` (resourceAttributes)? /dask/v1/nodes asks
  // "list pods" in the Dask cluster's namespace: who may list those pods may
  // learn where they run.
  AuthDecision check_resource(const std::string& authorization, const std::string& ns,
                              const std::string& verb, const std::string& resource);

  static constexpr std::chrono::seconds kCacheTtl{10};
  static constexpr std::chrono::seconds kStaleGrace{60};
  static constexpr std::chrono::seconds kReviewTimeout{10};  // each of its two requests
  static constexpr size_t kCacheLimit = 4096;
  static constexpr size_t kConcurrentReviews = 2;

  // Whether `token` is the shared snapshot token, which every notebook server
  // holds: the HTTP server paces it per address, not as one caller.
  bool is_shared_token(const std::string& token);

 private:
  struct Cached {
    AuthDecision decision;
    Clock::time_point until;
  };
  AuthDecision cached(const std::string& token, const std::string& what,
                      const boost::json::object& attributes, const std::string& forbidden);
  static AuthDecision review(kube::ApiClient& api, const std::string& token,
                             const boost::json::object& attributes, const std::string& forbidden);
  bool shared_token_matches(const std::string& token);

  std::mutex m_;  // what follows; never held across a review
  std::vector<std::unique_ptr<kube::ApiClient>> idle_clients_;  // one per review slot free
  std::unordered_map<std::string, std::shared_future<AuthDecision>> in_flight_;  // by cache key
  std::string shared_token_file_;
  std::string shared_token_;
  Clock::time_point shared_token_read_{};
  std::unordered_map<std::string, Cached> cache_;  // by SHA-256 of token and what was asked
};

}  // namespace tightpack::daemon
