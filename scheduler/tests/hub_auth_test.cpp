// /home's identity check: the hub's GET /user answer decides, is cached by
// token, and a hub that fails or misbehaves gives 503 without a cached
// refusal. The hub here is a test double (a loopback socket answering canned
// HTTP); tests/scheduler/test_jupyterhub.py asks the real JupyterHub.
#include "daemon/hub_auth.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

namespace tightpack::daemon {
namespace {

TEST(HubApiUrl, ParsesWhatZeroToJupyterHubGivesAndNamesWhatItRefuses) {
  auto e = parse_hub_api_url("http://hub:8081/hub/api/");
  ASSERT_TRUE(e) << e.error().what();
  EXPECT_EQ(e->host, "hub");
  EXPECT_EQ(e->port, "8081");
  EXPECT_EQ(e->prefix, "/hub/api");
  e = parse_hub_api_url("http://hub.daskhub.svc.cluster.local/hub/api");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->port, "80");
  for (const char* bad :
       {"https://hub:8081/hub/api", "hub:8081/hub/api", "http://:8081/x", "http://hub:0/x",
        "http://hub:99999/x", "http://user@hub/x", "http://hub:8081/hub/api?x=1", ""}) {
    auto r = parse_hub_api_url(bad);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_NE(std::string(r.error().what()).find("--hub-api-url"), std::string::npos)
          << r.error().what();
    }
  }
}

// Answers every connection with `answer` (an HTTP response) and counts them.
class CannedHub {
 public:
  explicit CannedHub(std::string answer) : answer_(std::move(answer)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    listen(fd_, 16);
    thread_ = std::thread([this] {
      while (true) {
        int c = accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        char buf[4096];
        std::string request;
        while (request.find("\r\n\r\n") == std::string::npos) {
          ssize_t n = read(c, buf, sizeof buf);
          if (n <= 0) break;
          request.append(buf, static_cast<size_t>(n));
        }
        last_request_ = request;
        ++requests_;
        (void)!write(c, answer_.data(), answer_.size());
        close(c);
      }
    });
  }
  ~CannedHub() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  HubEndpoint endpoint() const {
    return *parse_hub_api_url("http://127.0.0.1:" + std::to_string(port_) + "/hub/api");
  }
  int requests() const { return requests_; }
  std::string last_request() const { return last_request_; }

 private:
  std::string answer_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> requests_{0};
  std::string last_request_;
  std::thread thread_;
};

std::string http(int status, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(status) +
         " X\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

TEST(HubAuth, TheHubNamesTheUserOnceAMinute) {
  CannedHub hub(http(200, R"({"kind": "user", "name": "alice", "admin": false})"));
  HubAuth auth(hub.endpoint());
  HubDecision d = auth.check("token s3cret");
  EXPECT_EQ(d.status, 200u) << d.reason;
  EXPECT_EQ(d.user, "alice");
  EXPECT_NE(hub.last_request().find("GET /hub/api/user HTTP/1.1"), std::string::npos)
      << hub.last_request();
  EXPECT_NE(hub.last_request().find("Authorization: token s3cret"), std::string::npos)
      << hub.last_request();
  EXPECT_EQ(auth.check("Bearer s3cret").user, "alice");  // the same token, cached
  EXPECT_EQ(hub.requests(), 1);
}

TEST(HubAuth, RefusalsNeverNameTheToken) {
  CannedHub refusing(http(403, R"({"status": 403, "message": "Missing or invalid credentials."})"));
  HubAuth auth(refusing.endpoint());
  for (const char* header : {"", "token", "token ", "Basic abc", "token two words",
                             "token a\x01"
                             "b"}) {
    HubDecision d = auth.check(header);
    EXPECT_EQ(d.status, 401u) << header;
  }
  EXPECT_EQ(refusing.requests(), 0);  // none of those reaches the hub
  HubDecision d = auth.check("token wrong-token");
  EXPECT_EQ(d.status, 401u);
  EXPECT_EQ(d.reason.find("wrong-token"), std::string::npos) << d.reason;
  auth.check("token wrong-token");
  EXPECT_EQ(refusing.requests(), 1);  // a refusal is cached too
}

TEST(HubAuth, AServicesTokenIsNotAUsers) {
  CannedHub hub(http(200, R"({"kind": "service", "name": "announcements"})"));
  HubAuth auth(hub.endpoint());
  EXPECT_EQ(auth.check("token t").status, 403u);
}

TEST(HubAuth, AHubThatFailsGives503AndIsAskedAgain) {
  {
    CannedHub hub(http(500, "oops"));
    HubAuth auth(hub.endpoint());
    EXPECT_EQ(auth.check("token t").status, 503u);
    EXPECT_EQ(auth.check("token t").status, 503u);
    EXPECT_EQ(hub.requests(), 2);
  }
  {
    CannedHub hub(http(
        200, std::string(HubAuth::kMaxAnswerBytes + 10, ' ') + R"({"kind": "user", "name": "x"})"));
    HubAuth auth(hub.endpoint());
    EXPECT_EQ(auth.check("token t").status, 503u);
  }
  {
    CannedHub hub(http(200, R"({"kind": "user"})"));
    EXPECT_EQ(HubAuth(hub.endpoint()).check("token t").status, 503u);
  }
  HubEndpoint closed = *parse_hub_api_url("http://127.0.0.1:1/hub/api");
  HubDecision d = HubAuth(closed).check("token t");
  EXPECT_EQ(d.status, 503u);
  EXPECT_NE(d.reason.find("cannot ask the hub at http://127.0.0.1:1/hub/api"), std::string::npos)
      << d.reason;
}

}  // namespace
}  // namespace tightpack::daemon
