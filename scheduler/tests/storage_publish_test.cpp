// What /snapshot and /home publish of storage objects reads back, through
// core's decoder, as the objects the cache holds (a property over random
// objects), holds nothing a user should not see, and /home lists a hub
// user's claims and nobody else's.
#include "daemon/storage_publish.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <random>

#include "tightpack/decode.hpp"

namespace tightpack::daemon {
namespace {
namespace json = boost::json;

class Random {
 public:
  explicit Random(uint32_t seed) : rng_(seed) {}
  bool coin() { return rng_() % 2 == 0; }
  size_t below(size_t n) { return rng_() % n; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }

 private:
  std::mt19937 rng_;
};

json::array some(Random& r, const std::vector<std::string>& from) {
  json::array out;
  for (const auto& s : from) {
    if (r.coin()) out.emplace_back(s);
  }
  return out;
}

const std::vector<std::string> kModes{"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany",
                                      "ReadWriteOncePod"};
const std::vector<std::string> kZones{"us-central1-a", "us-central1-b", "us-central1-c"};

json::object node_affinity(Random& r) {
  json::array terms;
  for (size_t t = 0, n = 1 + r.below(2); t < n; ++t) {
    json::array exprs;
    const std::vector<std::string> ops{"In", "NotIn", "Exists", "DoesNotExist"};
    const std::string& op = r.pick(ops);
    json::object e{{"key", r.coin() ? "topology.gke.io/zone" : "topology.kubernetes.io/zone"},
                   {"operator", op}};
    if (op == "In" || op == "NotIn") {
      json::array zones = some(r, kZones);
      if (zones.empty()) zones.emplace_back(kZones[1]);
      e["values"] = std::move(zones);
    }
    exprs.push_back(std::move(e));
    json::object term{{"matchExpressions", std::move(exprs)}};
    if (r.coin()) {
      term["matchFields"] = json::array{
          json::object{{"key", "metadata.name"}, {"operator", "In"}, {"values", {"node-1"}}}};
    }
    terms.push_back(std::move(term));
  }
  return json::object{{"required", {{"nodeSelectorTerms", std::move(terms)}}}};
}

json::value random_claim(Random& r, int i) {
  json::object annotations{{"hub.jupyter.org/username", "user" + std::to_string(i)},
                           {"secret-ish", "do not publish"}};
  if (r.coin()) annotations["pv.kubernetes.io/bind-completed"] = "yes";
  if (r.coin())
    annotations["volume.kubernetes.io/selected-node"] = "node-" + std::to_string(r.below(3));
  json::object spec{{"accessModes", some(r, kModes)}};
  if (r.coin())
    spec["resources"] = json::object{{"requests", {{"storage", r.coin() ? "10Gi" : "1500M"}}}};
  switch (r.below(3)) {
    case 0:
      spec["storageClassName"] = "standard-rwo";
      break;
    case 1:
      spec["storageClassName"] = "";
      break;
    default:
      break;  // unset: the default class's to give
  }
  if (r.coin()) spec["volumeName"] = "pv-" + std::to_string(i);
  if (r.coin()) spec["volumeMode"] = r.coin() ? "Block" : "Filesystem";
  json::object meta{{"name", "claim-" + std::to_string(i)},
                    {"namespace", "jhub"},
                    {"annotations", std::move(annotations)},
                    {"labels", {{"app", "jupyterhub"}}}};
  if (r.coin()) meta["uid"] = "uid-" + std::to_string(i);
  const std::vector<std::string> phases{"Pending", "Bound", "Lost"};
  return json::object{{"kind", "PersistentVolumeClaim"},
                      {"metadata", std::move(meta)},
                      {"spec", std::move(spec)},
                      {"status", {{"phase", r.pick(phases)}}}};
}

json::value random_volume(Random& r, int i) {
  json::object spec{{"accessModes", some(r, kModes)},
                    {"capacity", {{"storage", "10Gi"}}},
                    {"storageClassName", r.coin() ? "standard-rwo" : ""}};
  if (r.coin()) {
    json::object ref{{"namespace", "jhub"}, {"name", "claim-" + std::to_string(i)}};
    if (r.coin()) ref["uid"] = "uid-" + std::to_string(i);
    spec["claimRef"] = std::move(ref);
  }
  if (r.coin()) {
    spec["csi"] = json::object{{"driver", "pd.csi.storage.gke.io"},
                               {"volumeHandle", "projects/p/disks/d" + std::to_string(i)},
                               {"volumeAttributes", {{"secret", "do not publish"}}},
                               {"nodePublishSecretRef", {{"name", "do-not-publish"}}}};
  }
  if (r.coin()) spec["nodeAffinity"] = node_affinity(r);
  if (r.coin()) spec["volumeMode"] = "Block";
  json::object meta{{"name", "pv-" + std::to_string(i)},
                    {"annotations", {{"secret-ish", "do not publish"}}}};
  if (r.coin()) meta["labels"] = json::object{{"topology.kubernetes.io/zone", r.pick(kZones)}};
  const std::vector<std::string> phases{"Available", "Bound", "Released"};
  return json::object{{"kind", "PersistentVolume"},
                      {"metadata", std::move(meta)},
                      {"spec", std::move(spec)},
                      {"status", {{"phase", r.pick(phases)}}}};
}

json::value random_class(Random& r, int i) {
  json::object meta{{"name", "class-" + std::to_string(i)}};
  if (r.coin())
    meta["creationTimestamp"] = "2025-0" + std::to_string(1 + r.below(9)) + "-01T12:00:00Z";
  if (r.coin())
    meta["annotations"] =
        json::object{{"storageclass.kubernetes.io/is-default-class", r.coin() ? "true" : "false"}};
  json::object o{
      {"kind", "StorageClass"},
      {"metadata", std::move(meta)},
      {"provisioner", "pd.csi.storage.gke.io"},
      {"parameters", {{"csi.storage.k8s.io/provisioner-secret-name", "do-not-publish"}}}};
  if (r.coin()) o["volumeBindingMode"] = r.coin() ? "WaitForFirstConsumer" : "Immediate";
  if (r.coin()) {
    json::array zones = some(r, kZones);
    if (zones.empty()) zones.emplace_back(kZones[0]);
    o["allowedTopologies"] = json::array{json::object{
        {"matchLabelExpressions",
         json::array{json::object{{"key", "topology.gke.io/zone"}, {"values", zones}}}}}};
  }
  return o;
}

TEST(StoragePublish, PublishedObjectsReadBackAsTheSameObjectsAndHoldNothingElse) {
  Random r(20261203);
  for (int i = 0; i < 500; ++i) {
    auto claim = decode_persistent_volume_claim(random_claim(r, i), JsonPath());
    ASSERT_TRUE(claim) << claim.error().what();
    const json::object published = published_claim(*claim);
    auto again = decode_persistent_volume_claim(published, JsonPath());
    ASSERT_TRUE(again) << again.error().what() << "\n" << published;
    EXPECT_TRUE(*again == *claim) << published;

    auto volume = decode_persistent_volume(random_volume(r, i), JsonPath());
    ASSERT_TRUE(volume) << volume.error().what();
    const json::object pv = published_volume(*volume);
    auto volume_again = decode_persistent_volume(pv, JsonPath());
    ASSERT_TRUE(volume_again) << volume_again.error().what() << "\n" << pv;
    EXPECT_TRUE(*volume_again == *volume) << pv;

    auto storage_class = decode_storage_class(random_class(r, i), JsonPath());
    ASSERT_TRUE(storage_class) << storage_class.error().what();
    const json::object sc = published_storage_class(*storage_class);
    auto class_again = decode_storage_class(sc, JsonPath());
    ASSERT_TRUE(class_again) << class_again.error().what() << "\n" << sc;
    EXPECT_TRUE(*class_again == *storage_class) << sc;

    for (const json::object* o : {&published, &pv, &sc}) {
      const std::string text = json::serialize(*o);
      EXPECT_EQ(text.find("do not publish"), std::string::npos) << text;
      EXPECT_EQ(text.find("do-not-publish"), std::string::npos) << text;
      EXPECT_EQ(text.find("hub.jupyter.org"), std::string::npos) << text;
    }
  }
}

TEST(StoragePublish, HomeListsTheUsersClaimsAndTheirVolumesOnly) {
  ObjectStore store;
  auto add = [&](std::string_view kind, std::string_view text) {
    auto d = decode_watched(kind, json::parse(text));
    ASSERT_TRUE(d) << d.error().what();
    store.upsert(kind, std::move(*d));
  };
  add("PersistentVolumeClaim", R"({"metadata": {"name": "claim-alice", "namespace": "jhub",
    "annotations": {"hub.jupyter.org/username": "alice", "pv.kubernetes.io/bind-completed": "yes"}},
    "spec": {"accessModes": ["ReadWriteOnce"], "volumeName": "pv-a", "storageClassName": "standard-rwo"}})");
  add("PersistentVolumeClaim", R"({"metadata": {"name": "claim-alice-gpu", "namespace": "jhub",
    "annotations": {"hub.jupyter.org/username": "alice", "hub.jupyter.org/servername": "gpu"}},
    "spec": {"accessModes": ["ReadWriteOnce"]}})");
  add("PersistentVolumeClaim", R"({"metadata": {"name": "claim-bob", "namespace": "jhub",
    "annotations": {"hub.jupyter.org/username": "bob", "pv.kubernetes.io/bind-completed": "yes"}},
    "spec": {"accessModes": ["ReadWriteOnce"], "volumeName": "pv-b"}})");
  // "alice2" is not "alice", and an unannotated claim is nobody's home.
  add("PersistentVolumeClaim", R"({"metadata": {"name": "claim-alice2", "namespace": "jhub",
    "annotations": {"hub.jupyter.org/username": "alice2"}}, "spec": {}})");
  add("PersistentVolumeClaim",
      R"({"metadata": {"name": "scratch", "namespace": "jhub"}, "spec": {}})");
  add("PersistentVolume",
      R"({"metadata": {"name": "pv-a"}, "spec": {"capacity": {"storage": "10Gi"},
    "claimRef": {"namespace": "jhub", "name": "claim-alice"}}})");
  add("PersistentVolume",
      R"({"metadata": {"name": "pv-b"}, "spec": {"capacity": {"storage": "10Gi"}}})");

  const json::object home = home_answer(store, "alice");
  EXPECT_EQ(home.at("claims"), json::parse(R"([
    {"namespace": "jhub", "name": "claim-alice", "server": "", "volume": "pv-a"},
    {"namespace": "jhub", "name": "claim-alice-gpu", "server": "gpu", "volume": null}])"));
  const auto& items = home.at("items").as_array();
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[2].at("metadata").at("name"), "pv-a");
  const std::string text = json::serialize(home);
  for (const char* other : {"bob", "pv-b", "alice2", "scratch"})
    EXPECT_EQ(text.find(other), std::string::npos) << other;

  // Another hub's alice, in another namespace: not hers when the hub's namespace is given.
  add("PersistentVolumeClaim", R"({"metadata": {"name": "claim-alice", "namespace": "other-hub",
    "annotations": {"hub.jupyter.org/username": "alice"}}, "spec": {}})");
  EXPECT_EQ(home_answer(store, "alice").at("claims").as_array().size(), 3u);
  EXPECT_EQ(home_answer(store, "alice", "jhub").at("claims").as_array().size(), 2u);
  store.remove("PersistentVolumeClaim", "other-hub/claim-alice");

  // A claim whose annotation is removed, or that is deleted, is no longer hers.
  add("PersistentVolumeClaim",
      R"({"metadata": {"name": "claim-alice-gpu", "namespace": "jhub"}, "spec": {}})");
  store.remove("PersistentVolumeClaim", "jhub/claim-alice");
  EXPECT_EQ(home_answer(store, "alice").at("claims"), json::array());
  EXPECT_EQ(home_answer(store, "nobody"),
            json::parse(R"({"user": "nobody", "claims": [], "items": []})"));
}

}  // namespace
}  // namespace tightpack::daemon
