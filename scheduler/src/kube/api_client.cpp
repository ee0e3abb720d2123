#include "kube/api_client.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/json/parse.hpp>
#include <optional>

#include "kube/watch_lines.hpp"
#include "version.hpp"

namespace tightpack::kube {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

std::string api_error_text(const Response& r) {
  boost::system::error_code ec;
  const auto v = boost::json::parse(r.body, ec);
  if (!ec && v.is_object()) {
    if (const auto* m = v.as_object().if_contains("message"); m && m->is_string()) {
      return std::to_string(r.status) + " " + std::string(m->get_string());
    }
  }
  if (!r.body.empty()) return std::to_string(r.status) + " " + quote_value(r.body);
  return "HTTP " + std::to_string(r.status);
}

namespace {

// What remains until `deadline` (none once it passed; time_point::max() never passes).
std::chrono::steady_clock::duration time_left(std::chrono::steady_clock::time_point deadline) {
  const auto now = std::chrono::steady_clock::now();
  return deadline > now ? deadline - now : std::chrono::steady_clock::duration::zero();
}

}  // namespace

struct ApiClient::Impl {
  std::shared_ptr<const ClientConfig> config;
  std::shared_ptr<RateLimiter> limiter;
  net::io_context io;
  ssl::context tls{ssl::context::tls_client};
  std::optional<beast::ssl_stream<beast::tcp_stream>> stream;
  beast::flat_buffer buffer;
  bool connected = false;
  std::atomic<bool> cancelled{false};
  std::optional<Error> tls_setup_error;

  Impl(std::shared_ptr<const ClientConfig> c, std::shared_ptr<RateLimiter> l)
      : config(std::move(c)), limiter(std::move(l)) {
    beast::error_code ec;
    if (config->insecure_skip_verify) {
      tls.set_verify_mode(ssl::verify_none);
    } else {
      tls.set_verify_mode(ssl::verify_peer);
      if (config->ca_pem.empty()) {
        tls.set_default_verify_paths(ec);
      } else {
        tls.add_certificate_authority(net::buffer(config->ca_pem), ec);
      }
      if (ec)
        tls_setup_error =
            Error{config->source, "the certificate authority is not usable: " + ec.message()};
    }
    if (!config->client_cert_pem.empty()) {
      tls.use_certificate_chain(net::buffer(config->client_cert_pem), ec);
      if (!ec) tls.use_private_key(net::buffer(config->client_key_pem), ssl::context::pem, ec);
      if (ec)
        tls_setup_error =
            Error{config->source, "the client certificate is not usable: " + ec.message()};
    }
  }

  std::string where() const { return config->server; }

  // Runs one asynchronous operation to completion on this thread, bounded by
  // `timeout`; cancel() from another thread closes the socket, which ends it.
  template <class Start>
  beast::error_code run(Start&& start, std::chrono::steady_clock::duration timeout) {
    beast::error_code result = net::error::operation_aborted;
    if (cancelled) return result;
    if (stream) beast::get_lowest_layer(*stream).expires_after(timeout);
    start([&result](beast::error_code ec, auto&&...) { result = ec; });
    io.restart();
    io.run();
    return result;
  }

  void close() {
    if (stream) {
      beast::error_code ignored;
      beast::get_lowest_layer(*stream).socket().close(ignored);
    }
    stream.reset();
    buffer.clear();
    connected = false;
  }

  std::optional<Error> connect(std::chrono::steady_clock::time_point deadline =
                                   std::chrono::steady_clock::time_point::max()) {
    // Each step at most 10 s, and none past the caller's deadline.
    auto left = [deadline] {
      return std::min(time_left(deadline),
                      std::chrono::steady_clock::duration(std::chrono::seconds(10)));
    };
    if (tls_setup_error) return tls_setup_error;
    if (!config->tls) return Error{where(), "http:// API servers are not supported; use https"};
    close();
    stream.emplace(io, tls);
    tcp::resolver resolver(io);
    tcp::resolver::results_type endpoints;
    beast::error_code ec = run(
        [&](auto handler) {
          resolver.async_resolve(
              config->host, config->port,
              [&endpoints, handler](beast::error_code e, tcp::resolver::results_type r) mutable {
                endpoints = std::move(r);
                handler(e);
              });
        },
        left());
    if (ec) return Error{where(), "cannot resolve " + config->host + ": " + ec.message()};
    ec = run(
        [&](auto handler) { beast::get_lowest_layer(*stream).async_connect(endpoints, handler); },
        left());
    if (ec) return Error{where(), "cannot connect: " + ec.message()};
    auto& socket = beast::get_lowest_layer(*stream).socket();
    socket.set_option(tcp::no_delay(true), ec);
    // TCP keepalive as client-go's dialer sets it (30 s), with probes every
    // 10 s and 3 unanswered closing it: a watch whose peer vanished (a node
    // gone, a NAT entry dropped) fails within about a minute instead of
    // waiting out its idle limit.
    socket.set_option(net::socket_base::keep_alive(true), ec);
    const int idle = 30, interval = 10, count = 3;
    ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
    ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
    beast::error_code addr_ec;
    net::ip::make_address(config->host, addr_ec);
    if (addr_ec) SSL_set_tlsext_host_name(stream->native_handle(), config->host.c_str());
    if (!config->insecure_skip_verify)
      stream->set_verify_callback(ssl::host_name_verification(config->host));
    ec = run([&](auto handler) { stream->async_handshake(ssl::stream_base::client, handler); },
             left());
    if (ec) return Error{where(), "TLS handshake failed: " + ec.message()};
    connected = true;
    return std::nullopt;
  }

  http::request<http::string_body> make(std::string_view method, std::string_view path,
                                        std::string_view body, std::string_view content_type) {
    http::request<http::string_body> req;
    req.method_string(method);
    req.target(config->prefix + std::string(path));
    req.version(11);
    req.set(http::field::host, config->host);
    req.set(http::field::user_agent, "tightpack/" + std::string(kVersion));
    req.set(http::field::accept, "application/json");
    const std::string token = config->token ? config->token->token() : "";
    if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
    if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
      req.set(http::field::content_type, content_type);
      req.body() = std::string(body);
      req.prepare_payload();
    }
    req.keep_alive(true);
    return req;
  }
};

ApiClient::ApiClient(std::shared_ptr<const ClientConfig> config,
                     std::shared_ptr<RateLimiter> limiter)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(limiter))) {}

ApiClient::~ApiClient() {
  impl_->close();
}

void ApiClient::cancel() {
  impl_->cancelled = true;
  // The io_context runs on the owning thread; post makes the close happen there.
  net::post(impl_->io, [impl = impl_.get()] {
    if (impl->stream) {
      beast::error_code ignored;
      beast::get_lowest_layer(*impl->stream).socket().close(ignored);
    }
  });
}

void ApiClient::reset() {
  impl_->close();
  // A close that cancel() posted while no operation ran must not hit the
  // next connection.
  impl_->io.restart();
  impl_->io.poll();
  impl_->cancelled = false;
}

Result<Response> ApiClient::request(std::string_view method, std::string_view path,
                                    std::string_view body, std::string_view content_type,
                                    std::chrono::milliseconds timeout) {
  Impl& d = *impl_;
  // The deadline starts before the rate limiter's wait: a write bounded by
  // the lease is not sent later than the lease allows because it queued here.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  if (d.limiter && !d.limiter->acquire(&d.cancelled, deadline)) {
    if (d.cancelled) return Error{d.where(), "cancelled"};
    return Error{d.where(), std::string(method) + " " + std::string(path) +
                                ": not sent: its deadline would pass while it waits for the "
                                "client's rate limit (qps, burst)"};
  }
  auto req = d.make(method, path, body, content_type);
  auto left = [deadline] { return time_left(deadline); };
  // A kept-alive connection the server closed meanwhile fails at once; one
  // fresh connection decides.
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool reused = d.connected;
    if (!d.connected) {
      if (auto e = d.connect(deadline)) return *e;
    }
    if (left() == std::chrono::steady_clock::duration::zero()) {
      return Error{d.where(), std::string(method) + " " + std::string(path) +
                                  ": not sent: its deadline passed"};
    }
    beast::error_code ec =
        d.run([&](auto handler) { http::async_write(*d.stream, req, handler); }, left());
    http::response_parser<http::string_body> parser;
    parser.body_limit(kMaxAnswerBytes);
    if (!ec)
      ec = d.run(
          [&](auto handler) { http::async_read_header(*d.stream, d.buffer, parser, handler); },
          left());
    const bool success = !ec && parser.get().result_int() >= 200 && parser.get().result_int() < 300;
    if (!ec && !success) {
      // Beast checks a Content-Length against the limit with the header, so
      // a lower limit for an error body is checked here; a chunked body is
      // checked chunk by chunk.
      parser.body_limit(kMaxErrorBodyBytes);
      if (parser.content_length() && *parser.content_length() > kMaxErrorBodyBytes)
        ec = http::error::body_limit;
    }
    if (!ec)
      ec = d.run([&](auto handler) { http::async_read(*d.stream, d.buffer, parser, handler); },
                 left());
    if (ec == http::error::body_limit) {
      d.close();
      if (success) {
        return Error{d.where(), std::string(method) + " " + std::string(path) +
                                    ": the answer is larger than " +
                                    std::to_string(kMaxAnswerBytes >> 20) + " MiB"};
      }
      return Response{parser.get().result_int(), "(an error body larger than " +
                                                     std::to_string(kMaxErrorBodyBytes >> 10) +
                                                     " KiB, not read)"};
    }
    if (ec) {
      d.close();
      if (d.cancelled) return Error{d.where(), "cancelled"};
      if (reused && attempt == 0 && ec != beast::error::timeout) continue;
      return Error{d.where(), std::string(method) + " " + std::string(path) + ": " + ec.message()};
    }
    auto res = parser.release();
    Response r{res.result_int(), std::move(res.body())};
    if (!res.keep_alive()) d.close();
    return r;
  }
  return Error{d.where(), "unreachable"};
}

Result<Response> ApiClient::stream(std::string_view path,
                                   const std::function<bool(std::string_view)>& on_line,
                                   std::chrono::seconds idle_timeout) {
  Impl& d = *impl_;
  if (d.limiter && !d.limiter->acquire(&d.cancelled)) return Error{d.where(), "cancelled"};
  if (auto e = d.connect()) return *e;
  auto req = d.make("GET", path, {}, {});
  beast::error_code ec =
      d.run([&](auto handler) { http::async_write(*d.stream, req, handler); }, idle_timeout);
  http::response_parser<http::buffer_body> parser;
  parser.body_limit(boost::none);
  if (!ec)
    ec = d.run([&](auto handler) { http::async_read_header(*d.stream, d.buffer, parser, handler); },
               idle_timeout);
  if (ec) {
    d.close();
    return Error{d.where(),
                 "watch " + std::string(path) + ": " + (d.cancelled ? "cancelled" : ec.message())};
  }
  Response r{parser.get().result_int(), {}};
  WatchLines lines(kMaxWatchEventBytes);
  std::vector<char> chunk(1 << 16);
  bool keep_going = true;
  while (!parser.is_done() && keep_going) {
    parser.get().body().data = chunk.data();
    parser.get().body().size = chunk.size();
    // read_some: an event is handed on as soon as it arrives, not when 64 KiB have.
    ec = d.run([&](auto handler) { http::async_read_some(*d.stream, d.buffer, parser, handler); },
               idle_timeout);
    if (ec == http::error::need_buffer) ec = {};
    const size_t n = chunk.size() - parser.get().body().size;
    if (!r.ok()) {
      r.body.append(chunk.data(), std::min(n, kMaxErrorBodyBytes - r.body.size()));
      if (r.body.size() == kMaxErrorBodyBytes) break;  // enough to say what went wrong
    } else {
      const auto fed = lines.feed(std::string_view(chunk.data(), n), on_line);
      if (fed == WatchLines::Fed::Stopped) keep_going = false;
      if (fed == WatchLines::Fed::Oversized) {
        r.oversized_event = true;
        break;
      }
    }
    if (ec) break;
  }
  d.close();  // a watch connection is never reused
  if (ec && ec != http::error::end_of_stream && ec != net::error::eof &&
      ec != ssl::error::stream_truncated) {
    if (d.cancelled) return Error{d.where(), "cancelled"};
    if (ec == beast::error::timeout)
      return Error{d.where(), "watch " + std::string(path) + ": nothing received for " +
                                  std::to_string(idle_timeout.count()) + " s"};
    return Error{d.where(), "watch " + std::string(path) + ": " + ec.message()};
  }
  return r;
}

}  // namespace tightpack::kube
