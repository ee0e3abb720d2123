// Who may read what the secure port serves, decided as kube-scheduler
// decides it (k8s.io/apiserver's delegating authenticator and authorizer):
// the caller's bearer token is reviewed by the API server (TokenReview), and
// the user it names must be allowed `get` on the path (SubjectAccessReview
// with nonResourceAttributes), e.g. by a ClusterRole with
// nonResourceURLs: ["/metrics"]. Answers are cached for 10 s, as there.
// /snapshot also takes a shared token the operator hands to notebook servers
// (a file from a Secret), compared in constant time.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

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
  static constexpr size_t kCacheLimit = 4096;

 private:
  struct Cached {
    AuthDecision decision;
    Clock::time_point until;
  };
  AuthDecision cached(const std::string& token, const std::string& what,
                      const boost::json::object& attributes, const std::string& forbidden);
  AuthDecision review(const std::string& token, const boost::json::object& attributes,
                      const std::string& forbidden);
  bool shared_token_matches(const std::string& token);

  std::mutex m_;  // the client, the cache and the shared token
  kube::ApiClient api_;
  std::string shared_token_file_;
  std::string shared_token_;
  Clock::time_point shared_token_read_{};
  std::unordered_map<std::string, Cached> cache_;  // by SHA-256 of token and what was asked
};

}  // namespace tightpack::daemon
