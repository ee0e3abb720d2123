#include "daemon/http_server.hpp"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <filesystem>
#include <list>
#include <map>
#include <optional>
#include <thread>

#include "daemon/credentials.hpp"
#include "log.hpp"

namespace tightpack::daemon {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

// Members in this order on purpose: the worker pool (whose queued requests
// hold sessions) goes before the I/O context that owns the sessions' sockets,
// and both before the counter their destructors decrement.
// A connection as the accept loop sees it (I/O thread only).
struct Connection {
  virtual ~Connection() = default;
  virtual void drop() = 0;  // closes the socket: its session ends at once
  bool idle = true;         // waiting for a request (or the TLS handshake)
  // Idle after an answer, kept for the next request: dropping it costs its
  // client a new connection, nothing else.
  bool kept = false;
  std::chrono::steady_clock::time_point idle_since = std::chrono::steady_clock::now();
  std::list<Connection*>::iterator where;
  std::string source;
};

struct HttpServer::Impl {
  HttpLimits limits;
  HttpHandler handler;
  std::size_t open = 0;  // touched on the I/O thread only
  // Open connections by client address, oldest first (I/O thread only).
  std::map<std::string, std::list<Connection*>> by_source;
  // Set: the port serves HTTPS only. A session keeps the context it started
  // with; a reloaded certificate serves the connections after it.
  std::shared_ptr<ssl::context> tls;
  ServingCertificate certificate;  // what `tls` serves, and the files it came from
  using FileTimes = std::pair<std::filesystem::file_time_type, std::filesystem::file_time_type>;
  std::optional<FileTimes> certificate_times;  // the certificate's and the key's
  std::chrono::steady_clock::time_point certificate_checked{};
  RequestPacer pacer;  // touched on the I/O thread only
  net::io_context io{1};
  tcp::acceptor acceptor{io};
  net::steady_timer retry{io};
  std::optional<net::thread_pool> workers;
  std::thread thread;

  void accept();
  void admit(tcp::socket socket);
  // Reads the certificate's files again when they changed (at most every
  // limits.certificate_check); a bad new pair keeps the old one, logged.
  void reload_certificate();
  // An idle connection to drop for a newcomer from `source`, or nullptr.
  Connection* give_way(const std::string& source, std::size_t held);
};

namespace {

using PlainStream = beast::tcp_stream;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// One connection, plain or TLS; the handshake counts against the read
// deadline, so a client that opens TLS and stops holds nothing either.
template <typename Stream>
class Session : public Connection, public std::enable_shared_from_this<Session<Stream>> {
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

 public:
  Session(HttpServer::Impl& server, tcp::socket socket, std::string from)
      : server_(server), tls_(server.tls), stream_(make_stream(server, socket)), turn_(server.io) {
    ++server_.open;
    source = std::move(from);
    auto& list = server_.by_source[source];
    where = list.insert(list.end(), this);
  }
  ~Session() override {
    beast::error_code ec;
    beast::get_lowest_layer(stream_).socket().close(ec);
    --server_.open;
    auto it = server_.by_source.find(source);
    it->second.erase(where);
    if (it->second.empty()) server_.by_source.erase(it);
  }

  void drop() override {
    idle = false;  // given way once
    kept = false;
    beast::error_code ec;
    beast::get_lowest_layer(stream_).socket().close(ec);
  }

  void start() {
    beast::get_lowest_layer(stream_).expires_after(server_.limits.read_timeout);
    if constexpr (kTls) {
      stream_.async_handshake(ssl::stream_base::server,
                              [self = this->shared_from_this()](beast::error_code ec) {
                                if (!ec) self->read();
                              });
    } else {
      read();
    }
  }

 private:
  static Stream make_stream(HttpServer::Impl& server, tcp::socket& socket) {
    if constexpr (kTls) {
      return Stream(std::move(socket), *server.tls);
    } else {
      return Stream(std::move(socket));
    }
  }

  void read() {
    parser_.emplace();
    body_parser_.reset();
    parser_->header_limit(static_cast<std::uint32_t>(server_.limits.max_header_bytes));
    // The declared length is judged once the header is in (on_header), so that
    // a body too large gets its 413 instead of a dropped connection.
    parser_->body_limit(boost::none);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                              self->on_header(ec);
                            });
  }

 private:
  // The header has arrived. A body is read only for a POST to a path that
  // takes one, with its length declared and within the limit, from a caller
  // that sent a credential; the whole request stays within the read deadline.
  void on_header(beast::error_code ec) {
    // A timeout, a reset, a malformed or oversized request: the connection
    // goes, without an answer that could keep it.
    if (ec) return;
    idle = false;
    kept = false;
    const auto& req = parser_->get();
    version_ = req.version();
    head_ = req.method() == http::verb::head;
    keep_alive_ = req.keep_alive() && ++answered_ < server_.limits.max_requests_per_connection;
    const std::string target(req.target());
    const std::string path = target.substr(0, target.find('?'));
    const auto& body_paths = server_.limits.body_paths;
    const bool takes_body =
        std::find(body_paths.begin(), body_paths.end(), path) != body_paths.end();
    if (req.method() == http::verb::post && takes_body) {
      keep_alive_ = false;  // one question per connection: a body is never left half-read
      const auto length = parser_->content_length();
      if (!length) {
        write(text_answer(411, path + " needs a Content-Length\n"));
        return;
      }
      if (*length > server_.limits.max_body_bytes) {
        write(text_answer(413, path + " takes at most " +
                                   std::to_string(server_.limits.max_body_bytes) + " bytes, not " +
                                   std::to_string(*length) + "\n"));
        return;
      }
      if (authorization_token(std::string(req[http::field::authorization]), {"bearer", "token"})
              .empty()) {
        write(text_answer(
            401, "Unauthorized: " + path + " needs a bearer token (Authorization: Bearer …)\n"));
        return;
      }
      body_parser_.emplace(std::move(*parser_));
      body_parser_->body_limit(server_.limits.max_body_bytes);
      http::async_read(stream_, buffer_, *body_parser_,
                       [self = this->shared_from_this()](beast::error_code read_ec, std::size_t) {
                         if (read_ec) return;
                         self->on_read(self->body_parser_->get().base(),
                                       std::move(self->body_parser_->get().body()));
                       });
      return;
    }
    if ((req.method() != http::verb::get && !head_) || !parser_->is_done()) {
      keep_alive_ = false;  // the request may have a body nobody read
      write(text_answer(405, takes_body ? "only GET, or POST with a JSON body\n" : "only GET\n"));
      return;
    }
    on_read(req.base(), {});
  }

  void on_read(const http::request_header<>& req, std::string body) {
    HttpRequest request;
    request.method = std::string(req.method_string());
    request.body = std::move(body);
    std::string target(req.target());
    request.path = target.substr(0, target.find('?'));
    if (const auto q = target.find('?'); q != std::string::npos)
      request.query = target.substr(q + 1);
    request.if_none_match = std::string(req[http::field::if_none_match]);
    request.authorization = std::string(req[http::field::authorization]);
    beast::get_lowest_layer(stream_).expires_never();  // the handler's time is not the client's
    const auto& inline_paths = server_.limits.inline_paths;
    if (request.query.empty() &&
        std::find(inline_paths.begin(), inline_paths.end(), request.path) != inline_paths.end()) {
      write(answer_now(request));
      return;
    }
    const auto& paced = server_.limits.paced_paths;
    if (std::find(paced.begin(), paced.end(), request.path) == paced.end()) {
      handle(std::move(request));
      return;
    }
    // No credential, no turn: an anonymous loop cannot crowd out the callers
    // the handler would serve.
    const std::string token = authorization_token(request.authorization, {"bearer", "token"});
    if (token.empty()) {
      write(text_answer(401, "Unauthorized: " + request.path +
                                 " needs a bearer token (Authorization: Bearer …)\n"));
      return;
    }
    beast::error_code address_ec;
    const auto peer = beast::get_lowest_layer(stream_).socket().remote_endpoint(address_ec);
    const auto& shared = server_.limits.shared_credential;
    const std::string credential = shared && shared(token) ? std::string() : sha256(token);
    const auto wait = server_.pacer.reserve(address_ec ? std::string() : peer.address().to_string(),
                                            RequestPacer::Clock::now(), credential);
    if (!wait) {
      HttpAnswer busy =
          text_answer(429, "too many requests for " + request.path + ": ask again later\n");
      busy.retry_after = std::chrono::ceil<std::chrono::seconds>(server_.limits.pacing.max_wait);
      write(std::move(busy));
      return;
    }
    if (*wait <= RequestPacer::Clock::duration::zero()) {
      handle(std::move(request));
      return;
    }
    turn_.expires_after(*wait);
    turn_.async_wait([self = this->shared_from_this(),
                      request = std::move(request)](beast::error_code wait_ec) mutable {
      if (!wait_ec) self->handle(std::move(request));
    });
  }

  void wait_for_next() {
    res_.reset();
    body_.reset();
    idle = true;
    kept = true;
    idle_since = std::chrono::steady_clock::now();
    beast::get_lowest_layer(stream_).expires_after(server_.limits.idle_timeout);
    read();
  }

  HttpAnswer answer_now(const HttpRequest& request) {
    try {
      return server_.handler(request);
    } catch (const std::exception& e) {
      return text_answer(500, std::string("internal error: ") + e.what() + "\n");
    }
  }

  void handle(HttpRequest request) {
    net::post(*server_.workers,
              [self = this->shared_from_this(), request = std::move(request)]() mutable {
                HttpAnswer answer = self->answer_now(request);
                // The session moves back to the I/O thread whole, so that it is never
                // destroyed on a worker.
                auto& io = self->server_.io;
                net::post(io, [self = std::move(self), answer = std::move(answer)]() mutable {
                  self->write(std::move(answer));
                });
              });
  }

  void write(HttpAnswer answer) {
    res_.emplace(static_cast<http::status>(answer.status), version_);
    res_->set(http::field::server, "tightpack");
    res_->set(http::field::content_type, answer.content_type);
    // Revalidated each time (ETag), never kept by a proxy in between.
    res_->set(http::field::cache_control, answer.etag.empty() ? "no-store" : "private, no-cache");
    if (!answer.etag.empty()) res_->set(http::field::etag, answer.etag);
    if (answer.retry_after.count() > 0)
      res_->set(http::field::retry_after, std::to_string(answer.retry_after.count()));
    res_->keep_alive(keep_alive_);
    // The bytes stay with the session until the answer is written.
    body_ = answer.shared_body ? std::move(answer.shared_body)
                               : std::make_shared<const std::string>(std::move(answer.body));
    res_->body() = http::span_body<const char>::value_type(body_->data(), body_->size());
    res_->prepare_payload();
    if (head_) {
      // HEAD: the length the GET would have, no bytes.
      const auto length = body_->size();
      res_->body() = {};
      res_->content_length(length);
    }
    beast::get_lowest_layer(stream_).expires_after(server_.limits.write_timeout);
    http::async_write(stream_, *res_,
                      [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec) return;
                        if (self->keep_alive_) {
                          self->wait_for_next();
                          return;
                        }
                        if constexpr (kTls) {
                          // close_notify, within what is left of the write deadline
                          self->stream_.async_shutdown([self](beast::error_code) {});
                        } else {
                          self->stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
                        }
                      });
  }

  HttpServer::Impl& server_;
  std::shared_ptr<ssl::context> tls_;  // outlives stream_, which was made with it
  Stream stream_;
  net::steady_timer turn_;  // a paced request's wait for its turn
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::empty_body>> parser_;
  std::optional<http::request_parser<http::string_body>> body_parser_;  // a POST's, from parser_
  std::optional<http::response<http::span_body<const char>>> res_;
  std::shared_ptr<const std::string> body_;
  unsigned version_ = 11;
  bool head_ = false;
  bool keep_alive_ = false;  // the answer being written keeps the connection
  unsigned answered_ = 0;
};

}  // namespace

void HttpServer::Impl::accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted || !acceptor.is_open()) return;
    if (ec) {
      // Out of descriptors, say: try again shortly rather than spin.
      retry.expires_after(std::chrono::milliseconds(100));
      retry.async_wait([this](beast::error_code wait_ec) {
        if (!wait_ec) accept();
      });
      return;
    }
    admit(std::move(socket));
    accept();
  });
}

void HttpServer::Impl::admit(tcp::socket socket) {
  beast::error_code ec;
  const auto peer = socket.remote_endpoint(ec);
  std::string source = ec ? std::string() : peer.address().to_string();
  const auto mine = by_source.find(source);
  const std::size_t held = mine == by_source.end() ? 0 : mine->second.size();
  if (held >= limits.max_connections_per_source) {
    socket.close(ec);
    return;
  }
  if (open >= limits.max_connections) {
    Connection* victim = give_way(source, held);
    if (!victim) {
      socket.close(ec);
      return;
    }
    victim->drop();
  }
  if (tls) {
    reload_certificate();
    std::make_shared<Session<TlsStream>>(*this, std::move(socket), std::move(source))->start();
  } else {
    std::make_shared<Session<PlainStream>>(*this, std::move(socket), std::move(source))->start();
  }
}

Connection* HttpServer::Impl::give_way(const std::string& source, std::size_t held) {
  // The address holding the most, if it would still hold more than the
  // newcomer's once this one is in; its oldest connection still waiting.
  Connection* victim = nullptr;
  std::size_t most = held + 1;
  for (auto& [address, list] : by_source) {
    if (address == source || list.size() <= most) continue;
    for (Connection* c : list) {
      if (c->idle) {
        victim = c;
        most = list.size();
        break;
      }
    }
  }
  if (victim) return victim;
  // Else the connection kept idle the longest, whoever holds it: many
  // clients keeping one each must not lock a newcomer out.
  for (auto& [address, list] : by_source) {
    for (Connection* c : list) {
      if (c->kept && c->idle && (!victim || c->idle_since < victim->idle_since)) victim = c;
    }
  }
  return victim;
}

namespace {

// TLS 1.2 and 1.3 only, as Go's crypto/tls serves kube-scheduler's port.
Result<std::shared_ptr<ssl::context>> tls_context(const ServingCertificate& certificate) {
  auto tls = std::make_shared<ssl::context>(ssl::context::tls_server);
  tls->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                   ssl::context::single_dh_use);
  beast::error_code ec;
  tls->use_certificate_chain(net::buffer(certificate.cert_pem), ec);
  if (!ec) tls->use_private_key(net::buffer(certificate.key_pem), ssl::context::pem, ec);
  if (ec) return Error{"", "the serving certificate or key is not usable: " + ec.message()};
  return tls;
}

std::optional<HttpServer::Impl::FileTimes> file_times(const ServingCertificate& c) {
  std::error_code a, b;
  auto cert = std::filesystem::last_write_time(c.cert_file, a);
  auto key = std::filesystem::last_write_time(c.key_file, b);
  if (a || b) return std::nullopt;
  return std::pair{cert, key};
}

}  // namespace

void HttpServer::Impl::reload_certificate() {
  if (certificate.cert_file.empty()) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - certificate_checked < limits.certificate_check) return;
  certificate_checked = now;
  // A Secret's volume swaps a symlink: the times of what the paths name.
  const auto times = file_times(certificate);
  if (!times || times == certificate_times) return;
  auto loaded = load_serving_certificate(certificate.cert_file, certificate.key_file);
  Result<std::shared_ptr<ssl::context>> context =
      loaded ? tls_context(*loaded) : Result<std::shared_ptr<ssl::context>>(loaded.error());
  if (!context) {
    // Half-written (the key before the certificate): the old pair serves, and
    // the next check tries again.
    log_warning("serving certificate not reloaded, the old one serves: " + context.error().what());
    return;
  }
  certificate_times = times;
  if (loaded->cert_pem == certificate.cert_pem && loaded->key_pem == certificate.key_pem) return;
  certificate = std::move(*loaded);
  tls = std::move(*context);
  log_info("serving certificate reloaded from " + certificate.cert_file);
}

HttpServer::HttpServer() = default;
HttpServer::~HttpServer() {
  stop();
}

Status HttpServer::start(const std::string& listen, HttpHandler handler, HttpLimits limits,
                         const std::string& what, const ServingCertificate* certificate) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos)
    return Error{what, "expected HOST:PORT, got " + quote_value(listen)};
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  unsigned long port = 0;
  try {
    size_t used = 0;
    port = std::stoul(listen.substr(colon + 1), &used);
    if (used != listen.size() - colon - 1 || port > 65535) throw std::out_of_range("");
  } catch (...) {
    return Error{what, "the port is not a number from 0 to 65535: " + quote_value(listen)};
  }
  auto impl = std::make_unique<Impl>();
  impl->limits = limits;
  impl->pacer = RequestPacer(limits.pacing);
  impl->handler = std::move(handler);
  beast::error_code ec;
  if (certificate) {
    auto context = tls_context(*certificate);
    if (!context) return Error{what, context.error().message};
    impl->tls = std::move(*context);
    impl->certificate = *certificate;
    if (!certificate->cert_file.empty()) {
      impl->certificate_times = file_times(*certificate);
      impl->certificate_checked = std::chrono::steady_clock::now();
    }
  }
  const auto address = net::ip::make_address(host, ec);
  if (ec) return Error{what, "not an IP address: " + quote_value(host)};
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return Error{what, "cannot listen on " + listen + ": " + ec.message()};
  port_ = impl->acceptor.local_endpoint().port();
  impl->workers.emplace(std::max(1u, limits.handler_threads));
  impl->accept();
  impl->thread = std::thread([io = &impl->io] { io->run(); });
  impl_ = std::move(impl);
  return Ok{};
}

void HttpServer::stop() {
  if (!impl_) return;
  // Nothing waits for a client: the I/O thread stops where it is, a running
  // handler finishes, and destroying the context closes every connection.
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->workers->stop();
  impl_->workers->join();
  impl_->workers.reset();
  impl_.reset();
}

Result<std::map<std::string, std::string>> parse_query(
    std::string_view query, std::initializer_list<std::string_view> allowed) {
  std::map<std::string, std::string> out;
  auto decode = [](std::string_view text, std::string& into) {
    auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '+') {
        into += ' ';
      } else if (text[i] != '%') {
        into += text[i];
      } else if (i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
        into += static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
        i += 2;
      } else {
        return false;
      }
    }
    return true;
  };
  size_t start = 0;
  while (start <= query.size() && !query.empty()) {
    const size_t end = std::min(query.find('&', start), query.size());
    const std::string_view pair = query.substr(start, end - start);
    start = end + 1;
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    std::string key, value;
    if (!decode(pair.substr(0, eq), key) ||
        !decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), value)) {
      return Error{"query", "bad percent-encoding in " + quote_value(pair)};
    }
    bool known = false;
    for (std::string_view a : allowed) known = known || a == key;
    if (!known) return Error{"query", "unknown parameter " + quote_value(key)};
    if (!out.emplace(key, std::move(value)).second)
      return Error{"query", "parameter " + quote_value(key) + " given twice"};
  }
  return out;
}

}  // namespace tightpack::daemon
