#include "daemon/storage_publish.hpp"

#include <boost/json.hpp>
#include <ctime>

namespace tightpack::daemon {
namespace json = boost::json;

namespace {

json::array access_modes(uint8_t modes) {
  json::array out;
  if (modes & kReadWriteOnce) out.emplace_back("ReadWriteOnce");
  if (modes & kReadOnlyMany) out.emplace_back("ReadOnlyMany");
  if (modes & kReadWriteMany) out.emplace_back("ReadWriteMany");
  if (modes & kReadWriteOncePod) out.emplace_back("ReadWriteOncePod");
  return out;
}

json::array requirements(const std::vector<NodeSelectorRequirement>& list) {
  json::array out;
  for (const auto& r : list) {
    json::object o{{"key", r.key}, {"operator", r.op}};
    if (!r.values.empty()) {
      json::array values;
      for (const auto& v : r.values) values.emplace_back(v);
      o["values"] = std::move(values);
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::string rfc3339(int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace

json::object published_claim(const PersistentVolumeClaim& c) {
  json::object annotations;
  if (c.bind_completed) annotations["pv.kubernetes.io/bind-completed"] = "yes";
  if (c.selected_node) annotations["volume.kubernetes.io/selected-node"] = *c.selected_node;
  // VolumeBinding reads whether a claim has annotations at all (annotated),
  // not what they say: one that says nothing keeps that.
  if (c.annotated && annotations.empty()) annotations["tightpack.io/annotations"] = "withheld";
  json::object meta{{"name", c.name}, {"namespace", c.ns}};
  if (!c.uid.empty()) meta["uid"] = c.uid;
  if (!annotations.empty()) meta["annotations"] = std::move(annotations);
  json::object spec{{"accessModes", access_modes(c.access_modes)}};
  if (c.request)
    spec["resources"] = json::object{{"requests", {{"storage", std::to_string(*c.request)}}}};
  if (!c.class_unset) spec["storageClassName"] = c.class_name;
  if (!c.volume_name.empty()) spec["volumeName"] = c.volume_name;
  if (c.block) spec["volumeMode"] = "Block";
  if (!c.attributes_class.empty()) spec["volumeAttributesClassName"] = c.attributes_class;
  const char* phase =
      c.lost ? "Lost" : (!c.volume_name.empty() && c.bind_completed ? "Bound" : "Pending");
  return json::object{{"apiVersion", "v1"},
                      {"kind", "PersistentVolumeClaim"},
                      {"metadata", std::move(meta)},
                      {"spec", std::move(spec)},
                      {"status", {{"phase", phase}}}};
}

json::object published_volume(const PersistentVolume& v) {
  json::object meta{{"name", v.name}};
  if (!v.labels.empty()) {
    json::object labels;
    for (const auto& [k, value] : v.labels) labels[k] = value;
    meta["labels"] = std::move(labels);
  }
  json::object spec{{"accessModes", access_modes(v.access_modes)},
                    {"capacity", {{"storage", std::to_string(v.capacity)}}},
                    {"storageClassName", v.class_name}};
  if (v.block) spec["volumeMode"] = "Block";
  if (!v.attributes_class.empty()) spec["volumeAttributesClassName"] = v.attributes_class;
  if (v.claim_ref) {
    json::object ref{{"namespace", v.claim_ref->ns}, {"name", v.claim_ref->name}};
    if (!v.claim_ref->uid.empty()) ref["uid"] = v.claim_ref->uid;
    spec["claimRef"] = std::move(ref);
  }
  if (!v.csi_driver.empty())
    spec["csi"] = json::object{{"driver", v.csi_driver}, {"volumeHandle", v.csi_handle}};
  if (v.node_affinity) {
    json::array terms;
    for (const auto& t : *v.node_affinity) {
      json::object term;
      if (!t.match_expressions.empty())
        term["matchExpressions"] = requirements(t.match_expressions);
      if (!t.match_fields.empty()) term["matchFields"] = requirements(t.match_fields);
      terms.push_back(std::move(term));
    }
    spec["nodeAffinity"] = json::object{{"required", {{"nodeSelectorTerms", std::move(terms)}}}};
  }
  return json::object{{"apiVersion", "v1"},
                      {"kind", "PersistentVolume"},
                      {"metadata", std::move(meta)},
                      {"spec", std::move(spec)},
                      {"status", {{"phase", v.phase.empty() ? "Available" : v.phase}}}};
}

json::object published_storage_class(const StorageClass& c) {
  json::object meta{{"name", c.name}};
  if (c.created) meta["creationTimestamp"] = rfc3339(c.created);
  if (c.is_default)
    meta["annotations"] = json::object{{"storageclass.kubernetes.io/is-default-class", "true"}};
  json::object o{
      {"apiVersion", "storage.k8s.io/v1"},
      {"kind", "StorageClass"},
      {"metadata", std::move(meta)},
      {"provisioner", c.provisioner},
      {"volumeBindingMode", c.wait_for_first_consumer ? "WaitForFirstConsumer" : "Immediate"}};
  if (!c.allowed_topologies.empty()) {
    json::array terms;
    for (const auto& t : c.allowed_topologies) {
      json::array exprs;
      for (const auto& [key, values] : t.match_label_expressions) {
        json::array vs;
        for (const auto& v : values) vs.emplace_back(v);
        exprs.push_back(json::object{{"key", key}, {"values", std::move(vs)}});
      }
      terms.push_back(json::object{{"matchLabelExpressions", std::move(exprs)}});
    }
    o["allowedTopologies"] = std::move(terms);
  }
  return o;
}

json::object home_answer(const ObjectStore& objects, const std::string& user,
                         const std::string& hub_namespace) {
  json::array claims, items, volumes;
  for (const auto& [claim, owner] : objects.claims_of_hub_user(user)) {
    if (!hub_namespace.empty() && claim->ns != hub_namespace) continue;
    const PersistentVolume* volume =
        claim->volume_name.empty() ? nullptr : objects.volume(claim->volume_name);
    claims.push_back(
        json::object{{"namespace", claim->ns},
                     {"name", claim->name},
                     {"server", owner.server},
                     {"volume", volume ? json::value(volume->name) : json::value(nullptr)}});
    items.push_back(published_claim(*claim));
    if (volume) volumes.push_back(published_volume(*volume));
  }
  for (auto& v : volumes) items.push_back(std::move(v));
  return json::object{{"user", user}, {"claims", std::move(claims)}, {"items", std::move(items)}};
}

}  // namespace tightpack::daemon
