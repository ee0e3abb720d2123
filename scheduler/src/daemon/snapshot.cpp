#include "daemon/snapshot.hpp"

#include <boost/json.hpp>
#include <map>
#include <random>
#include <set>

#include "daemon/storage_publish.hpp"

namespace tightpack::daemon {
namespace json = boost::json;

namespace {

// Amounts in the scheduler's units, printed so that core reads them back
// exactly: millicores for cpu, plain integers for the rest.
json::object resources(const ResourceList& list) {
  json::object o;
  for (const auto& [name, amount] : list) {
    o[name] = name == "cpu" ? std::to_string(amount) + "m" : std::to_string(amount);
  }
  return o;
}

// A pod whose amounts only sum as kube-scheduler sums them as Quantities
// (GoRequests) gets its requests as they were written.
json::object quantities(const QuantityList& list) {
  json::object o;
  for (const auto& [name, q] : list) o[name] = q.text();
  return o;
}

json::object container(const Container& c, size_t i, const QuantityList* written) {
  json::object o{{"name", "c" + std::to_string(i)}};
  json::object res;
  if (written) {
    if (!written->empty()) res["requests"] = quantities(*written);
  } else if (!c.requests.empty()) {
    res["requests"] = resources(c.requests);
  }
  if (!c.limits.empty()) res["limits"] = resources(c.limits);
  if (!res.empty()) o["resources"] = std::move(res);
  json::array ports;
  for (const auto& p : c.ports) {
    if (p.host_port == 0) continue;
    json::object po{{"containerPort", p.container_port}, {"hostPort", p.host_port}};
    if (!p.protocol.empty()) po["protocol"] = p.protocol;
    if (!p.host_ip.empty()) po["hostIP"] = p.host_ip;
    ports.push_back(std::move(po));
  }
  if (!ports.empty()) o["ports"] = std::move(ports);
  if (c.restart_always) o["restartPolicy"] = "Always";
  return o;
}

json::array tolerations(const std::vector<Toleration>& list) {
  json::array a;
  for (const auto& t : list) {
    json::object o;
    if (!t.key.empty()) o["key"] = t.key;
    if (!t.op.empty()) o["operator"] = t.op;
    if (!t.value.empty()) o["value"] = t.value;
    if (!t.effect.empty()) o["effect"] = t.effect;
    if (t.seconds) o["tolerationSeconds"] = *t.seconds;
    a.push_back(std::move(o));
  }
  return a;
}

json::object labels(const Labels& l) {
  json::object o;
  for (const auto& [k, v] : l) o[k] = v;
  return o;
}

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
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", {{"name", n.node.name}, {"labels", labels(n.node.labels)}}},
      {"spec", std::move(spec)},
      {"status",
       {{"allocatable", resources(n.node.allocatable)},
        {"capacity", resources(n.node.capacity)},
        {"conditions",
         json::array{json::object{{"type", "Ready"}, {"status", n.ready ? "True" : "False"}}}}}}};
}

class PodRedactor {
 public:
  explicit PodRedactor(uint64_t seed) : rng_(seed) {}

  json::object pod(const PodRecord& rec) {
    const autoscaler::CaPod& ca = rec.pod;
    const Pod& p = ca.pod;
    json::object meta{{"name", pseudonym("pod-")}, {"namespace", ns(p.ns)}};
    json::object annotations;
    for (const auto& [k, v] : p.annotations) {
      // What cluster-autoscaler's drain rules read, nothing else.
      if (k.rfind("cluster-autoscaler.kubernetes.io/", 0) == 0) annotations[k] = v;
      if (k == "kubernetes.io/config.mirror") annotations[k] = "mirror";
    }
    if (!annotations.empty()) meta["annotations"] = std::move(annotations);
    if (!ca.controller_kind.empty()) {
      meta["ownerReferences"] =
          json::array{json::object{{"apiVersion", "v1"},
                                   {"kind", ca.controller_kind},
                                   {"name", owner(ca.controller_kind, p.ns, ca.controller_name)},
                                   {"uid", ""},
                                   {"controller", true}}};
    }
    json::object spec{{"nodeName", rec.holds()}, {"priority", p.priority}};
    json::array containers, inits, volumes;
    const GoRequests* written = p.go_requests ? p.go_requests.requests.get() : nullptr;
    auto at = [](const std::vector<QuantityList>& lists, size_t i) {
      return i < lists.size() ? &lists[i] : nullptr;
    };
    for (size_t i = 0; i < p.containers.size(); ++i)
      containers.push_back(
          container(p.containers[i], i, written ? at(written->containers, i) : nullptr));
    for (size_t i = 0; i < p.init_containers.size(); ++i)
      inits.push_back(
          container(p.init_containers[i], i, written ? at(written->init_containers, i) : nullptr));
    spec["containers"] = std::move(containers);
    if (!inits.empty()) spec["initContainers"] = std::move(inits);
    if (written ? !written->overhead.empty() : !p.overhead.empty())
      spec["overhead"] = written ? quantities(written->overhead) : resources(p.overhead);
    if (written ? !written->pod_requests.empty() : !p.pod_requests.empty()) {
      spec["resources"] = json::object{
          {"requests", written ? quantities(written->pod_requests) : resources(p.pod_requests)}};
    }
    if (!p.tolerations.empty()) spec["tolerations"] = tolerations(p.tolerations);
    if (!p.node_selector.empty()) spec["nodeSelector"] = labels(p.node_selector);
    for (size_t i = 0; i < ca.local_volumes.size(); ++i) {
      volumes.push_back(
          json::object{{"name", "v" + std::to_string(i)}, {"emptyDir", json::object{}}});
    }
    if (!volumes.empty()) spec["volumes"] = std::move(volumes);
    return json::object{{"apiVersion", "v1"},
                        {"kind", "Pod"},
                        {"metadata", std::move(meta)},
                        {"spec", std::move(spec)},
                        {"status", {{"phase", p.phase.empty() ? "Running" : p.phase}}}};
  }

 private:
  // cluster-autoscaler treats kube-system apart; any other namespace may be
  // a user's (KubeSpawner can give each user one).
  std::string ns(const std::string& name) {
    if (name == "kube-system") return name;
    auto [it, added] = namespaces_.try_emplace(name);
    if (added) it->second = pseudonym("ns-");
    return it->second;
  }

  // Pods of one controller stay recognisably together (scale-down reads
  // that), under a name that says nothing.
  std::string owner(const std::string& kind, const std::string& ns, const std::string& name) {
    auto [it, added] = owners_.try_emplace(kind + "/" + ns + "/" + name);
    if (added) it->second = pseudonym("owner-");
    return it->second;
  }

  // 64 random bits, never the same twice in one snapshot.
  std::string pseudonym(const char* prefix) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string name;
    do {
      uint64_t bits = rng_();
      name = prefix;
      for (int i = 0; i < 16; ++i, bits >>= 4) name.push_back(kHex[bits & 15]);
    } while (!used_.insert(name).second);
    return name;
  }

  std::mt19937_64 rng_;
  std::set<std::string> used_;
  std::map<std::string, std::string> owners_;
  std::map<std::string, std::string> namespaces_;
};

}  // namespace

json::object redacted_snapshot(const ClusterCache& cache,
                               const json::value& scheduler_configuration,
                               const std::optional<json::value>& pools, const Published& published,
                               uint64_t seed) {
  json::array items;
  for (const auto& [name, n] : cache.nodes()) items.push_back(node(n));
  // The classes say how a notebook's first home claim will be provisioned.
  for (const auto& [name, c] : cache.objects().storage_classes())
    items.push_back(published_storage_class(c));
  // Pseudonyms are drawn in key order (so that one seed gives one snapshot,
  // whatever the hash order) and the pods listed in pseudonym order.
  std::map<std::string, const PodRecord*> held;
  for (const auto& [key, rec] : cache.pods()) {
    if (!rec.holds().empty()) held.emplace(key, &rec);
  }
  PodRedactor redactor(seed);
  std::map<std::string, json::object> by_pseudonym;
  for (const auto& [key, rec] : held) {
    json::object p = redactor.pod(*rec);
    std::string name(p.at("metadata").at("name").as_string());
    by_pseudonym.emplace(std::move(name), std::move(p));
  }
  for (auto& [name, p] : by_pseudonym) items.push_back(std::move(p));
  json::object envelope{
      {"cluster", {{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}}},
      {"pools", pools ? *pools : json::value(nullptr)},
      {"schedulerConfiguration", scheduler_configuration},
      {"profiles", published.profiles},
      {"notes",
       json::array{
           "from the tightpack scheduler: pods are anonymous (no names, images or labels); node "
           "images are left out"}}};
  if (!published.dask_gateway.is_null()) envelope["daskGateway"] = published.dask_gateway;
  if (!published.kubespawner_defaults.is_null())
    envelope["kubespawnerDefaults"] = published.kubespawner_defaults;
  return envelope;
}

}  // namespace tightpack::daemon
