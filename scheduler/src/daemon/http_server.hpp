// One HTTP/1.1 listener of the daemon. Any pod in the cluster can connect to
// it, so no client can hold it: connections are served concurrently on one
// I/O thread, each request must arrive and each answer be taken within a
// deadline, the number of open connections is capped per client address and
// in all (when all are taken, an idle connection of the address holding the
// most gives way to one from an address holding fewer: a kubelet's probe gets
// in whatever one pod opens), handlers run on worker threads of their own so
// that a slow answer (a snapshot, a review) never delays another request, the
// probes are answered on the I/O thread without waiting for any of them, and
// costly paths are paced per client address, a request without a credential
// refused before it takes a turn. stop() returns at once, whatever the
// clients do.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "daemon/request_pacer.hpp"
#include "daemon/serving_cert.hpp"
#include "tightpack/error.hpp"

namespace tightpack::daemon {

struct HttpRequest {
  std::string method;         // GET, HEAD, or POST on HttpLimits::body_paths
  std::string path;           // the target without its query
  std::string query;          // what follows the '?', or empty
  std::string if_none_match;  // the header, as sent
  std::string authorization;  // the header, as sent
  std::string body;           // a POST's
};

struct HttpAnswer {
  unsigned status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // Bytes shared with a cache, served without a copy; when set, `body` is not.
  std::shared_ptr<const std::string> shared_body;
  std::string etag;
  // Sent as Retry-After when set (a 429).
  std::chrono::seconds retry_after{0};
};

inline HttpAnswer text_answer(unsigned status, std::string body) {
  HttpAnswer a;
  a.status = status;
  a.body = std::move(body);
  return a;
}

using HttpHandler = std::function<HttpAnswer(const HttpRequest& request)>;

// The query's parameters, percent-decoded ('+' is a space). A bad escape, a
// parameter given twice or one not in `allowed` is an error naming it.
Result<std::map<std::string, std::string>> parse_query(
    std::string_view query, std::initializer_list<std::string_view> allowed);

struct HttpLimits {
  // Open connections beyond this are closed as soon as they are accepted,
  // unless an idle one of an address holding more gives way.
  std::size_t max_connections = 256;
  // Open connections from one client address: one pod cannot take the cap.
  std::size_t max_connections_per_source = 32;
  // The whole request (line and headers) must arrive within this: a client
  // that sends nothing, or a byte at a time, is dropped.
  std::chrono::milliseconds read_timeout{std::chrono::seconds(10)};
  // The whole answer must be taken within this: a client that reads a large
  // answer slowly is dropped.
  std::chrono::milliseconds write_timeout{std::chrono::seconds(60)};
  // A connection kept after an answer waits this long for the whole of its
  // next request, then goes. A minute: longer than the sidebar's server
  // (5 s at least) and Prometheus (15-60 s) wait between requests.
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(60)};
  // Answers on one connection before it is closed (1: every answer closes
  // it). Bounded so that clients spread again over replicas and pick up a
  // reloaded certificate.
  unsigned max_requests_per_connection = 1000;
  std::size_t max_header_bytes = std::size_t{8} * 1024;
  // Paths that take a POST with a body (declared by Content-Length, at most
  // max_body_bytes, read within read_timeout with the header), from a caller
  // with a credential; every other path answers GET and HEAD only.
  std::vector<std::string> body_paths;
  std::size_t max_body_bytes = std::size_t{1} << 20;
  // How often a connection looks whether the certificate's files changed.
  std::chrono::milliseconds certificate_check{std::chrono::seconds(5)};
  // Threads that run handlers; requests beyond them wait in line.
  unsigned handler_threads = 2;
  // Requests for these paths wait for their turn (RequestPacer), per client
  // address and in all, before a handler runs; one without a credential
  // ("Authorization: Bearer <t>" or "token <t>") is refused with 401 first.
  std::vector<std::string> paced_paths;
  // A credential many callers hold alike (the shared snapshot token every
  // notebook server has) is paced per address only; any other is also paced
  // as one caller wherever it asks from, so that one user's many pods share
  // her turn. Called on the I/O thread: it must not block.
  std::function<bool(const std::string& token)> shared_credential;
  // Answered by the handler on the I/O thread, at once, when asked without a
  // query: never behind the worker threads. Only for answers that neither
  // block nor take long (the probes read a few atomics); with a query
  // (/readyz?verbose, which asks who is asking) they go the usual way.
  std::vector<std::string> inline_paths;
  PacerLimits pacing;
};

class HttpServer {
 public:
  HttpServer();
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds HOST:PORT (port 0 picks one; `what` names the flag in errors) and
  // serves until stop(): HTTPS with `certificate`, else plain HTTP.
  Status start(const std::string& listen, HttpHandler handler, HttpLimits limits = {},
               const std::string& what = "--listen",
               const ServingCertificate* certificate = nullptr);
  void stop();
  unsigned short port() const { return port_; }

  struct Impl;  // the .cpp's connections refer to it

 private:
  std::unique_ptr<Impl> impl_;
  unsigned short port_ = 0;
};

}  // namespace tightpack::daemon
