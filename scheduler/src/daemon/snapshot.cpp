#include "daemon/snapshot.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <unordered_map>

#include "daemon/json_text.hpp"
#include "daemon/pseudonyms.hpp"
#include "daemon/storage_publish.hpp"

namespace tightpack::daemon {
namespace json = boost::json;

namespace {

json::object node(const autoscaler::CaNode& n) {
  json::array taints;
  for (const auto& t : n.node.taints) {
    json::object o{{"key", t.key}, {"effect", t.effect}};
    if (!t.value.empty()) o["value"] = t.value;
    taints.push_back(std::move(o));
  }
  json::object spec;
  if (!taints.empty()) spec["taints"] = std::move(taints);
  if (n.node.unschedulable) spec["unschedulable"] = true;
  json::object labels;
  for (const auto& [k, v] : n.node.labels) labels[k] = v;
  json::object allocatable, capacity;
  for (auto [list, out] :
       {std::pair{&n.node.allocatable, &allocatable}, std::pair{&n.node.capacity, &capacity}}) {
    for (const auto& [name, amount] : *list)
      (*out)[name] = name == "cpu" ? std::to_string(amount) + "m" : std::to_string(amount);
  }
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", {{"name", n.node.name}, {"labels", std::move(labels)}}},
      {"spec", std::move(spec)},
      {"status",
       {{"allocatable", std::move(allocatable)},
        {"capacity", std::move(capacity)},
        {"conditions",
         json::array{json::object{{"type", "Ready"}, {"status", n.ready ? "True" : "False"}}}}}}};
}

std::string pseudonym_text(const char* prefix, uint64_t bits) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string name = prefix;
  for (int i = 0; i < 16; ++i, bits >>= 4) name += kHex[bits & 15];
  return name;
}

}  // namespace

class RedactedSnapshot::Redactor {
 public:
  Redactor(RedactedSnapshot& s, const PseudonymKey& key) : s_(s), key_(key) {}

  void pod(const std::string& key, const PodRecord& rec) {
    const autoscaler::CaPod& ca = rec.pod;
    AnonymousPod a;
    a.name = siphash24(key_, {"pod:", key});
    a.kube_system = ca.pod.ns == "kube-system";
    if (!a.kube_system) a.ns = siphash24(key_, {"ns:", ca.pod.ns});
    a.node = index_of(rec.holds(), node_ids_, s_.node_names_);
    // Pods of one controller stay recognisably together (scale-down reads
    // that), under a name that says nothing.
    a.owned = !ca.controller_kind.empty();
    if (a.owned) {
      a.owner =
          siphash24(key_, {"owner:", ca.controller_kind, "/", ca.pod.ns, "/", ca.controller_name});
    }
    // The template the cache keeps with the pod (ClusterCache::keep), one
    // string for the pods alike: found by its address.
    const std::string& text = rec.published.get();
    auto [at, added] = by_address_.try_emplace(&text, static_cast<uint32_t>(s_.shapes_.size()));
    if (added) s_.shapes_.push_back(text);
    a.shape = at->second;
    s_.pods_.push_back(a);
  }

 private:
  static uint32_t index_of(const std::string& s, std::unordered_map<std::string, uint32_t>& ids,
                           std::vector<std::string>& values) {
    auto [it, added] = ids.try_emplace(s, static_cast<uint32_t>(values.size()));
    if (added) values.push_back(s);
    return it->second;
  }

  RedactedSnapshot& s_;
  PseudonymKey key_;
  std::unordered_map<std::string, uint32_t> node_ids_;
  std::unordered_map<const std::string*, uint32_t> by_address_;
};

RedactedSnapshot::RedactedSnapshot(const ClusterCache& cache,
                                   const json::value& scheduler_configuration,
                                   const std::optional<json::value>& pools,
                                   const Published& published, const PseudonymKey& key) {
  for (const auto& [name, n] : cache.nodes()) objects_.push_back(node(n));
  // The classes say how a notebook's first home claim will be provisioned.
  for (const auto& [name, c] : cache.objects().storage_classes())
    objects_.push_back(published_storage_class(c));
  Redactor redactor(*this, key);
  pods_.reserve(cache.pods().size());
  for (const auto& [name, rec] : cache.pods()) {
    if (!rec.holds().empty()) redactor.pod(name, rec);
  }
  rest_ = json::object{
      {"pools", pools ? *pools : json::value(nullptr)},
      {"schedulerConfiguration", scheduler_configuration},
      {"profiles", published.profiles},
      {"notes",
       json::array{
           "from the tightpack scheduler: pods are anonymous (no names, images or labels); node "
           "images are left out"}}};
  if (!published.dask_gateway.is_null()) rest_["daskGateway"] = published.dask_gateway;
  if (!published.kubespawner_defaults.is_null())
    rest_["kubespawnerDefaults"] = published.kubespawner_defaults;
}

std::string RedactedSnapshot::text(PodForm form) const {
  std::string out;
  if (form == PodForm::kGrouped) {  // written once, without the copies growth makes
    size_t bytes = 4096 + 100 * pods_.size() + 1000 * objects_.size();
    for (const std::string& shape : shapes_) bytes += shape.size() + 64;
    out.reserve(bytes);
  }
  // Pods in the order of their pseudonyms (random): neither the order nor
  // the names say which pod is whose. Two pods whose pseudonyms collide
  // (2^-64 a pair) get the next free value: no name is written twice.
  std::vector<const AnonymousPod*> order;
  order.reserve(pods_.size());
  for (const AnonymousPod& p : pods_) order.push_back(&p);
  std::sort(order.begin(), order.end(),
            [](const AnonymousPod* a, const AnonymousPod* b) { return a->name < b->name; });
  std::vector<uint64_t> names(pods_.size());
  for (size_t i = 0; i < order.size(); ++i) {
    uint64_t name = order[i]->name;
    if (i > 0 && name <= names[order[i - 1] - pods_.data()])
      name = names[order[i - 1] - pods_.data()] + 1;
    names[order[i] - pods_.data()] = name;
  }
  auto name_text = [&](const AnonymousPod* p) {
    return pseudonym_text("pod-", names[p - pods_.data()]);
  };
  auto namespace_text = [](const AnonymousPod* p) {
    return p->kube_system ? std::string("kube-system") : pseudonym_text("ns-", p->ns);
  };
  {
    Nest envelope(out, '{', '}');
    {
      Nest cluster(envelope.key("cluster"), '{', '}');
      put_string(cluster.key("apiVersion"), "v1");
      put_string(cluster.key("kind"), "List");
      Nest items(cluster.key("items"), '[', ']');
      for (const json::value& o : objects_) items.next() += json::serialize(o);
      if (form == PodForm::kExpanded) {
        for (const AnonymousPod* p : order) {
          // The template with the pod's own fields put in (as core's
          // visit_objects puts them into a PodGroup's).
          json::object pod = json::parse(shapes_[p->shape]).as_object();
          json::object& meta = pod["metadata"].as_object();
          meta["name"] = name_text(p);
          meta["namespace"] = namespace_text(p);
          if (p->owned) {
            meta["ownerReferences"].as_array()[0].as_object()["name"] =
                pseudonym_text("owner-", p->owner);
          }
          pod["spec"].as_object()["nodeName"] = node_names_[p->node];
          pod["apiVersion"] = "v1";
          pod["kind"] = "Pod";
          items.next() += json::serialize(pod);
        }
      } else {
        // Groups in the order of what they hold, members in pseudonym order.
        std::vector<std::vector<const AnonymousPod*>> members(shapes_.size());
        for (const AnonymousPod* p : order) members[p->shape].push_back(p);
        std::vector<uint32_t> shapes(shapes_.size());
        for (uint32_t i = 0; i < shapes.size(); ++i) shapes[i] = i;
        std::sort(shapes.begin(), shapes.end(),
                  [&](uint32_t a, uint32_t b) { return shapes_[a] < shapes_[b]; });
        for (uint32_t shape : shapes) {
          Nest group(items.next(), '{', '}');
          put_string(group.key("apiVersion"), "tightpack.io/v1");
          put_string(group.key("kind"), "PodGroup");
          group.key("template") += shapes_[shape];
          Nest list(group.key("pods"), '[', ']');
          for (const AnonymousPod* p : members[shape]) {
            Nest m(list.next(), '[', ']');
            put_string(m.next(), name_text(p));
            put_string(m.next(), namespace_text(p));
            put_string(m.next(), node_names_[p->node]);
            if (p->owned) put_string(m.next(), pseudonym_text("owner-", p->owner));
          }
        }
      }
    }
    for (const auto& [key, value] : rest_) envelope.key(key) += json::serialize(value);
  }
  return out;
}

}  // namespace tightpack::daemon
