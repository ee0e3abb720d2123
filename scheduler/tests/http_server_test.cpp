// The daemon's HTTP listener against clients that try to hold it: any pod in
// the cluster can connect, so none of them may delay another's answer or the
// process's exit. Plain sockets on loopback; deadlines shortened so that each
// case takes well under a second.
#include "daemon/http_server.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace tightpack::daemon {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A connected socket, closed when it goes.
class Client {
 public:
  // From `source`, a loopback address of its own (127.0.0.0/8 is all local),
  // so that tests can play many client addresses.
  explicit Client(unsigned short port, const char* source = "127.0.0.1")
      : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in from{};
    from.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &from.sin_addr);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof from);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~Client() { ::close(fd_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool connected() const { return connected_; }
  bool send(const std::string& data) {
    return ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL) == ssize_t(data.size());
  }
  void receive_buffer(int bytes) { ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes); }

  // Everything until the server closes, or "" after `timeout`.
  std::string read_all(std::chrono::milliseconds timeout) {
    std::string out;
    const auto deadline = Clock::now() + timeout;
    char buf[65536];
    while (true) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return "";
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return out;
      out.append(buf, static_cast<size_t>(n));
    }
  }

  // One answer on a kept connection: its head and Content-Length bytes, or
  // "" if they do not come within `timeout`.
  std::string read_answer(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    char buf[65536];
    while (Clock::now() < deadline) {
      const size_t head = pending_.find("\r\n\r\n");
      if (head != std::string::npos) {
        const size_t at = pending_.find("Content-Length: ");
        const size_t length = at < head ? std::stoul(pending_.substr(at + 16)) : 0;
        if (pending_.size() >= head + 4 + length) {
          std::string answer = pending_.substr(0, head + 4 + length);
          pending_.erase(0, head + 4 + length);
          return answer;
        }
      }
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return "";
      pending_.append(buf, static_cast<size_t>(n));
    }
    return "";
  }

  // Whether the server closed the connection within `timeout`.
  bool closed_within(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    char buf[65536];
    while (Clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return true;
    }
    return false;
  }

 private:
  int fd_;
  bool connected_ = false;
  std::string pending_;  // read past the last answer
};

std::string get(unsigned short port, const std::string& path,
                std::chrono::milliseconds timeout = 1000ms) {
  Client c(port);
  if (!c.connected() ||
      !c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
    return "";
  return c.read_all(timeout);
}

bool ok(const std::string& response) {
  return response.rfind("HTTP/1.1 200", 0) == 0;
}

struct Server {
  HttpServer http;
  explicit Server(HttpLimits limits = {}, HttpHandler handler = nullptr) {
    if (!handler) {
      handler = [](const HttpRequest& req) -> HttpAnswer {
        if (req.path == "/big") return text_answer(200, std::string(8 << 20, 'x'));
        if (req.path == "/slow") {
          std::this_thread::sleep_for(400ms);
          return text_answer(200, "slow\n");
        }
        if (req.path == "/throw") throw std::runtime_error("boom");
        if (req.path == "/tagged") {
          static const auto shared = std::make_shared<const std::string>("{\"shared\":true}");
          HttpAnswer a;
          a.etag = "\"v1\"";
          if (req.if_none_match == a.etag) {
            a.status = 304;
            return a;
          }
          a.content_type = "application/json";
          a.shared_body = shared;
          return a;
        }
        return text_answer(200, "ok\n");
      };
    }
    auto started = http.start("127.0.0.1:0", std::move(handler), limits);
    EXPECT_TRUE(started) << (started ? "" : started.error().what());
  }
  unsigned short port() const { return http.port(); }
};

TEST(HttpServer, AnIdleConnectionDelaysNoOne) {
  Server s;
  Client idle(s.port());
  ASSERT_TRUE(idle.connected());
  const auto t = Clock::now();
  EXPECT_TRUE(ok(get(s.port(), "/healthz")));
  EXPECT_LT(Clock::now() - t, 500ms);
}

TEST(HttpServer, ASlowSenderIsDroppedAtTheReadDeadline) {
  HttpLimits limits;
  limits.read_timeout = 300ms;
  Server s(limits);
  Client slow(s.port());
  ASSERT_TRUE(slow.connected());
  std::atomic<bool> done{false};
  // One byte every 50 ms: each arrives well within any per-read timeout.
  std::thread sender([&] {
    const std::string request =
        "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Padding: ";
    for (size_t i = 0; !done && i < 40; ++i) {
      if (!slow.send(std::string(1, request[i % request.size()]))) break;
      std::this_thread::sleep_for(50ms);
    }
  });
  EXPECT_TRUE(ok(get(s.port(), "/healthz")));
  EXPECT_TRUE(slow.closed_within(1000ms));
  done = true;
  sender.join();
}

TEST(HttpServer, ASlowReaderIsDroppedAtTheWriteDeadlineAndDelaysNoOne) {
  HttpLimits limits;
  limits.write_timeout = 300ms;
  Server s(limits);
  Client reader(s.port());
  reader.receive_buffer(4096);
  ASSERT_TRUE(reader.send("GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  std::this_thread::sleep_for(50ms);
  const auto t = Clock::now();
  EXPECT_TRUE(ok(get(s.port(), "/healthz")));
  EXPECT_LT(Clock::now() - t, 500ms);
  // Reading nothing for a second, then everything: the answer was cut.
  std::this_thread::sleep_for(1000ms);
  const std::string got = reader.read_all(2000ms);
  EXPECT_LT(got.size(), size_t{8 << 20});
}

TEST(HttpServer, TwoHundredConcurrentClientsAreAllAnswered) {
  // From 20 addresses, 10 each: within the per-address cap.
  Server s;
  std::vector<std::future<std::string>> answers;
  for (int i = 0; i < 200; ++i) {
    answers.push_back(std::async(std::launch::async, [&s, i] {
      const std::string source = "127.0.2." + std::to_string(1 + i % 20);
      Client c(s.port(), source.c_str());
      if (!c.connected() ||
          !c.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
        return std::string();
      return c.read_all(5000ms);
    }));
  }
  int answered = 0;
  for (auto& a : answers) answered += ok(a.get()) ? 1 : 0;
  EXPECT_EQ(answered, 200);
}

TEST(HttpServer, ConnectionsBeyondTheCapAreClosedAtOnce) {
  HttpLimits limits;
  limits.max_connections = 2;
  Server s(limits);
  Client a(s.port()), b(s.port());
  std::this_thread::sleep_for(100ms);
  Client c(s.port());
  EXPECT_TRUE(c.closed_within(500ms));
  EXPECT_FALSE(a.closed_within(100ms));
}

HttpLimits connection_caps(std::size_t total, std::size_t per_address) {
  HttpLimits limits;
  limits.max_connections = total;
  limits.max_connections_per_source = per_address;
  return limits;
}

TEST(HttpServer, OneAddressCannotTakeTheCap) {
  Server s(connection_caps(8, 3));
  std::vector<std::unique_ptr<Client>> held;
  for (int i = 0; i < 3; ++i) held.push_back(std::make_unique<Client>(s.port(), "127.0.0.7"));
  std::this_thread::sleep_for(100ms);
  Client fourth(s.port(), "127.0.0.7");
  EXPECT_TRUE(fourth.closed_within(500ms));
  EXPECT_FALSE(held[0]->closed_within(100ms));
  EXPECT_TRUE(ok(get(s.port(), "/healthz")));  // another address gets in
}

TEST(HttpServer, WhenFullTheAddressHoldingMostGivesWay) {
  // Three addresses hold the cap between them, idle; a probe from a fourth is
  // answered, at the cost of the oldest idle connection of the largest holder.
  Server s(connection_caps(9, 5));
  std::vector<std::unique_ptr<Client>> held;
  for (const char* address : {"127.0.0.11", "127.0.0.11", "127.0.0.11", "127.0.0.11", "127.0.0.11",
                              "127.0.0.12", "127.0.0.12", "127.0.0.13", "127.0.0.13"}) {
    held.push_back(std::make_unique<Client>(s.port(), address));
  }
  std::this_thread::sleep_for(100ms);
  Client probe(s.port(), "127.0.0.20");
  ASSERT_TRUE(probe.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  EXPECT_TRUE(ok(probe.read_all(1000ms)));
  EXPECT_TRUE(held[0]->closed_within(500ms));   // 127.0.0.11's oldest
  EXPECT_FALSE(held[5]->closed_within(100ms));  // 127.0.0.12 held fewer
  EXPECT_FALSE(held[1]->closed_within(100ms));
  // Again and again: each newcomer takes an idle slot of whoever holds most.
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(ok(get(s.port(), "/healthz"))) << i;
}

TEST(HttpServer, ProbesAreAnsweredWhileEveryHandlerIsBusy) {
  std::atomic<bool> release{false};
  HttpLimits limits;
  limits.handler_threads = 2;
  limits.inline_paths = {"/healthz"};
  Server s(limits, [&](const HttpRequest& req) {
    if (req.path == "/healthz") return text_answer(200, "ok\n");
    while (!release) std::this_thread::sleep_for(5ms);  // a review that hangs
    return text_answer(200, "late\n");
  });
  std::vector<std::future<std::string>> stuck;
  for (int i = 0; i < 4; ++i)
    stuck.push_back(
        std::async(std::launch::async, [&] { return get(s.port(), "/metrics", 5000ms); }));
  std::this_thread::sleep_for(100ms);
  const auto t = Clock::now();
  EXPECT_TRUE(ok(get(s.port(), "/healthz")));
  EXPECT_LT(Clock::now() - t, 300ms);
  // With a query it is an ordinary request (/readyz?verbose asks who is asking).
  auto with_query =
      std::async(std::launch::async, [&] { return get(s.port(), "/healthz?verbose", 5000ms); });
  EXPECT_EQ(with_query.wait_for(200ms), std::future_status::timeout);
  release = true;
  for (auto& f : stuck) EXPECT_TRUE(ok(f.get()));
  EXPECT_TRUE(ok(with_query.get()));
}

TEST(HttpServer, APacedPathWithoutACredentialIsRefusedBeforeItsTurn) {
  HttpLimits limits;
  limits.paced_paths = {"/metrics"};
  limits.pacing.per_client_rate = 0.001;
  limits.pacing.per_client_burst = 1;
  limits.pacing.rate = 0.001;
  limits.pacing.burst = 1;
  Server s(limits);
  // Anonymous loops get 401, and leave the one turn there is to a caller with a credential.
  for (int i = 0; i < 20; ++i) {
    const std::string r = get(s.port(), "/metrics");
    EXPECT_EQ(r.rfind("HTTP/1.1 401", 0), 0u) << r;
  }
  Client c(s.port());
  ASSERT_TRUE(
      c.send("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer "
             "abc\r\n\r\n"));
  EXPECT_TRUE(ok(c.read_all(1000ms)));
  Client blank(s.port());
  ASSERT_TRUE(blank.send(
      "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer  \r\n\r\n"));
  EXPECT_EQ(blank.read_all(1000ms).rfind("HTTP/1.1 401", 0), 0u);
}

TEST(HttpServer, APersonalCredentialIsPacedAsOneCallerFromAnyAddress) {
  HttpLimits limits;
  limits.paced_paths = {"/metrics"};
  limits.pacing.per_client_rate = 0.001;  // a turn beyond the burst is refused
  limits.pacing.per_client_burst = 2;
  limits.pacing.rate = 1000;
  limits.pacing.burst = 1000;
  limits.pacing.max_wait = 1000ms;
  limits.shared_credential = [](const std::string& token) { return token == "shared-token"; };
  Server s(limits);
  auto ask = [&](const char* source, const std::string& token) {
    Client c(s.port(), source);
    c.send("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer " +
           token + "\r\n\r\n");
    return c.read_all(1000ms).substr(0, 12);
  };
  // One user's pods: three addresses, one credential, two turns.
  EXPECT_EQ(ask("127.0.0.51", "alice-token"), "HTTP/1.1 200");
  EXPECT_EQ(ask("127.0.0.52", "alice-token"), "HTTP/1.1 200");
  EXPECT_EQ(ask("127.0.0.53", "alice-token"), "HTTP/1.1 429");
  EXPECT_EQ(ask("127.0.0.53", "bob-token"), "HTTP/1.1 200");  // another caller is not held up
  // The token every notebook server holds is paced per address only.
  for (const char* source : {"127.0.0.54", "127.0.0.55", "127.0.0.56", "127.0.0.57"})
    EXPECT_EQ(ask(source, "shared-token"), "HTTP/1.1 200") << source;
}

TEST(HttpServer, ASlowHandlerDelaysNoOtherRequest) {
  Server s;
  auto slow = std::async(std::launch::async, [&] { return get(s.port(), "/slow", 2000ms); });
  std::this_thread::sleep_for(50ms);
  const auto t = Clock::now();
  EXPECT_TRUE(ok(get(s.port(), "/healthz")));
  EXPECT_LT(Clock::now() - t, 300ms);
  EXPECT_TRUE(ok(slow.get()));
}

TEST(HttpServer, AThrowingHandlerIsA500) {
  Server s;
  const std::string got = get(s.port(), "/throw");
  EXPECT_EQ(got.rfind("HTTP/1.1 500", 0), 0u) << got;
  EXPECT_NE(got.find("boom"), std::string::npos);
}

TEST(HttpServer, OnlyGetAndHead) {
  Server s;
  Client c(s.port());
  ASSERT_TRUE(c.send(
      "POST /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"));
  EXPECT_EQ(c.read_all(1000ms).rfind("HTTP/1.1 405", 0), 0u);
}

// A path that takes a body gets it whole; the body is read only with a
// declared length within the limit, from a caller with a credential.
TEST(HttpServer, APostBodyOnlyWhereOneIsTakenAndWithinItsLimit) {
  HttpLimits limits;
  limits.body_paths = {"/ask"};
  limits.max_body_bytes = 64;
  Server s(limits, [](const HttpRequest& req) {
    return text_answer(200, req.method + " " + req.path + " [" + req.body + "]\n");
  });
  auto post = [&](const std::string& path, const std::string& headers, const std::string& body) {
    Client c(s.port());
    EXPECT_TRUE(c.send("POST " + path + " HTTP/1.1\r\nHost: x\r\n" + headers + "\r\n" + body));
    return c.read_all(2000ms);
  };
  const std::string token = "Authorization: Bearer t\r\n";
  std::string got =
      post("/ask", token + "Content-Length: 9\r\n", std::string(R"({"a": 1})") + "\n");
  EXPECT_EQ(got.rfind("HTTP/1.1 200", 0), 0u) << got;
  EXPECT_NE(got.find("POST /ask [{\"a\": 1}\n]"), std::string::npos) << got;
  EXPECT_NE(got.find("Connection: close"), std::string::npos) << got;
  got = post("/ask", token + "Content-Length: 65\r\n", std::string(65, 'x'));
  EXPECT_EQ(got.rfind("HTTP/1.1 413", 0), 0u) << got;
  got = post("/ask", token + "Transfer-Encoding: chunked\r\n", "2\r\nab\r\n0\r\n\r\n");
  EXPECT_EQ(got.rfind("HTTP/1.1 411", 0), 0u) << got;
  got = post("/ask", "Content-Length: 2\r\n", "{}");
  EXPECT_EQ(got.rfind("HTTP/1.1 401", 0), 0u) << got;
  got = post("/other", token + "Content-Length: 2\r\n", "{}");
  EXPECT_EQ(got.rfind("HTTP/1.1 405", 0), 0u) << got;
  // A body slower than the read deadline is dropped like a slow header.
  limits.read_timeout = 300ms;
  Server slow(limits, [](const HttpRequest&) { return text_answer(200, "ok\n"); });
  Client c(slow.port());
  ASSERT_TRUE(c.send("POST /ask HTTP/1.1\r\nHost: x\r\n" + token + "Content-Length: 10\r\n\r\n{"));
  EXPECT_TRUE(c.closed_within(2000ms));
  // GET still answers there.
  EXPECT_TRUE(ok(get(s.port(), "/ask")));
  // Beyond Beast's own default limit (1 MiB) the answer is still a 413.
  HttpLimits wide;
  wide.body_paths = {"/ask"};
  wide.max_body_bytes = std::size_t{4} << 20;
  Server big(wide);
  Client b(big.port());
  ASSERT_TRUE(b.send("POST /ask HTTP/1.1\r\nHost: x\r\n" + token +
                     "Content-Length: " + std::to_string((std::size_t{4} << 20) + 1) + "\r\n\r\n"));
  EXPECT_EQ(b.read_all(2000ms).rfind("HTTP/1.1 413", 0), 0u);
}

TEST(HttpServer, OversizedHeadersCloseTheConnection) {
  Server s;
  Client c(s.port());
  c.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: " +
         std::string(64 * 1024, 'a') + "\r\n\r\n");
  EXPECT_TRUE(c.closed_within(1000ms));
}

TEST(HttpServer, SharedBytesWithAnEntityTag) {
  Server s;
  const std::string got = get(s.port(), "/tagged");
  EXPECT_EQ(got.rfind("HTTP/1.1 200", 0), 0u) << got;
  EXPECT_NE(got.find("ETag: \"v1\""), std::string::npos) << got;
  EXPECT_NE(got.find("Cache-Control: private, no-cache"), std::string::npos) << got;
  EXPECT_NE(got.find("\r\n\r\n{\"shared\":true}"), std::string::npos) << got;
  Client c(s.port());
  ASSERT_TRUE(c.send(
      "GET /tagged HTTP/1.1\r\nHost: x\r\nConnection: close\r\nIf-None-Match: \"v1\"\r\n\r\n"));
  const std::string again = c.read_all(1000ms);
  EXPECT_EQ(again.rfind("HTTP/1.1 304", 0), 0u) << again;
  EXPECT_EQ(again.find("shared"), std::string::npos) << again;
}

TEST(HttpServer, HeadGivesTheLengthWithoutTheBytes) {
  Server s;
  Client c(s.port());
  ASSERT_TRUE(c.send("HEAD /tagged HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  const std::string got = c.read_all(1000ms);
  EXPECT_NE(got.find("Content-Length: 15"), std::string::npos) << got;
  EXPECT_EQ(got.find("shared"), std::string::npos) << got;
}

TEST(HttpServer, StopReturnsAtOnceWhateverTheClientsDo) {
  auto s = std::make_unique<Server>();
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 20; ++i) idle.push_back(std::make_unique<Client>(s->port()));
  Client reader(s->port());
  reader.receive_buffer(4096);
  reader.send("GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  std::this_thread::sleep_for(100ms);
  const auto t = Clock::now();
  s->http.stop();
  EXPECT_LT(Clock::now() - t, 200ms);
  EXPECT_TRUE(idle.front()->closed_within(500ms));
}

TEST(HttpServer, ATlsPortAnswersNoPlainRequestAndDropsAStalledHandshake) {
  auto certificate = self_signed_certificate({"localhost", "127.0.0.1"});
  ASSERT_TRUE(certificate) << certificate.error().what();
  HttpLimits limits;
  limits.read_timeout = 300ms;
  HttpServer http;
  ASSERT_TRUE(http.start(
      "127.0.0.1:0", [](const HttpRequest&) { return text_answer(200, "ok\n"); }, limits,
      "--listen", &*certificate));
  Client plain(http.port());
  ASSERT_TRUE(plain.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(plain.read_all(1000ms).find("HTTP/1.1 200"), std::string::npos);
  Client stalled(http.port());  // connects, never says hello
  EXPECT_TRUE(stalled.closed_within(1000ms));
}

constexpr const char* kKeptGet = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";

TEST(HttpServer, AConnectionIsKeptForTheNextRequest) {
  Server s;
  Client c(s.port());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(c.send(kKeptGet)) << i;
    const std::string got = c.read_answer(1000ms);
    EXPECT_TRUE(ok(got)) << i << ": " << got;
    EXPECT_EQ(got.find("Connection: close"), std::string::npos) << got;
  }
  // Two at once (pipelined), then one that asks to close.
  ASSERT_TRUE(c.send(std::string(kKeptGet) + "GET /tagged HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_TRUE(ok(c.read_answer(1000ms)));
  EXPECT_NE(c.read_answer(1000ms).find("{\"shared\":true}"), std::string::npos);
  ASSERT_TRUE(c.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  EXPECT_NE(c.read_answer(1000ms).find("Connection: close"), std::string::npos);
  EXPECT_TRUE(c.closed_within(500ms));
}

TEST(HttpServer, HttpOneZeroIsAnsweredAndClosed) {
  Server s;
  Client c(s.port());
  ASSERT_TRUE(c.send("GET /healthz HTTP/1.0\r\n\r\n"));
  EXPECT_EQ(c.read_all(1000ms).rfind("HTTP/1.0 200", 0), 0u);
}

TEST(HttpServer, AKeptConnectionGoesAfterTheIdleTimeout) {
  HttpLimits limits;
  limits.idle_timeout = 200ms;
  Server s(limits);
  Client c(s.port());
  ASSERT_TRUE(c.send(kKeptGet));
  EXPECT_TRUE(ok(c.read_answer(1000ms)));
  const auto t = Clock::now();
  EXPECT_TRUE(c.closed_within(1000ms));
  EXPECT_GE(Clock::now() - t, 150ms);
}

TEST(HttpServer, AConnectionClosesAfterItsLastAllowedAnswer) {
  HttpLimits limits;
  limits.max_requests_per_connection = 3;
  Server s(limits);
  Client c(s.port());
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(c.send(kKeptGet));
    EXPECT_EQ(c.read_answer(1000ms).find("Connection: close"), std::string::npos) << i;
  }
  ASSERT_TRUE(c.send(kKeptGet));
  const std::string last = c.read_answer(1000ms);
  EXPECT_TRUE(ok(last)) << last;
  EXPECT_NE(last.find("Connection: close"), std::string::npos) << last;
  EXPECT_TRUE(c.closed_within(500ms));
}

TEST(HttpServer, WhenFullTheConnectionKeptIdleLongestGivesWay) {
  // Six addresses keep one connection each after an answer: the cap is
  // reached with no address holding more than another. A seventh address is
  // answered; the connection kept idle the longest goes, no other.
  Server s(connection_caps(6, 2));
  std::vector<std::unique_ptr<Client>> kept;
  for (int i = 0; i < 6; ++i) {
    const std::string address = "127.0.0." + std::to_string(31 + i);
    kept.push_back(std::make_unique<Client>(s.port(), address.c_str()));
    ASSERT_TRUE(kept.back()->send(kKeptGet));
    ASSERT_TRUE(ok(kept.back()->read_answer(1000ms))) << i;
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(kept[0]->send(kKeptGet));  // used again: now the most recent
  ASSERT_TRUE(ok(kept[0]->read_answer(1000ms)));
  Client newcomer(s.port(), "127.0.0.40");
  ASSERT_TRUE(newcomer.send(kKeptGet));
  EXPECT_TRUE(ok(newcomer.read_answer(1000ms)));
  EXPECT_TRUE(kept[1]->closed_within(500ms));
  for (int i : {0, 2, 3, 4, 5}) EXPECT_FALSE(kept[i]->closed_within(50ms)) << i;
}

TEST(HttpServer, ABadListenAddressNamesTheFlag) {
  HttpServer http;
  auto started = http.start(
      "nowhere:80", [](const HttpRequest&) { return HttpAnswer{}; }, {}, "--probe-listen");
  ASSERT_FALSE(started);
  EXPECT_NE(std::string(started.error().what()).find("--probe-listen"), std::string::npos);
}

TEST(ParseQuery, DecodesAndNamesWhatIsWrong) {
  auto q = parse_query("namespace=jhub&cluster=al%69ce+b&", {"namespace", "cluster"});
  ASSERT_TRUE(q.ok()) << q.error().what();
  EXPECT_EQ((*q)["namespace"], "jhub");
  EXPECT_EQ((*q)["cluster"], "alice b");
  EXPECT_TRUE(parse_query("", {"namespace"}).ok());
  EXPECT_EQ(parse_query("cluster=a%2", {"cluster"}).error().what(),
            "query: bad percent-encoding in \"cluster=a%2\"");
  EXPECT_EQ(parse_query("cluster=a%zz", {"cluster"}).error().what(),
            "query: bad percent-encoding in \"cluster=a%zz\"");
  EXPECT_EQ(parse_query("pods=all", {"cluster"}).error().what(),
            "query: unknown parameter \"pods\"");
  EXPECT_EQ(parse_query("cluster=a&cluster=b", {"cluster"}).error().what(),
            "query: parameter \"cluster\" given twice");
}

}  // namespace
}  // namespace tightpack::daemon
