// checkBindings as the in-cluster scheduler runs it on its watch cache: a
// claim is judged only once the watch shows the scheduler's own write (the
// resourceVersion it left), and the errors are kube-scheduler's.
#include "daemon/volume_binder.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "daemon/object_store.hpp"

namespace tightpack::daemon {
namespace {
namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using State = VolumeBindingWait::State;

void put(ObjectStore& store, std::string_view kind, const std::string& text) {
  auto d = decode_watched(kind, json::parse(text));
  ASSERT_TRUE(d) << d.error().what();
  store.upsert(kind, std::move(*d));
}

std::string claim(int rv, const std::string& annotations, const std::string& volume = "") {
  return R"({"metadata": {"name": "claim-gina", "namespace": "jhub", "uid": "u-1", "resourceVersion": ")" +
         std::to_string(rv) + R"(", "annotations": )" + annotations + R"(},
    "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "standard-rwo", "volumeName": ")" +
         volume + R"(", "resources": {"requests": {"storage": "10Gi"}}}})";
}

std::string volume(const std::string& name, int rv, const std::string& zone, bool claimed) {
  return R"({"metadata": {"name": ")" + name + R"(", "resourceVersion": ")" + std::to_string(rv) +
         R"("},
    "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "standard-rwo",
             "csi": {"driver": "pd.csi.storage.gke.io", "volumeHandle": "d"},)" +
         (claimed ? R"("claimRef": {"namespace": "jhub", "name": "claim-gina", "uid": "u-1"},)"
                  : "") +
         R"("nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
               {"key": "topology.gke.io/zone", "operator": "In", "values": [")" +
         zone + R"("]}]}]}}}})";
}

Node node_in(const std::string& zone) {
  Node n;
  n.name = "user-a";
  n.labels = {{"topology.gke.io/zone", zone}};
  return n;
}

VolumeBindingWait provisioning(int written_rv, Clock::time_point deadline) {
  BindingPlan plan;
  plan.provisions = {"jhub/claim-gina"};
  WrittenBindings written;
  written.claims["jhub/claim-gina"] = static_cast<uint64_t>(written_rv);
  return VolumeBindingWait(plan, "user-a", written, deadline);
}

TEST(VolumeBindingWait, AProvisionedClaimIsBoundOnceTheWatchShowsItBound) {
  const auto now = Clock::now();
  const Node node = node_in("a");
  ObjectStore store;
  auto wait = provisioning(10, now + std::chrono::seconds(600));
  // The watch behind the scheduler's own write: not judged yet.
  put(store, "PersistentVolumeClaim", claim(9, "{}"));
  EXPECT_EQ(wait.check(store, &node, now).state, State::Waiting);
  put(store, "PersistentVolumeClaim",
      claim(10, R"({"volume.kubernetes.io/selected-node": "user-a"})"));
  EXPECT_EQ(wait.check(store, &node, now).state, State::Waiting);
  put(store, "PersistentVolume", volume("pvc-u-1", 11, "a", true));
  put(store, "PersistentVolumeClaim",
      claim(
          12,
          R"({"volume.kubernetes.io/selected-node": "user-a", "pv.kubernetes.io/bind-completed": "yes"})",
          "pvc-u-1"));
  EXPECT_EQ(wait.check(store, &node, now).state, State::Bound);
}

TEST(VolumeBindingWait, TheProvisionerGivingUpAndResetAnnotationsAreKubeSchedulersErrors) {
  const auto now = Clock::now();
  const Node node = node_in("a");
  {
    ObjectStore store;
    auto wait = provisioning(10, now + std::chrono::seconds(600));
    put(store, "PersistentVolumeClaim",
        claim(11, R"({"volume.kubernetes.io/storage-provisioner": "pd.csi.storage.gke.io"})"));
    auto c = wait.check(store, &node, now);
    EXPECT_EQ(c.state, State::Failed);
    EXPECT_EQ(c.error, "provisioning failed for PVC \"claim-gina\"");
  }
  {
    ObjectStore store;
    auto wait = provisioning(10, now + std::chrono::seconds(600));
    put(store, "PersistentVolumeClaim", claim(11, "{}"));
    auto c = wait.check(store, &node, now);
    EXPECT_EQ(c.state, State::Failed);
    EXPECT_EQ(c.error, "selectedNode annotation reset for PVC \"claim-gina\"");
  }
  {
    // Provisioned in another zone than the node's.
    ObjectStore store;
    auto wait = provisioning(10, now + std::chrono::seconds(600));
    put(store, "PersistentVolume", volume("pvc-u-1", 11, "b", true));
    put(store, "PersistentVolumeClaim",
        claim(12, R"({"volume.kubernetes.io/selected-node": "user-a"})", "pvc-u-1"));
    auto c = wait.check(store, &node, now);
    EXPECT_EQ(c.state, State::Failed);
    EXPECT_EQ(c.error, "pv \"pvc-u-1\" node affinity doesn't match node \"user-a\"");
  }
}

TEST(VolumeBindingWait, WaitingPastTheTimeoutOrForAGoneNodeFails) {
  const auto now = Clock::now();
  const Node node = node_in("a");
  ObjectStore store;
  put(store, "PersistentVolumeClaim",
      claim(10, R"({"volume.kubernetes.io/selected-node": "user-a"})"));
  auto wait = provisioning(10, now + std::chrono::seconds(5));
  EXPECT_EQ(wait.check(store, &node, now + std::chrono::seconds(4)).state, State::Waiting);
  auto late = wait.check(store, &node, now + std::chrono::seconds(5));
  EXPECT_EQ(late.state, State::Failed);
  EXPECT_EQ(late.error, "context deadline exceeded");
  EXPECT_EQ(wait.check(store, nullptr, now).state, State::Failed);
}

TEST(VolumeBindingWait, AStaticVolumeBindsItsClaimAndAResetClaimRefFails) {
  const auto now = Clock::now();
  const Node node = node_in("a");
  BindingPlan plan;
  plan.static_bindings = {{"jhub/claim-gina", "pv-static"}};
  WrittenBindings written;
  written.volumes["pv-static"] = 20;
  VolumeBindingWait wait(plan, "user-a", written, now + std::chrono::seconds(600));
  ObjectStore store;
  put(store, "PersistentVolumeClaim", claim(5, "{}"));
  put(store, "PersistentVolume", volume("pv-static", 19, "a", false));
  EXPECT_EQ(wait.check(store, &node, now).state, State::Waiting);  // the watch behind the write
  put(store, "PersistentVolume", volume("pv-static", 20, "a", true));
  EXPECT_EQ(wait.check(store, &node, now).state, State::Waiting);  // the claim not bound yet
  put(store, "PersistentVolumeClaim",
      claim(21, R"({"pv.kubernetes.io/bind-completed": "yes"})", "pv-static"));
  EXPECT_EQ(wait.check(store, &node, now).state, State::Bound);

  put(store, "PersistentVolume", volume("pv-static", 22, "a", false));
  auto reset = wait.check(store, &node, now);
  EXPECT_EQ(reset.state, State::Failed);
  EXPECT_EQ(reset.error, "ClaimRef got reset for pv \"pv-static\"");
}

}  // namespace
}  // namespace tightpack::daemon
