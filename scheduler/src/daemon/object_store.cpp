#include "daemon/object_store.hpp"

#include "tightpack/decode.hpp"
#include "tightpack/json_path.hpp"

namespace tightpack::daemon {
namespace {

namespace json = boost::json;

bool namespaced(std::string_view kind) {
  return kind != "Node" && kind != "Namespace" && kind != "PersistentVolume" &&
         kind != "StorageClass" && kind != "CSINode" && kind != "CSIDriver";
}

// Moves the one object a decode put into `from` into the map under `key`;
// whether the map changed.
template <class T>
bool put(std::map<std::string, T>& map, std::string key, std::vector<T>& from) {
  if (from.empty()) return false;
  auto it = map.find(key);
  if (it != map.end() && it->second == from.front()) return false;
  map.insert_or_assign(std::move(key), std::move(from.front()));
  return true;
}

template <class T>
void append(std::vector<T>& to, const std::map<std::string, T>& from) {
  to.reserve(from.size());
  for (const auto& [key, value] : from) to.push_back(value);
}

}  // namespace

Result<std::string> watched_key(std::string_view kind, const json::value& object) {
  const JsonPath path(kind);
  const json::object* o = object.if_object();
  const json::value* meta = o ? o->if_contains("metadata") : nullptr;
  const json::object* m = meta ? meta->if_object() : nullptr;
  const json::value* name = m ? m->if_contains("name") : nullptr;
  if (!name || !name->is_string() || name->get_string().empty()) {
    const JsonPath metadata = path.field("metadata");
    return Error{metadata.field("name").str(), "missing: an object without a name"};
  }
  std::string key(name->get_string());
  if (!namespaced(kind)) return key;
  const json::value* ns = m->if_contains("namespace");
  std::string nspace = ns && ns->is_string() ? std::string(ns->get_string()) : std::string();
  return (nspace.empty() ? std::string("default") : nspace) + "/" + key;
}

std::pair<std::string, std::string> split_key(const std::string& key) {
  const size_t slash = key.find('/');
  return {key.substr(0, slash), key.substr(slash + 1)};
}

std::string resource_version_text(const json::value& object) {
  const json::object* o = object.if_object();
  const json::value* meta = o ? o->if_contains("metadata") : nullptr;
  const json::value* rv =
      meta && meta->is_object() ? meta->as_object().if_contains("resourceVersion") : nullptr;
  return rv && rv->is_string() ? std::string(rv->get_string()) : std::string();
}

uint64_t parse_resource_version(const json::value& object) {
  const std::string rv = resource_version_text(object);
  if (rv.empty()) return 0;
  uint64_t out = 0;
  for (char c : rv) {
    if (c < '0' || c > '9' || out > (UINT64_MAX - 9) / 10) return 0;  // not etcd's: never newer
    out = out * 10 + static_cast<uint64_t>(c - '0');
  }
  return out;
}

Result<DecodedObject> decode_watched(std::string_view kind, const json::value& object) {
  auto key = watched_key(kind, object);
  if (!key) return key.error();
  DecodedObject d{std::move(*key), {}, parse_resource_version(object)};
  bool known = false;
  if (auto s = decode_api_object(kind, object, JsonPath(kind), d.one, known); !s) return s.error();
  if (!known) return Error{"kind", "not a kind the scheduler watches: " + std::string(kind)};
  if (kind == "PersistentVolumeClaim") {
    const json::object* annotations = nullptr;
    if (const auto* m = object.as_object().if_contains("metadata"); m && m->is_object()) {
      if (const auto* a = m->as_object().if_contains("annotations"); a && a->is_object())
        annotations = &a->as_object();
    }
    const auto text = [&](const char* key) -> std::optional<std::string> {
      const json::value* v = annotations ? annotations->if_contains(key) : nullptr;
      if (!v || !v->is_string()) return std::nullopt;
      return std::string(v->as_string());
    };
    if (auto user = text("hub.jupyter.org/username"); user && !user->empty()) {
      d.hub_owner = HubOwner{*user, text("hub.jupyter.org/servername").value_or("")};
    }
  }
  return d;
}

template <class F>
void ObjectStore::with_map(std::string_view kind, F&& f) {
  if (kind == "Namespace") return f(namespaces_, &ApiObjects::namespaces);
  if (kind == "Service") return f(services_, &ApiObjects::services);
  if (kind == "ReplicationController")
    return f(replication_controllers_, &ApiObjects::replication_controllers);
  if (kind == "ReplicaSet") return f(replica_sets_, &ApiObjects::replica_sets);
  if (kind == "StatefulSet") return f(stateful_sets_, &ApiObjects::stateful_sets);
  if (kind == "PersistentVolumeClaim") return f(claims_, &ApiObjects::claims);
  if (kind == "PersistentVolume") return f(volumes_, &ApiObjects::volumes);
  if (kind == "StorageClass") return f(classes_, &ApiObjects::storage_classes);
  if (kind == "CSINode") return f(csi_nodes_, &ApiObjects::csi_nodes);
  if (kind == "CSIDriver") return f(csi_drivers_, &ApiObjects::csi_drivers);
  if (kind == "CSIStorageCapacity") return f(capacities_, &ApiObjects::csi_capacities);
}

std::map<std::string, uint64_t>* ObjectStore::versions(std::string_view kind) {
  if (kind == "PersistentVolumeClaim") return &claim_versions_;
  if (kind == "PersistentVolume") return &volume_versions_;
  return nullptr;
}

void ObjectStore::replace(std::string_view kind, std::vector<DecodedObject> items) {
  auto* v = versions(kind);
  if (v) v->clear();
  if (kind == "PersistentVolumeClaim") {
    claim_owners_.clear();
    for (const auto& item : items) {
      if (item.hub_owner) claim_owners_[item.key] = *item.hub_owner;
    }
  }
  with_map(kind, [&](auto& map, auto member) {
    map.clear();
    for (auto& item : items) {
      if (v) (*v)[item.key] = item.resource_version;
      put(map, std::move(item.key), item.one.*member);
    }
  });
  listed_.emplace(kind);
}

bool ObjectStore::upsert(std::string_view kind, DecodedObject item) {
  if (auto* v = versions(kind)) (*v)[item.key] = item.resource_version;
  if (kind == "PersistentVolumeClaim") {
    if (item.hub_owner) {
      claim_owners_[item.key] = *item.hub_owner;
    } else {
      claim_owners_.erase(item.key);
    }
  }
  bool changed = false;
  with_map(kind, [&](auto& map, auto member) {
    changed = put(map, std::move(item.key), item.one.*member);
  });
  return changed;
}

bool ObjectStore::remove(std::string_view kind, const std::string& key) {
  if (auto* v = versions(kind)) v->erase(key);
  if (kind == "PersistentVolumeClaim") claim_owners_.erase(key);
  bool changed = false;
  with_map(kind, [&](auto& map, auto) { changed = map.erase(key) > 0; });
  return changed;
}

uint64_t ObjectStore::claim_version(const std::string& key) const {
  auto it = claim_versions_.find(key);
  return it == claim_versions_.end() ? 0 : it->second;
}

uint64_t ObjectStore::volume_version(const std::string& name) const {
  auto it = volume_versions_.find(name);
  return it == volume_versions_.end() ? 0 : it->second;
}

bool ObjectStore::storage_listed() const {
  for (const auto& k : kWatchedKinds) {
    if (k.storage && !listed_.count(std::string_view(k.kind))) return false;
  }
  return true;
}

std::vector<std::pair<const PersistentVolumeClaim*, HubOwner>> ObjectStore::claims_of_hub_user(
    const std::string& user) const {
  std::vector<std::pair<const PersistentVolumeClaim*, HubOwner>> out;
  for (const auto& [key, owner] : claim_owners_) {
    if (owner.user != user) continue;
    if (const PersistentVolumeClaim* c = claim(key)) out.emplace_back(c, owner);
  }
  return out;
}

const PersistentVolumeClaim* ObjectStore::claim(const std::string& key) const {
  auto it = claims_.find(key);
  return it == claims_.end() ? nullptr : &it->second;
}

const PersistentVolume* ObjectStore::volume(const std::string& name) const {
  auto it = volumes_.find(name);
  return it == volumes_.end() ? nullptr : &it->second;
}

ApiObjects ObjectStore::workload_objects() const {
  ApiObjects o;
  append(o.namespaces, namespaces_);
  append(o.services, services_);
  append(o.replication_controllers, replication_controllers_);
  append(o.replica_sets, replica_sets_);
  append(o.stateful_sets, stateful_sets_);
  o.namespaces_listed = namespaces_listed();
  return o;
}

ApiObjects ObjectStore::objects() const {
  ApiObjects o = workload_objects();
  append(o.claims, claims_);
  append(o.volumes, volumes_);
  append(o.storage_classes, classes_);
  append(o.csi_nodes, csi_nodes_);
  append(o.csi_drivers, csi_drivers_);
  append(o.csi_capacities, capacities_);
  o.storage_listed = storage_listed();
  return o;
}

}  // namespace tightpack::daemon
