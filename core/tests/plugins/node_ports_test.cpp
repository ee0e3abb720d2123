#include "tightpack/plugins/node_ports.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace tightpack::plugins {
namespace {

using tightpack::testing::build_cluster;
using tightpack::testing::make_node;
using tightpack::testing::make_pod;

HostPort hp(std::string ip, std::string protocol, int32_t port) {
  return HostPort{std::move(ip), std::move(protocol), port};
}

// Cases of kube-scheduler's nodeports TestNodePorts.
TEST(NodePorts, SameProtocolIpAndPortConflict) {
  EXPECT_TRUE(ports_conflict({hp("127.0.0.1", "UDP", 8080)}, {hp("127.0.0.1", "UDP", 8080)}));
  EXPECT_TRUE(ports_conflict({hp("127.0.0.1", "TCP", 8080)}, {hp("127.0.0.1", "TCP", 8080)}));
}

TEST(NodePorts, DifferentProtocolsDoNotConflict) {
  EXPECT_FALSE(ports_conflict({hp("127.0.0.1", "UDP", 8080)}, {hp("127.0.0.1", "TCP", 8080)}));
  EXPECT_FALSE(ports_conflict({hp("0.0.0.0", "TCP", 8001)}, {hp("0.0.0.0", "UDP", 8001)}));
  EXPECT_FALSE(ports_conflict({hp("10.0.10.10", "TCP", 8001)}, {hp("0.0.0.0", "UDP", 8001)}));
  EXPECT_FALSE(ports_conflict({hp("0.0.0.0", "SCTP", 8001)}, {hp("0.0.0.0", "TCP", 8001)}));
}

TEST(NodePorts, DifferentPortsDoNotConflict) {
  EXPECT_FALSE(ports_conflict({hp("127.0.0.1", "TCP", 8080)}, {hp("127.0.0.1", "TCP", 8081)}));
  EXPECT_FALSE(ports_conflict({hp("0.0.0.0", "TCP", 8080)}, {hp("0.0.0.0", "TCP", 8081)}));
}

TEST(NodePorts, DifferentSpecificIpsDoNotConflict) {
  EXPECT_FALSE(ports_conflict({hp("127.0.0.1", "TCP", 8080)}, {hp("127.0.0.2", "TCP", 8080)}));
  EXPECT_FALSE(ports_conflict({hp("10.0.10.10", "TCP", 8001)}, {hp("10.0.10.11", "TCP", 8001)}));
}

TEST(NodePorts, AnyAddressConflictsWithEverySpecificAddress) {
  // "first tcp port conflict due to 0.0.0.0 hostIP"
  EXPECT_TRUE(ports_conflict({hp("0.0.0.0", "TCP", 8001)}, {hp("127.0.0.1", "TCP", 8001)}));
  // "TCP hostPort conflict due to 0.0.0.0 hostIP"
  EXPECT_TRUE(ports_conflict({hp("10.0.10.10", "TCP", 8001)}, {hp("0.0.0.0", "TCP", 8001)}));
  // "UDP hostPort conflict due to 0.0.0.0 hostIP"
  EXPECT_TRUE(ports_conflict({hp("10.0.10.10", "UDP", 8001)},
                             {hp("127.0.0.1", "TCP", 8001), hp("0.0.0.0", "UDP", 8001)}));
  EXPECT_TRUE(ports_conflict({hp("0.0.0.0", "TCP", 8001)}, {hp("0.0.0.0", "TCP", 8001)}));
}

TEST(NodePorts, AnyWantedPortConflictingIsEnough) {
  EXPECT_TRUE(ports_conflict({hp("127.0.0.1", "UDP", 8080), hp("127.0.0.1", "UDP", 8081)},
                             {hp("127.0.0.1", "UDP", 8081)}));
  EXPECT_FALSE(ports_conflict({}, {hp("0.0.0.0", "TCP", 80)}));
  EXPECT_FALSE(ports_conflict({hp("0.0.0.0", "TCP", 80)}, {}));
}

TEST(NodePorts, UsageDefaultsIpAndProtocol) {
  Cluster c = build_cluster({make_node("n", 1000, 1000)});
  Pod p = make_pod("p");
  p.containers.mut()[0].ports = {
      ContainerPort{80, 8080, "", ""}, ContainerPort{53, 53, "UDP", "10.0.0.1"},
      ContainerPort{9090, 0, "TCP", ""}};  // no host port: not a host port
  PodUsage u = c.usage_of(p);
  ASSERT_EQ(u.host_ports.size(), 2u);
  EXPECT_EQ(u.host_ports[0], hp("0.0.0.0", "TCP", 8080));
  EXPECT_EQ(u.host_ports[1], hp("10.0.0.1", "UDP", 53));
}

TEST(NodePorts, UsedPortsFollowPlacements) {
  Pod bound = make_pod("b");
  bound.node_name = "n";
  bound.containers.mut()[0].ports = {ContainerPort{80, 8080, "TCP", "127.0.0.1"}};
  Cluster c = build_cluster({make_node("n", 1000, 1000)}, {bound});
  ASSERT_EQ(c.used_ports(0).size(), 1u);
  EXPECT_EQ(c.used_ports(0)[0], hp("127.0.0.1", "TCP", 8080));

  Pod wanted = make_pod("w");
  wanted.containers.mut()[0].ports = {ContainerPort{80, 8080, "", ""}};
  EXPECT_TRUE(ports_conflict(c.usage_of(wanted).host_ports, c.used_ports(0)));
  wanted.containers.mut()[0].ports[0].host_ip = "127.0.0.2";
  EXPECT_FALSE(ports_conflict(c.usage_of(wanted).host_ports, c.used_ports(0)));

  c.remove(0, {0});
  EXPECT_TRUE(c.used_ports(0).empty());
}

TEST(NodePorts, Reason) {
  EXPECT_STREQ(kNodePortsReason, "node(s) didn't have free ports for the requested pod ports");
}

}  // namespace
}  // namespace tightpack::plugins
