#include "tightpack/scheduling_fields.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <cstdlib>
#include <iterator>
#include <unordered_map>

#include "json_read.hpp"
#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/decode.hpp"

namespace tightpack {

namespace json = boost::json;

void json_read::log_lookup(const json::object& o, std::string_view key) {
  lookup_log->emplace_back(&o, key);
}

namespace {

// Every object the decoders descend into, with one element of each array
// that holds objects, and volumes and an emptyDir of a source no plugin reads
// so that the volume decoders try every source. Values are valid: a decoder
// that stops at an error would look up less.
constexpr std::string_view kProbePod = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {
    "name": "probe", "namespace": "probe", "uid": "u", "labels": {"a": "b"},
    "annotations": {"a": "b"},
    "creationTimestamp": "2026-01-01T00:00:00Z", "deletionTimestamp": "2026-01-01T00:00:00Z",
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "r", "uid": "u",
                         "controller": true}]
  },
  "spec": {
    "containers": [{"name": "c", "image": "i", "restartPolicy": "Always",
                    "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1.5"}},
                    "ports": [{"containerPort": 80, "hostPort": 80}]}],
    "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "1"}}}],
    "overhead": {"cpu": "0.5"},
    "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}},
    "nodeSelector": {"a": "b"},
    "tolerations": [{"key": "a", "operator": "Equal", "value": "b", "effect": "NoExecute",
                     "tolerationSeconds": 1}],
    "affinity": {
      "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
          {"matchExpressions": [{"key": "a", "operator": "In", "values": ["b"]}],
           "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {
          "matchExpressions": [{"key": "a", "operator": "In", "values": ["b"]}]}}]
      },
      "podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [{
          "topologyKey": "zone", "namespaces": ["n"],
          "labelSelector": {"matchLabels": {"a": "b"},
                            "matchExpressions": [{"key": "a", "operator": "In", "values": ["b"]}]},
          "namespaceSelector": {"matchLabels": {"a": "b"}}}],
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {
          "topologyKey": "zone", "labelSelector": {"matchLabels": {"a": "b"}}}}]
      },
      "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [{
          "topologyKey": "zone", "labelSelector": {"matchLabels": {"a": "b"}}}],
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {
          "topologyKey": "zone", "labelSelector": {"matchLabels": {"a": "b"}}}}]
      }
    },
    "topologySpreadConstraints": [{
      "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
      "labelSelector": {"matchLabels": {"a": "b"}}, "minDomains": 2,
      "nodeAffinityPolicy": "Honor", "nodeTaintsPolicy": "Honor", "matchLabelKeys": ["k"]}],
    "schedulingGates": [{"name": "g"}],
    "resourceClaims": [{"name": "r"}],
    "volumes": [{"name": "v", "configMap": {"name": "c"}},
                {"name": "e", "emptyDir": {"medium": "Memory"}},
                {"name": "i", "image": {"reference": "r"}}],
    "nodeName": "n", "schedulerName": "s", "priority": 1, "preemptionPolicy": "Never",
    "terminationGracePeriodSeconds": 30
  },
  "status": {"phase": "Running", "nominatedNodeName": "n", "startTime": "2026-01-01T00:00:00Z"}
})";

// A DaemonSet's template is a pod without a status.
json::value probe_daemon_set() {
  json::value pod = json::parse(kProbePod);
  json::object& p = pod.as_object();
  p.erase("status");
  p.erase("apiVersion");
  p.erase("kind");
  return json::object{{"apiVersion", "apps/v1"},
                      {"kind", "DaemonSet"},
                      {"metadata", {{"name", "probe"}, {"namespace", "probe"}}},
                      {"spec", {{"template", std::move(pod)}}}};
}

// The tree's path of every object in `v`: its members' keys from the root,
// an array's elements under the array's own key.
void index_objects(const json::value& v, std::vector<std::string>& path,
                   std::unordered_map<const json::object*, std::vector<std::string>>& out) {
  if (v.is_array()) {
    for (const json::value& e : v.get_array()) index_objects(e, path, out);
    return;
  }
  if (!v.is_object()) return;
  out.emplace(&v.get_object(), path);
  for (const auto& kv : v.get_object()) {
    path.emplace_back(kv.key());
    index_objects(kv.value(), path, out);
    path.pop_back();
  }
}

// Each kind whose fields are learnt: its decoder and its probe.
struct Learnt {
  std::string_view kind;
  void (*decode)(const json::value& object);
  json::value (*probe)();
};

constexpr Learnt kLearnt[] = {
    {"DaemonSet",
     [](const json::value& o) { (void)autoscaler::decode_daemon_set(o, JsonPath("$")); },
     probe_daemon_set},
    {"Pod", [](const json::value& o) { (void)autoscaler::decode_ca_pod(o, JsonPath("$")); },
     [] { return json::parse(kProbePod); }},
};
static_assert(std::size(kLearnt) == std::size(kKindsWithFields));

const Learnt* learnt(std::string_view kind) {
  for (const Learnt& l : kLearnt) {
    if (l.kind == kind) return &l;
  }
  return nullptr;
}

// Each kind's probe and tree, made once.
struct KindFields {
  json::value probe;
  FieldTree fields;
};

const KindFields* kind_fields(std::string_view kind) {
  static const std::vector<KindFields> all = [] {
    std::vector<KindFields> out;
    for (const Learnt& l : kLearnt) {
      json::value probe = l.probe();
      auto tree = fields_looked_up(l.kind, probe);
      // The probe is the decoders' own: a copy among their lookups is a bug here.
      if (!tree) std::abort();
      out.push_back({std::move(probe), std::move(*tree)});
    }
    return out;
  }();
  const Learnt* l = learnt(kind);
  return l ? &all[static_cast<size_t>(l - kLearnt)] : nullptr;
}

}  // namespace

FieldTree& FieldTree::add(std::string_view key) {
  auto it = std::lower_bound(members_.begin(), members_.end(), key,
                             [](const auto& m, std::string_view k) { return m.first < k; });
  if (it == members_.end() || it->first != key) it = members_.emplace(it, key, FieldTree{});
  return it->second;
}

const FieldTree* FieldTree::find(std::string_view key) const {
  auto it = std::lower_bound(members_.begin(), members_.end(), key,
                             [](const auto& m, std::string_view k) { return m.first < k; });
  return it != members_.end() && it->first == key ? &it->second : nullptr;
}

bool FieldTree::within(const FieldTree& other) const {
  if (other.whole()) return true;
  return std::all_of(members_.begin(), members_.end(), [&](const auto& m) {
    const FieldTree* o = other.find(m.first);
    return o && m.second.within(*o);
  });
}

json::value FieldTree::keep(const json::value& v) const {
  if (whole()) return v;
  if (v.is_array()) {
    json::array out;
    out.reserve(v.get_array().size());
    for (const json::value& e : v.get_array()) out.push_back(keep(e));
    return out;
  }
  if (!v.is_object()) return v;
  json::object out;
  for (const auto& [key, sub] : members_) {
    if (const json::value* m = v.get_object().if_contains(key)) out.emplace(key, sub.keep(*m));
  }
  return out;
}

json::value FieldTree::to_json() const {
  if (whole()) return true;
  json::object out;
  for (const auto& [key, sub] : members_) out.emplace(key, sub.to_json());
  return out;
}

void FieldTree::put_paths(const std::string& prefix, std::string& out) const {
  if (whole()) {
    out += prefix + "\n";
    return;
  }
  for (const auto& [key, sub] : members_)
    sub.put_paths(prefix.empty() ? key : prefix + "." + key, out);
}

std::string FieldTree::paths() const {
  std::string out;
  put_paths("", out);
  return out;
}

const json::value& probe_object(std::string_view kind) {
  static const json::value none;
  const KindFields* k = kind_fields(kind);
  return k ? k->probe : none;
}

Result<FieldTree> fields_looked_up(std::string_view kind, const json::value& object) {
  std::unordered_map<const json::object*, std::vector<std::string>> paths;
  std::vector<std::string> path;
  index_objects(object, path, paths);
  const Learnt* decoder = learnt(kind);
  if (!decoder) return Error{"$", "no fields are learnt of a " + std::string(kind)};
  json_read::LookupLog log;
  json_read::lookup_log = &log;
  decoder->decode(object);
  json_read::lookup_log = nullptr;
  FieldTree tree;
  tree.add("apiVersion");
  tree.add("kind");
  for (const auto& [in, key] : log) {
    auto it = paths.find(in);
    if (it == paths.end()) {
      return Error{"$", "the " + std::string(kind) + " decoder looked up \"" + key +
                            "\" in an object that is not part of its input"};
    }
    FieldTree* at = &tree;
    for (const std::string& k : it->second) at = &at->add(k);
    at->add(key);
  }
  return tree;
}

const FieldTree* fields_read(std::string_view kind) {
  const KindFields* k = kind_fields(kind);
  return k ? &k->fields : nullptr;
}

json::value fields_read_json() {
  json::object out;
  for (std::string_view kind : kKindsWithFields) out.emplace(kind, fields_read(kind)->to_json());
  return out;
}

json::value strip_objects(const json::value& doc) {
  if (!doc.is_object()) return doc;
  const json::object& o = doc.get_object();
  const json::value* kind = o.if_contains("kind");
  if (!kind || !kind->is_string()) return doc;
  if (const FieldTree* tree = fields_read(kind->get_string())) return tree->keep(doc);
  const json::value* items = o.if_contains("items");
  if (!kind->get_string().ends_with("List") || !items || !items->is_array()) return doc;
  // The API's own lists (a PodList) leave the kind out of their items.
  const std::string_view list_kind = kind->get_string();
  const std::string_view listed = list_kind.substr(0, list_kind.size() - 4);
  const FieldTree* listed_fields = fields_read(listed);
  json::array kept;
  kept.reserve(items->get_array().size());
  for (const json::value& item : items->get_array()) {
    const bool kindless = item.is_object() && !item.get_object().contains("kind");
    kept.push_back(kindless && listed_fields ? listed_fields->keep(item) : strip_objects(item));
  }
  // The list's other members as they are; its items, the whole of it, not copied first.
  json::object out;
  for (const auto& kv : o) out.emplace(kv.key(), kv.key() == "items" ? json::value() : kv.value());
  out["items"] = std::move(kept);
  return out;
}

}  // namespace tightpack
