#include "daemon/volume_binder.hpp"

#include <boost/json.hpp>

#include "tightpack/decode.hpp"

namespace tightpack::daemon {
namespace {

namespace json = boost::json;

constexpr const char* kSelectedNode = "volume.kubernetes.io/selected-node";

// The object at `path`, read fresh: its resourceVersion and the object.
std::string read(kube::ApiClient& api, const std::string& path, std::chrono::milliseconds budget,
                 json::value& out) {
  auto r = api.request("GET", path, {}, "application/json", budget);
  if (!r) return r.error().what();
  if (!r->ok()) return kube::api_error_text(*r);
  auto v = parse_json(r->body);
  if (!v || !v->is_object()) return "the API server's answer for " + path + " is not an object";
  out = std::move(*v);
  return "";
}

// The patched object's resourceVersion through `version`.
std::string merge_patch(kube::ApiClient& api, const std::string& path, const json::object& patch,
                        std::chrono::milliseconds budget, uint64_t& version) {
  auto r =
      api.request("PATCH", path, json::serialize(patch), "application/merge-patch+json", budget);
  if (!r) return r.error().what();
  if (!r->ok()) return kube::api_error_text(*r);
  auto v = parse_json(r->body);
  version = v ? parse_resource_version(*v) : 0;
  return "";
}

}  // namespace

WrittenBindings write_volume_bindings(kube::ApiClient& api, const BindingPlan& plan,
                                      const std::map<std::string, std::string>& claim_uids,
                                      const std::string& node, std::chrono::milliseconds budget) {
  WrittenBindings out;
  auto failed = [&out](std::string e) {
    out.error = std::move(e);
    return out;
  };
  // GetBindVolumeToClaim: the volume's claimRef, and bound-by-controller.
  for (const auto& [claim_key, volume] : plan.static_bindings) {
    auto uid = claim_uids.find(claim_key);
    if (uid == claim_uids.end()) return failed("claim " + claim_key + " is gone");
    const auto [ns, name] = split_key(claim_key);
    const std::string path = "/api/v1/persistentvolumes/" + volume;
    json::value pv;
    if (std::string e = read(api, path, budget, pv); !e.empty())
      return failed("reading PersistentVolume " + volume + ": " + e);
    const json::value* spec = pv.as_object().if_contains("spec");
    const json::value* ref =
        spec && spec->is_object() ? spec->as_object().if_contains("claimRef") : nullptr;
    if (ref && ref->is_object()) {
      const json::object& r = ref->as_object();
      const bool ours = r.contains("name") && r.at("name") == json::value(name) &&
                        r.contains("namespace") && r.at("namespace") == json::value(ns);
      if (!ours)
        return failed("PersistentVolume " + volume + " was bound to another claim meanwhile");
      out.volumes[volume] = parse_resource_version(pv);  // bound to this claim already
      continue;
    }
    json::object patch{{"metadata",
                        {{"resourceVersion", resource_version_text(pv)},
                         {"annotations", {{"pv.kubernetes.io/bound-by-controller", "yes"}}}}},
                       {"spec",
                        {{"claimRef",
                          {{"kind", "PersistentVolumeClaim"},
                           {"apiVersion", "v1"},
                           {"namespace", ns},
                           {"name", name},
                           {"uid", uid->second}}}}}};
    if (std::string e = merge_patch(api, path, patch, budget, out.volumes[volume]); !e.empty()) {
      return failed("binding PersistentVolume " + volume + " to claim " + claim_key + ": " + e);
    }
  }
  // The claims to provision: the node, for the provisioner.
  for (const std::string& claim_key : plan.provisions) {
    const auto [ns, name] = split_key(claim_key);
    const std::string path = "/api/v1/namespaces/" + ns + "/persistentvolumeclaims/" + name;
    json::value pvc;
    if (std::string e = read(api, path, budget, pvc); !e.empty()) {
      return failed("reading PersistentVolumeClaim " + claim_key + ": " + e);
    }
    json::object patch{{"metadata",
                        {{"resourceVersion", resource_version_text(pvc)},
                         {"annotations", {{kSelectedNode, node}}}}}};
    if (std::string e = merge_patch(api, path, patch, budget, out.claims[claim_key]); !e.empty()) {
      return failed("selecting node " + node + " for claim " + claim_key + ": " + e);
    }
  }
  return out;
}

VolumeBindingWait::Check VolumeBindingWait::check(const ObjectStore& objects, const Node* node,
                                                  std::chrono::steady_clock::time_point now) {
  auto failed = [](std::string e) { return Check{State::Failed, std::move(e)}; };
  if (!node)
    return failed("failed to get node \"" + node_ + "\": node \"" + node_ + "\" not found");
  bool bound = true;
  auto fully_bound = [](const PersistentVolumeClaim& c) {
    return !c.volume_name.empty() && c.bind_completed;
  };
  for (const auto& [claim_key, volume] : plan_.static_bindings) {
    const PersistentVolume* pv = objects.volume(volume);
    const PersistentVolumeClaim* pvc = objects.claim(claim_key);
    if (!pv) return failed("failed to check binding: PV " + volume + " not found");
    if (!pvc) return failed("failed to check binding: PVC " + claim_key + " not found");
    if (!volume_node_affinity_matches(*pv, node->labels)) {
      return failed("pv \"" + volume + "\" node affinity doesn't match node \"" + node_ + "\"");
    }
    // The watch behind our write: wait for it.
    if (objects.volume_version(volume) < written_.volumes[volume]) {
      bound = false;
      continue;
    }
    if (!pv->claim_ref || pv->claim_ref->uid.empty()) {
      return failed("ClaimRef got reset for pv \"" + volume + "\"");
    }
    if (!fully_bound(*pvc)) bound = false;
  }
  for (const std::string& claim_key : plan_.provisions) {
    const PersistentVolumeClaim* pvc = objects.claim(claim_key);
    if (!pvc) return failed("failed to check provisioning pvc: PVC " + claim_key + " not found");
    const std::string name = split_key(claim_key).second;
    if (objects.claim_version(claim_key) < written_.claims[claim_key]) {
      bound = false;  // the watch behind our write
      continue;
    }
    if (!pvc->annotated) return failed("selectedNode annotation reset for PVC \"" + name + "\"");
    if (pvc->selected_node.value_or("") != node_) {
      // The provisioner removes the annotation when it cannot provision there.
      return failed("provisioning failed for PVC \"" + name + "\"");
    }
    if (!pvc->volume_name.empty()) {
      const PersistentVolume* pv = objects.volume(pvc->volume_name);
      if (!pv) {
        bound = false;  // the volume not seen yet
        continue;
      }
      if (!volume_node_affinity_matches(*pv, node->labels)) {
        return failed("pv \"" + pv->name + "\" node affinity doesn't match node \"" + node_ + "\"");
      }
    }
    if (!fully_bound(*pvc)) bound = false;
  }
  if (bound) return Check{State::Bound, ""};
  if (now >= deadline_) return failed("context deadline exceeded");
  return Check{};
}

}  // namespace tightpack::daemon
