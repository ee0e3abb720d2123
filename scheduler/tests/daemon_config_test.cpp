// The daemon's part of a KubeSchedulerConfiguration, and kubeconfig files.
#include "daemon/daemon_config.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "kube/client_config.hpp"

namespace tightpack::daemon {
namespace {

boost::json::value doc(const char* text) {
  return boost::json::parse(text);
}

TEST(DaemonConfig, KubeSchedulerDefaultsWithOurOwnLease) {
  auto c = decode_daemon_config(doc(
      R"({"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration"})"));
  ASSERT_TRUE(c) << c.error().what();
  EXPECT_TRUE(c->leader_election.enabled);
  EXPECT_EQ(c->leader_election.lease_duration.count(), 15000);
  EXPECT_EQ(c->leader_election.renew_deadline.count(), 10000);
  EXPECT_EQ(c->leader_election.retry_period.count(), 2000);
  EXPECT_EQ(c->leader_election.resource_namespace, "kube-system");
  EXPECT_EQ(c->leader_election.resource_name, "tightpack");
  EXPECT_EQ(c->qps, 50);
  EXPECT_EQ(c->burst, 100);
  EXPECT_EQ(c->initial_backoff.count(), 1000);
  EXPECT_EQ(c->max_backoff.count(), 10000);
}

TEST(DaemonConfig, ReadsTheZeroToJupyterHubUserSchedulerLease) {
  auto c = decode_daemon_config(
      doc(R"({"leaderElection":{"resourceNamespace":"jhub","resourceName":"user-scheduler-lock",
    "leaseDuration":"1m","renewDeadline":"30s","retryPeriod":"500ms"},"clientConnection":{"qps":"12.5","burst":20},
    "podInitialBackoffSeconds":2,"podMaxBackoffSeconds":20})"));
  ASSERT_TRUE(c) << c.error().what();
  EXPECT_EQ(c->leader_election.resource_namespace, "jhub");
  EXPECT_EQ(c->leader_election.resource_name, "user-scheduler-lock");
  EXPECT_EQ(c->leader_election.lease_duration.count(), 60000);
  EXPECT_EQ(c->leader_election.retry_period.count(), 500);
  EXPECT_EQ(c->qps, 12.5);
  EXPECT_EQ(c->burst, 20);
  EXPECT_EQ(c->max_backoff.count(), 20000);
}

TEST(DaemonConfig, ErrorsNameTheFieldAndValue) {
  struct Case {
    const char* doc;
    const char* field;
    const char* says;
  } cases[] = {
      {R"({"leaderElection":{"leaseDuration":"fifteen"}})", "$.leaderElection.leaseDuration",
       "fifteen"},
      {R"({"leaderElection":{"leaseDuration":"5s"}})", "$.leaderElection.leaseDuration",
       "renewDeadline"},
      {R"({"leaderElection":{"resourceLock":"endpoints"}})", "$.leaderElection.resourceLock",
       "endpoints"},
      {R"({"leaderElection":{"leaderElect":"yes"}})", "$.leaderElection.leaderElect",
       "true or false"},
      {R"({"leaderElection":{"leaseDurationSeconds":15}})", "$.leaderElection.leaseDurationSeconds",
       R"(unknown field "leaseDurationSeconds" (known: leaderElect, leaseDuration,)"},
      {R"({"clientConnection":{"qps":"fast"}})", "$.clientConnection.qps", "fast"},
      {R"({"clientConnection":{"burst":-1}})", "$.clientConnection.burst", "whole number"},
      {R"({"podInitialBackoffSeconds":0})", "$.podInitialBackoffSeconds", "> 0"},
      {R"({"podInitialBackoffSeconds":20,"podMaxBackoffSeconds":10})", "$.podMaxBackoffSeconds",
       "at least"},
  };
  for (const auto& c : cases) {
    auto r = decode_daemon_config(doc(c.doc));
    ASSERT_FALSE(r) << c.doc;
    EXPECT_EQ(r.error().path, c.field) << c.doc;
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().what();
  }
}

TEST(DaemonConfig, GoDurations) {
  EXPECT_EQ(parse_go_duration("1m30s")->count(), 90000);
  EXPECT_EQ(parse_go_duration("1.5s")->count(), 1500);
  EXPECT_EQ(parse_go_duration("2h")->count(), 7200000);
  EXPECT_EQ(parse_go_duration(".5s")->count(), 500);
  EXPECT_EQ(parse_go_duration("5.s")->count(), 5000);
  EXPECT_EQ(parse_go_duration("1h2m3.5s")->count(), 3723500);
  EXPECT_EQ(parse_go_duration("1500us")->count(), 1);
  EXPECT_EQ(parse_go_duration("2\xc2\xb5s")->count(), 0);
  EXPECT_EQ(parse_go_duration("0")->count(), 0);
  EXPECT_EQ(parse_go_duration("-1m")->count(), -60000);
  EXPECT_EQ(parse_go_duration("2562047h")->count(), 2562047LL * 3600000);
  EXPECT_EQ(parse_go_duration("9223372036854775807ns")->count(), 9223372036854LL);
  // What time.ParseDuration refuses is an error, never an abort.
  for (const std::string& bad :
       std::vector<std::string>{"", "15", "s", "10 s", ".", ".s", "-", "1.2.3s", "1x", "0s0", "1s.",
                                std::string(400, '9') + "s", "2562048h", "9223372036854775808ns"}) {
    EXPECT_FALSE(parse_go_duration(bad)) << bad;
  }
}

TEST(DaemonConfig, LeaseDurationInWholeSeconds) {
  auto r = decode_daemon_config(doc(R"({"leaderElection": {"leaseDuration": "15500ms"}})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().path, "$.leaderElection.leaseDuration");
  EXPECT_EQ(r.error().message,
            "must be whole seconds (the Lease records leaseDurationSeconds), got \"15500ms\"");
}

class Kubeconfig : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("tightpack-kubeconfig-" + std::to_string(::getpid()));
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

TEST_F(Kubeconfig, CurrentContextWithRelativeFilesAndAToken) {
  write("ca.crt", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  write("token", "secret-token\n");
  const std::string path = write("config", R"(apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: "https://10.0.0.1:6443/prefix/", certificate-authority: ca.crt}
users:
- name: sa
  user: {tokenFile: token}
contexts:
- name: other
  context: {cluster: nope, user: sa}
- name: test
  context: {cluster: test, user: sa}
current-context: test
)");
  auto c = kube::load_kubeconfig(path);
  ASSERT_TRUE(c) << c.error().what();
  EXPECT_EQ(c->host, "10.0.0.1");
  EXPECT_EQ(c->port, "6443");
  EXPECT_EQ(c->prefix, "/prefix");
  EXPECT_NE(c->ca_pem.find("BEGIN CERTIFICATE"), std::string::npos);
  EXPECT_EQ(c->token->token(), "secret-token");
}

TEST_F(Kubeconfig, InlineDataIsBase64) {
  const std::string path = write(
      "config",
      R"(clusters: [{name: c, cluster: {server: "https://[::1]:443", certificate-authority-data: "aGVsbG8="}}]
users: [{name: u, user: {token: abc}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
)");
  auto c = kube::load_kubeconfig(path);
  ASSERT_TRUE(c) << c.error().what();
  EXPECT_EQ(c->host, "::1");
  EXPECT_EQ(c->ca_pem, "hello");
  EXPECT_EQ(c->token->token(), "abc");
}

TEST_F(Kubeconfig, ErrorsNameTheFileAndEntry) {
  EXPECT_NE(kube::load_kubeconfig((dir / "missing").string()).error().what().find("cannot read"),
            std::string::npos);
  auto bad = kube::load_kubeconfig(write("a", "clusters: [\n"));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().what().find("not YAML"), std::string::npos);
  auto no_context = kube::load_kubeconfig(write("b", "current-context: gone\ncontexts: []\n"));
  EXPECT_NE(no_context.error().what().find("no context named \"gone\""), std::string::npos)
      << no_context.error().what();
  auto bad_server =
      kube::load_kubeconfig(write("c", R"(clusters: [{name: c, cluster: {server: "10.0.0.1"}}]
contexts: [{name: x, context: {cluster: c}}]
current-context: x
)"));
  ASSERT_FALSE(bad_server);
  EXPECT_NE(bad_server.error().what().find("clusters[c].server"), std::string::npos)
      << bad_server.error().what();
  auto exec =
      kube::load_kubeconfig(write("d", R"(clusters: [{name: c, cluster: {server: "https://h"}}]
users: [{name: u, user: {exec: {command: gke-gcloud-auth-plugin}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
)"));
  ASSERT_FALSE(exec);
  EXPECT_NE(exec.error().what().find("exec"), std::string::npos);
}

// fuzz_daemon_inputs found the first accepted, with an empty port.
TEST_F(Kubeconfig, AServerURLNeedsAHostAndAPort) {
  for (const char* server :
       {"https://127.0.0.1:64__https://127.0.0.1:64", "https://127.0.0.1:", "https://h:0",
        "https://h:65536", "https://h:6443x", "https://h st:6443", "https://[::1"}) {
    kube::ClientConfig c;
    auto s = kube::set_server(c, server);
    EXPECT_FALSE(s) << server;
    if (!s) EXPECT_NE(s.error().what().find(server), std::string::npos) << s.error().what();
  }
  for (const char* server : {"https://127.0.0.1:6443", "https://kubernetes.default.svc",
                             "https://[fd00::1]:443/prefix", "http://my_host:8080"}) {
    kube::ClientConfig c;
    auto s = kube::set_server(c, server);
    EXPECT_TRUE(s) << server << ": " << (s ? "" : s.error().what());
  }
}

TEST_F(Kubeconfig, InClusterNeedsTheServiceEnvironment) {
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  auto c = kube::in_cluster_config(dir.string());
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().what().find("--kubeconfig"), std::string::npos);
  ::setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  ::setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  std::filesystem::create_directories(dir / "var/run/secrets/kubernetes.io/serviceaccount");
  write("var/run/secrets/kubernetes.io/serviceaccount/ca.crt", "ca");
  write("var/run/secrets/kubernetes.io/serviceaccount/token", "t1\n");
  auto ok = kube::in_cluster_config(dir.string());
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  ::unsetenv("KUBERNETES_SERVICE_PORT");
  ASSERT_TRUE(ok) << ok.error().what();
  EXPECT_EQ(ok->server, "https://10.96.0.1:443");
  EXPECT_EQ(ok->token->token(), "t1");
}

}  // namespace
}  // namespace tightpack::daemon
