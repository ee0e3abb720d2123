#include "daemon/http_server.hpp"

#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "log.hpp"

namespace tightpack::daemon {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

struct HttpServer::Impl {
  net::io_context io;
  tcp::acceptor acceptor{io};
  HttpHandler handler;
  std::atomic<bool> stopping{false};

  void serve(tcp::socket& socket) {
    // Blocking reads, bounded: a client that stalls cannot hold the port.
    timeval tv{5, 0};
    setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    beast::flat_buffer buffer;
    http::request<http::string_body> req;
    beast::error_code ec;
    http::read(socket, buffer, req, ec);
    if (ec) return;
    std::string target(req.target());
    const std::string path = target.substr(0, target.find('?'));
    HttpAnswer answer;
    if (req.method() != http::verb::get && req.method() != http::verb::head) {
      answer = {405, "text/plain; charset=utf-8", "only GET\n"};
    } else {
      try {
        answer = handler(path);
      } catch (const std::exception& e) {
        answer = {500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + "\n"};
      }
    }
    http::response<http::string_body> res{static_cast<http::status>(answer.status), req.version()};
    res.set(http::field::server, "tightpack");
    res.set(http::field::content_type, answer.content_type);
    res.set(http::field::cache_control, "no-store");
    res.keep_alive(false);
    if (req.method() != http::verb::head) res.body() = std::move(answer.body);
    res.prepare_payload();
    http::write(socket, res, ec);
    socket.shutdown(tcp::socket::shutdown_both, ec);
  }

  void run() {
    while (!stopping) {
      tcp::socket socket(io);
      beast::error_code ec;
      acceptor.accept(socket, ec);
      if (ec) {
        if (stopping) return;
        continue;
      }
      serve(socket);
    }
  }
};

HttpServer::HttpServer() = default;
HttpServer::~HttpServer() { stop(); }

Status HttpServer::start(const std::string& listen, HttpHandler handler) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return Error{"--listen", "expected HOST:PORT, got " + quote_value(listen)};
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  unsigned long port = 0;
  try {
    size_t used = 0;
    port = std::stoul(listen.substr(colon + 1), &used);
    if (used != listen.size() - colon - 1 || port > 65535) throw std::out_of_range("");
  } catch (...) {
    return Error{"--listen", "the port is not a number from 0 to 65535: " + quote_value(listen)};
  }
  impl_ = std::make_unique<Impl>();
  impl_->handler = std::move(handler);
  beast::error_code ec;
  const auto address = net::ip::make_address(host, ec);
  if (ec) return Error{"--listen", "not an IP address: " + quote_value(host)};
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  impl_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(endpoint, ec);
  if (!ec) impl_->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return Error{"--listen", "cannot listen on " + listen + ": " + ec.message()};
  port_ = impl_->acceptor.local_endpoint().port();
  thread_ = std::thread([impl = impl_.get()] { impl->run(); });
  return Ok{};
}

void HttpServer::stop() {
  if (!impl_) return;
  impl_->stopping = true;
  // Wakes the blocked accept().
  ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);
  if (thread_.joinable()) thread_.join();
  beast::error_code ec;
  impl_->acceptor.close(ec);
  impl_.reset();
}

}  // namespace tightpack::daemon
