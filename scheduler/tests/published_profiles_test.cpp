// What /snapshot says about the operator's profiles: what the sidebar turns
// into a pod, nothing else. The property: profiles built at random from keys
// a real profile_list can hold, each value a fresh random marker; every
// marker placed where the sidebar reads keeps its place and value, and no
// marker placed anywhere else (or under a key nobody has heard of) is in the
// published bytes at all.
#include "daemon/published_profiles.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tightpack/scheduling_fields.hpp"

namespace tightpack::daemon {
namespace {
namespace json = boost::json;

// Paths inside one profile_list entry ("[]" is the list's first element).
// What the sidebar reads (labextension/jupyterlab_tightpack/profiles.py):
const std::vector<std::string> kRead = {
    "display_name",
    "slug",
    "description",
    "default",
    "kubespawner_override.image",
    "kubespawner_override.cpu_guarantee",
    "kubespawner_override.cpu_limit",
    "kubespawner_override.mem_guarantee",
    "kubespawner_override.mem_limit",
    "kubespawner_override.extra_resource_guarantees",
    "kubespawner_override.extra_resource_limits",
    "kubespawner_override.node_selector",
    "kubespawner_override.tolerations",
    "kubespawner_override.scheduler_name",
    "kubespawner_override.priority_class_name",
    "kubespawner_override.node_affinity_required",
    "kubespawner_override.node_affinity_preferred",
    "kubespawner_override.pod_affinity_required",
    "kubespawner_override.pod_anti_affinity_preferred",
    "kubespawner_override.extra_labels",
    "kubespawner_override.common_labels",
    "kubespawner_override.extra_containers[].name",
    "kubespawner_override.extra_containers[].image",
    "kubespawner_override.extra_containers[].resources.requests",
    "kubespawner_override.extra_containers[].resources.limits",
    "kubespawner_override.extra_containers[].ports",
    "kubespawner_override.init_containers[].restartPolicy",
    "kubespawner_override.init_containers[].restart_policy",
    "kubespawner_override.init_containers[].resources.requests",
    "kubespawner_override.extra_container_config.resources.limits",
    "kubespawner_override.extra_container_config.ports",
    "kubespawner_override.extra_pod_config.tolerations",
    "kubespawner_override.extra_pod_config.node_selector",
    "kubespawner_override.extra_pod_config.topologySpreadConstraints",
    "kubespawner_override.extra_pod_config.priority_class_name",
    "kubespawner_override.extra_pod_config.runtimeClassName",
    "kubespawner_override.extra_pod_config.volumes[].name",
    "kubespawner_override.extra_pod_config.volumes[].persistentVolumeClaim",
    "kubespawner_override.extra_pod_config.volumes[].ephemeral",
    "kubespawner_override.extra_pod_config.volumes[].image",
    "kubespawner_override.extra_pod_config.volumes[].emptyDir.medium",
    "kubespawner_override.extra_pod_config.resources.requests",
    "kubespawner_override.extra_pod_config.resourceClaims[].name",
    "kubespawner_override.volumes[].name",
    "kubespawner_override.volumes[].persistentVolumeClaim",
    "kubespawner_override.storage_pvc_ensure",
    "kubespawner_override.storage_class",
    "kubespawner_override.storage_capacity",
    "kubespawner_override.storage_access_modes",
    "profile_options.gpu.display_name",
    "profile_options.gpu.choices.t4.display_name",
    "profile_options.gpu.choices.t4.default",
    "profile_options.gpu.choices.t4.kubespawner_override.extra_resource_limits",
    "profile_options.gpu.choices.a100.kubespawner_override.node_selector",
};

// What a profile can carry that is the hub's business, not every user's.
const std::vector<std::string> kHome = {
    "kubespawner_override.environment",
    "kubespawner_override.cmd",
    "kubespawner_override.args",
    "kubespawner_override.volumes[].nfs",
    "kubespawner_override.volumes[].secret",
    "kubespawner_override.volumes[].configMap",
    "kubespawner_override.volume_mounts",
    "kubespawner_override.lifecycle_hooks",
    "kubespawner_override.service_account",
    "kubespawner_override.extra_annotations",
    "kubespawner_override.extra_containers[].env",
    "kubespawner_override.extra_containers[].envFrom",
    "kubespawner_override.extra_containers[].command",
    "kubespawner_override.extra_containers[].args",
    "kubespawner_override.extra_containers[].volumeMounts",
    "kubespawner_override.extra_containers[].resources.claims",
    "kubespawner_override.init_containers[].command",
    "kubespawner_override.init_containers[].env",
    "kubespawner_override.extra_container_config.env",
    "kubespawner_override.extra_container_config.lifecycle",
    "kubespawner_override.extra_pod_config.containers",
    "kubespawner_override.extra_pod_config.imagePullSecrets",
    "kubespawner_override.extra_pod_config.volumes[].nfs",
    "kubespawner_override.extra_pod_config.volumes[].secret",
    "kubespawner_override.extra_pod_config.volumes[].csi",
    "kubespawner_override.extra_pod_config.volumes[].hostPath.path",
    "kubespawner_override.extra_pod_config.volumes[].gcePersistentDisk",
    "kubespawner_override.extra_pod_config.resourceClaims[].resourceClaimTemplateName",
    "kubespawner_override.extra_pod_config.hostAliases",
    "profile_options.gpu.unlisted_choice",
    "profile_options.gpu.choices.t4.kubespawner_override.environment",
    "profile_options.gpu.choices.t4.kubespawner_override.extra_containers[].env",
    "profile_options.gpu.choices.t4.description_secret",
};

std::vector<std::string> split(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    out.push_back(path.substr(start, dot - start));
    if (dot == std::string::npos) return out;
    start = dot + 1;
  }
}

// Writes `v` at `path`, making objects (and one-element lists for "[]") on the way.
void put(json::value& root, const std::string& path, json::value v) {
  json::value* at = &root;
  for (const auto& seg : split(path)) {
    const bool list = seg.ends_with("[]");
    const std::string key = list ? seg.substr(0, seg.size() - 2) : seg;
    json::value& next = at->as_object()[key];
    if (list) {
      if (!next.is_array()) next = json::array{json::object{}};
      at = &next.as_array()[0];
    } else {
      if (next.is_null()) next = json::object{};
      at = &next;
    }
  }
  *at = std::move(v);
}

// The value at `path`, or null.
const json::value* find(const json::value& root, const std::string& path) {
  const json::value* at = &root;
  for (const auto& seg : split(path)) {
    const bool list = seg.ends_with("[]");
    const std::string key = list ? seg.substr(0, seg.size() - 2) : seg;
    if (!at->is_object()) return nullptr;
    at = at->as_object().if_contains(key);
    if (!at) return nullptr;
    if (list) {
      if (!at->is_array() || at->as_array().empty()) return nullptr;
      at = &at->as_array()[0];
    }
  }
  return at;
}

TEST(PublishedProfiles, KeepWhatTheSidebarReadsAndNothingElse) {
  std::mt19937_64 rng(20261202);
  auto marker = [&rng] {
    char buf[24];
    std::snprintf(buf, sizeof buf, "m%016llx", static_cast<unsigned long long>(rng()));
    return std::string(buf);
  };
  for (int round = 0; round < 500; ++round) {
    json::array entries;
    std::vector<std::pair<std::string, std::string>> read;  // "$.profiles[i].path", marker
    std::set<std::string> home;                             // markers that must not leave
    const int n = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < n; ++i) {
      json::value entry = json::object{};
      const std::string at = "$.profiles[" + std::to_string(i) + "]";
      for (const auto& path : kRead) {
        if (rng() % 3 == 0) continue;
        std::string m = marker();
        put(entry, path, json::value(m));
        read.emplace_back(at + "." + path, m);
      }
      for (const auto& path : kHome) {
        if (rng() % 2 == 0) continue;
        std::string m = marker();
        // a secret in a structure, not only in a string
        put(entry, path, rng() % 2 ? json::value(m) : json::value(json::object{{"value", m}}));
        home.insert(m);
      }
      // and a key nobody has heard of, anywhere
      std::string stranger = "k" + marker();
      std::string m = marker();
      const std::string& base = kRead[rng() % kRead.size()];
      const std::string parent =
          base.substr(0, base.rfind('.') == std::string::npos ? 0 : base.rfind('.'));
      put(entry, parent.empty() ? stranger : parent + "." + stranger, json::value(m));
      home.insert(m);
      entries.push_back(std::move(entry));
    }
    const json::value original = entries;
    auto published = publishable_profiles(entries);
    const json::value doc = json::object{{"profiles", published.profiles}};
    const std::string bytes = json::serialize(doc);

    for (const auto& m : home)
      EXPECT_EQ(bytes.find(m), std::string::npos) << "round " << round << ": " << m;
    for (const auto& [path, m] : read) {
      // "$.profiles[i].x.y": entry i, then x.y
      const size_t close = path.find(']');
      const size_t index = std::stoul(path.substr(11, close - 11));
      const json::value* v = find(doc.at("profiles").as_array()[index], path.substr(close + 2));
      ASSERT_TRUE(v) << "round " << round << ": " << path << " was not published";
      EXPECT_EQ(*v, json::value(m)) << path;
    }
    EXPECT_EQ(json::value(entries), original) << "the input is not changed";
  }
}

TEST(PublishedProfiles, NamesWhatItWithheld) {
  json::array entries = {
      json::object{
          {"display_name", "GPU"},
          {"kubespawner_override",
           {{"cpu_guarantee", 3},
            {"environment", {{"AWS_SECRET_ACCESS_KEY", "x"}}},
            {"extra_containers", json::array{{{"name", "proxy"}, {"env", json::array{}}}}}}}},
      "not an object"};
  auto published = publishable_profiles(entries);
  EXPECT_EQ(published.withheld,
            (std::vector<std::string>{"$.profiles[0].kubespawner_override.environment",
                                      "$.profiles[0].kubespawner_override.extra_containers[0].env",
                                      "$.profiles[1]"}));
  EXPECT_EQ(
      json::serialize(json::value(published.profiles)),
      R"([{"display_name":"GPU","kubespawner_override":{"cpu_guarantee":3,"extra_containers":[{"name":"proxy"}]}}])");
}

}  // namespace
}  // namespace tightpack::daemon

namespace tightpack::daemon {
namespace {

// Settings built at random from paths that are read and paths that stay home,
// each value a fresh marker (a string or an object holding it): what is read
// keeps its place and value, nothing else is in the published bytes, the
// withheld paths start with `root`, and the input is not changed.
void check_settings(const std::vector<std::string>& read_paths,
                    const std::vector<std::string>& home_paths,
                    PublishedSettings (*publish)(const json::value&), const std::string& root,
                    uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto marker = [&rng] {
    char buf[24];
    std::snprintf(buf, sizeof buf, "g%016llx", static_cast<unsigned long long>(rng()));
    return std::string(buf);
  };
  for (int round = 0; round < 300; ++round) {
    json::value settings = json::object{};
    std::vector<std::pair<std::string, std::string>> read;
    std::set<std::string> home;
    for (const auto& path : read_paths) {
      if (rng() % 3 == 0) continue;
      std::string m = marker();
      put(settings, path, json::value(m));
      read.emplace_back(path, m);
    }
    for (const auto& path : home_paths) {
      if (rng() % 2 == 0) continue;
      std::string m = marker();
      put(settings, path, rng() % 2 ? json::value(m) : json::value(json::object{{"value", m}}));
      home.insert(m);
    }
    const json::value original = settings;
    auto published = publish(settings);
    const std::string bytes = json::serialize(published.settings);
    for (const auto& m : home)
      EXPECT_EQ(bytes.find(m), std::string::npos) << "round " << round << ": " << m;
    for (const auto& [path, m] : read) {
      const json::value* v = find(published.settings, path);
      ASSERT_TRUE(v) << "round " << round << ": " << path << " was not published";
      EXPECT_EQ(*v, json::value(m)) << path;
    }
    for (const auto& w : published.withheld) EXPECT_EQ(w.rfind(root, 0), 0u) << w;
    EXPECT_EQ(settings, original) << "the input is not changed";
  }
  EXPECT_TRUE(publish(json::value("not an object")).settings.is_null());
}

// dask-gateway's server-side worker settings: what the sidebar merges into a
// gateway worker (labextension/jupyterlab_tightpack/gateway.py) and what stays
// with the gateway's operator.
TEST(PublishedDaskGateway, KeepWhatTheSidebarReadsAndNothingElse) {
  const std::vector<std::string> read = {
      "worker.extraPodConfig.tolerations",
      "worker.extraPodConfig.nodeSelector",
      "worker.extraPodConfig.affinity",
      "worker.extraPodConfig.priorityClassName",
      "worker.extraPodConfig.topologySpreadConstraints",
      "worker.extraPodConfig.volumes[].persistentVolumeClaim",
      "worker.extraContainerConfig.resources.limits",
      "worker.extraContainerConfig.image",
  };
  const std::vector<std::string> home = {
      "worker.extraPodConfig.serviceAccountName",
      "worker.extraPodConfig.imagePullSecrets",
      "worker.extraPodConfig.volumes[].secret",
      "worker.extraPodConfig.initContainers",
      "worker.extraContainerConfig.env",
      "worker.extraContainerConfig.envFrom",
      "worker.extraContainerConfig.command",
      "scheduler.extraPodConfig.tolerations",
      "controller.k8sApiRateLimit",
  };
  check_settings(read, home, publishable_dask_gateway, "$.daskGateway", 20261203);
}

// The hub's KubeSpawner defaults are kept as a profile's kubespawner_override:
// the same paths, from the same lists, one level up.
TEST(PublishedKubespawnerDefaults, KeepWhatAnOverrideKeepsAndNothingElse) {
  const std::string prefix = "kubespawner_override.";
  std::vector<std::string> read, home;
  for (const auto& p : kRead) {
    if (p.rfind(prefix, 0) == 0) read.push_back(p.substr(prefix.size()));
  }
  for (const auto& p : kHome) {
    if (p.rfind(prefix, 0) == 0) home.push_back(p.substr(prefix.size()));
  }
  ASSERT_GT(read.size(), 20u);
  ASSERT_GT(home.size(), 15u);
  check_settings(read, home, publishable_kubespawner_defaults, "$.kubespawnerDefaults", 20261204);
}

}  // namespace
}  // namespace tightpack::daemon

namespace tightpack::daemon {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Each path of a document ("spec.volumes.image.reference"), lists looked
// through as the fields tree looks through them.
void put_paths(const json::value& v, const std::string& at, std::set<std::string>& out) {
  if (v.is_array()) {
    for (const json::value& e : v.get_array()) put_paths(e, at, out);
    return;
  }
  if (!v.is_object() || v.get_object().empty()) {
    out.insert(at);
    return;
  }
  for (const auto& kv : v.get_object())
    put_paths(kv.value(), at + "." + std::string(kv.key()), out);
}

// `fields` filled in: the value `like` has where it has one (a list stays a
// list of one), a marker where it has none.
json::value complete(const FieldTree& fields, const json::value& like) {
  if (like.is_array()) {
    return json::array{complete(
        fields, like.get_array().empty() ? json::value(json::object{}) : like.get_array()[0])};
  }
  if (fields.whole())
    return like.is_null() || like.is_object() && like.get_object().empty() ? json::value("marker")
                                                                           : like;
  json::object out;
  for (const std::string& path : split_lines(fields.paths())) {
    const std::string key = path.substr(0, path.find('.'));
    if (out.contains(key)) continue;
    const json::value* sub = like.is_object() ? like.get_object().if_contains(key) : nullptr;
    out[key] = complete(*fields.find(key), sub ? *sub : json::value(nullptr));
  }
  return out;
}

// The decoders' reading of a pod's spec (scheduling_fields.hpp) against what
// extra_pod_config and the containers of a profile may publish: a field the
// decoders come to read is published or withheld here by name, never lost
// without a word.
TEST(PublishedProfiles, PublishWhatTheDecodersReadOfASpec) {
  const FieldTree* spec_fields = fields_read("Pod")->find("spec");
  ASSERT_TRUE(spec_fields);
  // A spec with every field the decoders read: the probe's, and a marker
  // where the probe has none; one volume for each source.
  json::object spec = complete(*spec_fields, probe_object("Pod").at("spec")).as_object();
  json::array volumes;
  for (const std::string& path : split_lines(spec_fields->find("volumes")->paths())) {
    const std::string source = path.substr(0, path.find('.'));
    if (source == "name") continue;
    json::object volume = complete(*spec_fields->find("volumes"), json::object{}).as_object();
    for (auto it = volume.begin(); it != volume.end();) {
      it = it->key() == "name" || it->key() == source ? std::next(it) : volume.erase(it);
    }
    volume["name"] = source;
    if (volume[source].is_string()) volume[source] = json::object{{"path", "/marker"}};
    volumes.push_back(std::move(volume));
  }
  spec["volumes"] = volumes;
  json::value containers = spec["containers"];
  json::value inits = spec["initContainers"];
  json::object override{
      {"extra_pod_config", spec}, {"extra_containers", containers}, {"init_containers", inits}};
  auto published = publishable_profiles(
      json::array{json::object{{"display_name", "p"}, {"kubespawner_override", override}}});
  const json::object& kept = published.profiles.at(0).at("kubespawner_override").as_object();
  std::set<std::string> out;
  put_paths(kept.at("extra_pod_config"), "", out);
  put_paths(kept.at("extra_containers"), ".containers", out);
  put_paths(kept.at("init_containers"), ".initContainers", out);
  std::set<std::string> lost;
  for (const std::string& path : split_lines(spec_fields->paths())) {
    const bool kept_here = std::any_of(out.begin(), out.end(), [&](const std::string& p) {
      return p == "." + path || p.rfind("." + path + ".", 0) == 0 ||
             ("." + path).rfind(p + ".", 0) == 0;
    });
    if (!kept_here) lost.insert(path);
  }
  const std::set<std::string> withheld = {
      // Read only of a terminating pod (cluster-autoscaler's long-terminating
      // rule); a profile's pod has yet to start.
      "terminationGracePeriodSeconds",
      // In-line disks name where the bytes are; a profile that mounts one is
      // predicted as if it did not (VolumeRestrictions, NodeVolumeLimits).
      "volumes.awsElasticBlockStore", "volumes.azureDisk", "volumes.azureFile", "volumes.cinder",
      "volumes.gcePersistentDisk", "volumes.iscsi", "volumes.portworxVolume", "volumes.rbd",
      "volumes.vsphereVolume"};
  EXPECT_EQ(lost, withheld);
}

}  // namespace
}  // namespace tightpack::daemon

namespace tightpack::daemon {
namespace {

// The --publish document refuses a key it does not know as every strict
// format does (known_fields.hpp): naming it and the keys it could have meant.
TEST(PublishedDocument, AnUnknownKeyIsNamedWithTheKnownOnes) {
  auto r = publishable(boost::json::parse(R"({"profiles": [], "kubeSpawnerDefaults": {}})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(std::string(r.error().what()),
            R"($.kubeSpawnerDefaults: unknown field "kubeSpawnerDefaults" (known: profiles, )"
            R"(kubespawnerDefaults, daskGateway))");
}

}  // namespace
}  // namespace tightpack::daemon
