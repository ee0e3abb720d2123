// What the API client holds of an answer: an event line, an error body and a
// list page are bounded, so that an API server, or whatever answers in its
// place, cannot make the daemon allocate without limit. The server here is a
// test double (the daemon's own HTTPS listener with a self-signed
// certificate), since a real kube-apiserver never sends these answers.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "daemon/http_server.hpp"
#include "daemon/serving_cert.hpp"
#include "kube/api_client.hpp"
#include "kube/reflector.hpp"

namespace tightpack::kube {
namespace {

using daemon::HttpAnswer;
using daemon::HttpRequest;

HttpAnswer answer(unsigned status, std::string body) {
  HttpAnswer a = daemon::text_answer(status, std::move(body));
  a.content_type = "application/json";
  return a;
}

struct FakeApiServer {
  daemon::HttpServer http;
  explicit FakeApiServer(daemon::HttpHandler handler) {
    auto cert = daemon::self_signed_certificate({"127.0.0.1"});
    EXPECT_TRUE(cert);
    auto started = http.start("127.0.0.1:0", std::move(handler), {}, "--listen", &*cert);
    EXPECT_TRUE(started) << (started ? "" : started.error().what());
  }
  std::shared_ptr<const ClientConfig> config() const {
    auto c = std::make_shared<ClientConfig>();
    EXPECT_TRUE(set_server(*c, "https://127.0.0.1:" + std::to_string(http.port())));
    c->insecure_skip_verify = true;
    return c;
  }
};

std::string event(const std::string& name) {
  return R"({"type":"ADDED","object":{"metadata":{"name":")" + name +
         R"("}}})"
         "\n";
}

TEST(ApiClientLimits, EventsAreHandedOnLineByLine) {
  FakeApiServer server(
      [](const HttpRequest&) { return answer(200, event("a") + event("b") + "\n" + event("c")); });
  ApiClient client(server.config(), nullptr);
  std::vector<std::string> lines;
  auto r = client.stream(
      "/api/v1/pods?watch=1",
      [&](std::string_view l) {
        lines.emplace_back(l);
        return true;
      },
      std::chrono::seconds(5));
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_FALSE(r->oversized_event);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2] + "\n", event("c"));
}

TEST(ApiClientLimits, AnEventLongerThanTheLimitEndsTheStream) {
  // A good event, then a line that never ends within the limit.
  FakeApiServer server([](const HttpRequest&) {
    return answer(200, event("a") + "{\"type\":\"ADDED\",\"object\":{\"x\":\"" +
                           std::string(kMaxWatchEventBytes + (1 << 20), 'x'));
  });
  ApiClient client(server.config(), nullptr);
  int lines = 0;
  auto r = client.stream(
      "/api/v1/pods?watch=1",
      [&](std::string_view) {
        ++lines;
        return true;
      },
      std::chrono::seconds(10));
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_TRUE(r->oversized_event);
  EXPECT_EQ(lines, 1);
}

TEST(ApiClientLimits, AWatchErrorBodyIsCut) {
  FakeApiServer server([](const HttpRequest&) { return answer(403, std::string(1 << 20, 'e')); });
  ApiClient client(server.config(), nullptr);
  auto r = client.stream(
      "/api/v1/pods?watch=1", [](std::string_view) { return true; }, std::chrono::seconds(5));
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->status, 403u);
  EXPECT_EQ(r->body.size(), kMaxErrorBodyBytes);
}

TEST(ApiClientLimits, AnErrorBodyBeyondTheLimitIsNotRead) {
  FakeApiServer server([](const HttpRequest& req) {
    if (req.path == "/api/v1/small")
      return answer(404, R"({"kind":"Status","message":"pods \"x\" not found"})");
    return answer(500, std::string(1 << 20, 'e'));
  });
  ApiClient client(server.config(), nullptr);
  auto r = client.request("GET", "/api/v1/big");
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->status, 500u);
  EXPECT_EQ(r->body.size() < 100 ? r->body : "(" + std::to_string(r->body.size()) + " bytes)",
            "(an error body larger than 64 KiB, not read)");
  // and the client is still good for the next request
  r = client.request("GET", "/api/v1/small");
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(api_error_text(*r), "404 pods \"x\" not found");
}

// The reflector parses objects as core does, with core's depth limit (128),
// not Boost.JSON's default of 32: a pod nested deeper (an operator's
// extra_pod_config, managedFields of a deep spec) must not break the watch
// into a relist loop.
TEST(ReflectorParsing, AnEventNestedDeeperThan32IsHandedOn) {
  std::string deep = "0";
  for (int i = 0; i < 60; ++i) deep = "[" + deep + "]";
  const std::string pod =
      R"({"kind":"Pod","metadata":{"name":"deep","resourceVersion":"6"},"spec":{"x":)" + deep +
      "}}";
  FakeApiServer server([&](const HttpRequest& req) {
    if (req.query.find("watch=1") == std::string::npos) {
      return answer(
          200, R"({"kind":"PodList","metadata":{"resourceVersion":"5"},"items":[)" + pod + "]}");
    }
    return answer(200, R"({"type":"ADDED","object":)" + pod + "}\n");
  });
  std::atomic<int> listed{0}, events{0};
  ReflectorHandler h;
  h.list_begin = [] {};
  h.list_item = [&](const boost::json::value&) { ++listed; };
  h.list_end = [] {};
  h.event = [&](EventType, const boost::json::value&) { ++events; };
  Reflector reflector("/api/v1/pods", "pods", server.config(), nullptr, h);
  reflector.start();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (events == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  reflector.stop();
  EXPECT_GE(listed.load(), 1);
  EXPECT_GE(events.load(), 1);
  EXPECT_EQ(reflector.relists(), 1) << "a deep event must not make the reflector list again";
}

}  // namespace
}  // namespace tightpack::kube
