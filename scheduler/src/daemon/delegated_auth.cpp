#include "daemon/delegated_auth.hpp"

#include <openssl/crypto.h>

#include <boost/json.hpp>
#include <optional>

#include "daemon/credentials.hpp"
#include "daemon/json_fields.hpp"
#include "read_file.hpp"

namespace tightpack::daemon {

namespace json = boost::json;

DelegatedAuth::DelegatedAuth(std::shared_ptr<const kube::ClientConfig> client,
                             std::shared_ptr<kube::RateLimiter> limiter,
                             std::string shared_token_file)
    : shared_token_file_(std::move(shared_token_file)) {
  for (size_t i = 0; i < kConcurrentReviews; ++i)
    idle_clients_.push_back(std::make_unique<kube::ApiClient>(client, limiter));
}

bool DelegatedAuth::shared_token_matches(const std::string& token) {
  if (shared_token_file_.empty()) return false;
  // Read again every few seconds: a rotated Secret reaches the mounted file.
  const auto now = Clock::now();
  if (now - shared_token_read_ > std::chrono::seconds(5)) {
    std::string text;
    if (!read_file(shared_token_file_, text)) text.clear();
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
      text.pop_back();
    shared_token_ = std::move(text);
    shared_token_read_ = now;
  }
  // An empty or short file grants nothing.
  if (shared_token_.size() < 16 || token.size() != shared_token_.size()) return false;
  return CRYPTO_memcmp(token.data(), shared_token_.data(), token.size()) == 0;
}

bool DelegatedAuth::is_shared_token(const std::string& token) {
  std::lock_guard lock(m_);
  return shared_token_matches(token);
}

AuthDecision DelegatedAuth::check(const std::string& authorization, const std::string& path) {
  const std::string token = authorization_token(authorization, {"bearer"});
  if (token.empty()) {
    return {401, "Unauthorized: " + path + " needs a bearer token (Authorization: Bearer …)"};
  }
  if (path == "/snapshot") {
    std::lock_guard lock(m_);
    if (shared_token_matches(token)) return {200, ""};
  }
  // kube-apiserver's wording for a non-resource URL.
  return cached(
      token, "path\n" + path,
      json::object{{"nonResourceAttributes", json::object{{"path", path}, {"verb", "get"}}}},
      "cannot get path \"" + path + "\"");
}

AuthDecision DelegatedAuth::check_resource(const std::string& authorization, const std::string& ns,
                                           const std::string& verb, const std::string& resource) {
  const std::string token = authorization_token(authorization, {"bearer"});
  if (token.empty())
    return {401, "Unauthorized: this path needs a bearer token (Authorization: Bearer …)"};
  // kube-apiserver's wording for a resource.
  return cached(
      token, "resource\n" + ns + "\n" + verb + "\n" + resource,
      json::object{{"resourceAttributes",
                    json::object{{"namespace", ns}, {"verb", verb}, {"resource", resource}}}},
      "cannot " + verb + " resource \"" + resource + "\" in API group \"\" in the namespace \"" +
          ns + "\"");
}

AuthDecision DelegatedAuth::cached(const std::string& token, const std::string& what,
                                   const json::object& attributes, const std::string& forbidden) {
  const std::string key = sha256(token + '\n' + what);
  std::unique_lock lock(m_);
  const auto now = Clock::now();
  std::optional<AuthDecision> stale;
  if (auto it = cache_.find(key); it != cache_.end()) {
    if (it->second.until > now) return it->second.decision;
    if (it->second.until + kStaleGrace > now) {
      stale = it->second.decision;
    } else {
      cache_.erase(it);
    }
  }
  if (auto f = in_flight_.find(key); f != in_flight_.end()) {
    if (stale) return *stale;  // served while its renewal runs
    std::shared_future<AuthDecision> answer = f->second;
    lock.unlock();
    return answer.get();  // the same credential's review, asked once
  }
  if (idle_clients_.empty()) {
    if (stale) return *stale;
    return {503, "too many credentials are being reviewed at once: ask again shortly"};
  }
  std::unique_ptr<kube::ApiClient> api = std::move(idle_clients_.back());
  idle_clients_.pop_back();
  std::promise<AuthDecision> promise;
  in_flight_.emplace(key, promise.get_future().share());
  lock.unlock();

  AuthDecision decision = review(*api, token, attributes, forbidden);

  lock.lock();
  idle_clients_.push_back(std::move(api));
  in_flight_.erase(key);
  if (decision.status != 503) {
    if (cache_.size() >= kCacheLimit) cache_.clear();
    cache_[key] = Cached{decision, Clock::now() + kCacheTtl};
  } else if (stale) {
    decision = *stale;  // the API's failures are not kept; within the grace the last answer stands
  }
  lock.unlock();
  promise.set_value(decision);
  return decision;
}

AuthDecision DelegatedAuth::review(kube::ApiClient& api, const std::string& token,
                                   const json::object& attributes, const std::string& forbidden) {
  constexpr auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(kReviewTimeout);
  json::object review{{"apiVersion", "authentication.k8s.io/v1"},
                      {"kind", "TokenReview"},
                      {"spec", json::object{{"token", token}}}};
  auto r = api.request("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                       json::serialize(review), "application/json", timeout);
  if (!r) return {503, "cannot review the token: " + r.error().what()};
  if (!r->ok()) return {503, "the API server refused the TokenReview: " + kube::api_error_text(*r)};
  json::error_code ec;
  const json::value answer = json::parse(r->body, ec);
  if (ec) return {503, "the TokenReview's answer is not JSON"};
  const json::object* status = object_at(answer, "status");
  if (!bool_at(status, "authenticated"))
    return {401, "Unauthorized: the API server does not know the token"};
  const json::object* user = nullptr;
  if (const auto* u = status ? status->if_contains("user") : nullptr; u && u->is_object())
    user = &u->as_object();
  json::object spec = attributes;
  const std::string username = string_at(user, "username");
  spec["user"] = username;
  if (user) {
    if (const auto* g = user->if_contains("groups")) spec["groups"] = *g;
    if (const auto* u = user->if_contains("uid")) spec["uid"] = *u;
    if (const auto* e = user->if_contains("extra")) spec["extra"] = *e;
  }
  json::object access{
      {"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"}, {"spec", spec}};
  r = api.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                  json::serialize(access), "application/json", timeout);
  if (!r) return {503, "cannot review the access: " + r.error().what()};
  if (!r->ok())
    return {503, "the API server refused the SubjectAccessReview: " + kube::api_error_text(*r)};
  const json::value allowed = json::parse(r->body, ec);
  if (ec) return {503, "the SubjectAccessReview's answer is not JSON"};
  const json::object* verdict = object_at(allowed, "status");
  if (!bool_at(verdict, "allowed"))
    return {403, "Forbidden: user \"" + username + "\" " + forbidden};
  return {200, ""};
}

}  // namespace tightpack::daemon
