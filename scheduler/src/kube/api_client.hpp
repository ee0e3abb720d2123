// One HTTPS connection to the Kubernetes API (Boost.Beast over OpenSSL):
// plain requests on a kept-alive connection, and watches streamed line by
// line. Not thread-safe, except cancel(): each thread that talks to the API
// owns a client.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "kube/client_config.hpp"
#include "kube/rate_limiter.hpp"
#include "tightpack/error.hpp"

namespace tightpack::kube {

struct Response {
  unsigned status = 0;
  std::string body;
  // A watch ended on a line longer than kMaxWatchEventBytes: what arrived
  // cannot be trusted, so its reader lists again.
  bool oversized_event = false;
  bool ok() const { return status >= 200 && status < 300; }
};

// What one answer may hold, so that no server (or a proxy in its place) can
// make the daemon allocate without bound. A successful answer is at most one
// list page of kListPageObjects objects, each at most etcd's 1.5 MiB; an event
// on a watch at most one object; an error a Status object.
inline constexpr size_t kMaxAnswerBytes = 256u << 20;
// etcd's largest object (--max-request-bytes, 1.5 MiB) and, with room for the
// list's own JSON, the objects a list page may ask for within kMaxAnswerBytes.
inline constexpr size_t kMaxObjectBytes = size_t{3} << 19;
inline constexpr size_t kListPageObjects = kMaxAnswerBytes / kMaxObjectBytes - 10;
inline constexpr size_t kMaxWatchEventBytes = 16u << 20;
inline constexpr size_t kMaxErrorBodyBytes = 64u << 10;

// The Status object's message of an API error body, else the body itself
// (shortened), else the HTTP status: what a log line should say.
std::string api_error_text(const Response& r);

class ApiClient {
 public:
  ApiClient(std::shared_ptr<const ClientConfig> config, std::shared_ptr<RateLimiter> limiter);
  ~ApiClient();
  ApiClient(const ApiClient&) = delete;
  ApiClient& operator=(const ApiClient&) = delete;

  // A request; `path` starts with /api or /apis. Transport failures (refused,
  // TLS, timeout) and answers beyond the limits above are errors naming the
  // server; HTTP errors are responses (their body cut at kMaxErrorBodyBytes).
  // `timeout` bounds the whole request, connecting included: a caller with a
  // deadline (a leader whose lease is valid until then) knows that nothing
  // it sends leaves after it.
  Result<Response> request(std::string_view method, std::string_view path,
                           std::string_view body = {},
                           std::string_view content_type = "application/json",
                           std::chrono::milliseconds timeout = std::chrono::seconds(30));

  // A watch: `on_line` sees each line of the streamed body until the server
  // ends it, `on_line` returns false, nothing arrives for `idle_timeout`, or
  // cancel() is called. A non-2xx answer is returned with its body unread by
  // `on_line` (cut at kMaxErrorBodyBytes). A line longer than
  // kMaxWatchEventBytes ends the stream (oversized_event): a broken stream,
  // never an allocation.
  Result<Response> stream(std::string_view path,
                          const std::function<bool(std::string_view)>& on_line,
                          std::chrono::seconds idle_timeout);

  // From any thread: ends the request or stream in progress (its result is an
  // error) and every later one, until reset().
  void cancel();
  void reset();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tightpack::kube
