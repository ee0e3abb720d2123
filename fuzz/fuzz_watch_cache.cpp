// What the daemon does with watch events, end to end: each input line is an
// event ('N' node added or changed, 'n' node deleted, 'P' pod added or
// changed, 'p' pod deleted, then the object's JSON; 'A' assume the pod named
// by "ns/name node", 'F' forget it), decoded by the decoders the watch
// handlers use, slimmed, kept in the ClusterCache, then published by
// /snapshot. Checked:
// - the engine's cluster kept in place equals one built again from the cache;
// - redaction, as a property: no string the snapshot may not carry (a pod's
//   name, namespace other than kube-system, labels, images, container and
//   volume names, controller name, any annotation but cluster-autoscaler's)
//   is in the published bytes, as a key or a value, unless the snapshot also
//   carries it for a reason of its own (a node's name or label, a toleration,
//   a node selector, its own structure).
#include <boost/json.hpp>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <string_view>

#include "daemon/cache.hpp"
#include "daemon/snapshot.hpp"
#include "tightpack/autoscaler/autoscaler.hpp"
#include "tightpack/decode.hpp"

namespace {
namespace json = boost::json;
using namespace tightpack;

void check(bool ok) {
  if (!ok) std::abort();
}

void strings_of(const json::value& v, std::set<std::string>& out) {
  switch (v.kind()) {
    case json::kind::string:
      out.emplace(v.get_string());
      break;
    case json::kind::array:
      for (const auto& e : v.get_array()) strings_of(e, out);
      break;
    case json::kind::object:
      for (const auto& kv : v.get_object()) {
        out.emplace(kv.key());
        strings_of(kv.value(), out);
      }
      break;
    default:
      break;
  }
}

// What a pod's record may legitimately put in the snapshot, beside the
// nodes and the envelope's own words.
void publishable(const Pod& p, std::set<std::string>& out) {
  for (const auto& t : p.tolerations) out.insert({t.key, t.op, t.value, t.effect});
  for (const auto& [k, v] : p.node_selector) out.insert({k, v});
  for (const auto& [k, v] : p.annotations) {
    if (k.rfind("cluster-autoscaler.kubernetes.io/", 0) == 0) out.insert({k, v});
  }
  out.insert({p.phase, p.node_name});
  for (const auto* list : {&p.containers, &p.init_containers}) {
    for (const auto& c : *list) {
      for (const auto& [name, amount] : c.requests) out.insert(name);
      for (const auto& [name, amount] : c.limits) out.insert(name);
      for (const auto& port : c.ports) out.insert({port.protocol, port.host_ip});
    }
  }
  for (const auto& [name, amount] : p.overhead) out.insert(name);
  for (const auto& [name, amount] : p.pod_requests) out.insert(name);
}

// What must stay home.
void secrets(const autoscaler::CaPod& ca, std::set<std::string>& out) {
  const Pod& p = ca.pod;
  out.insert(p.name);
  if (p.ns != "kube-system") out.insert(p.ns);
  for (const auto& [k, v] : p.labels) out.insert({k, v});
  for (const auto& [k, v] : p.annotations) {
    if (k.rfind("cluster-autoscaler.kubernetes.io/", 0) != 0 &&
        k != "kubernetes.io/config.mirror") {
      out.insert({k, v});
    }
  }
  for (const auto* list : {&p.containers, &p.init_containers}) {
    for (const auto& c : *list) out.insert({c.name, c.image});
  }
  for (const auto& v : ca.local_volumes) out.insert(v);
  out.insert(ca.controller_name);
}

bool generated(const std::string& s) {
  // Pseudonyms, numbered container and volume names, amounts.
  static const std::regex kGenerated("(pod|ns|owner)-[0-9a-f]{16}|[cv][0-9]+|-?[0-9]+m?");
  return std::regex_match(s, kGenerated);
}

struct Replay {
  daemon::ClusterCache cache;
  std::map<std::string, autoscaler::CaPod> unslimmed;  // as decoded, by key
  std::map<std::string, std::string> assumed;          // key -> node

  void line(std::string_view text) {
    if (text.empty()) return;
    const char op = text[0];
    text.remove_prefix(1);
    if (op == 'A' || op == 'F') {
      const auto space = text.find(' ');
      const std::string key(text.substr(0, space));
      if (!cache.pod(key)) return;
      if (op == 'F') {
        cache.forget(key);
        assumed.erase(key);
        return;
      }
      if (space == std::string_view::npos || !cache.pod(key)->pending()) return;
      const std::string node(text.substr(space + 1));
      if (!cache.nodes().count(node)) return;
      const Pod& p = cache.pod(key)->pod.pod;
      cache.assume(key, node,
                   BoundPod{key, p.priority, cache.cluster().usage_of(p), "", 0,
                            std::make_shared<const PodMeta>(PodMeta{p.ns, p.labels, false}),
                            nullptr, nullptr});
      assumed[key] = node;
      return;
    }
    auto doc = parse_json(text);
    if (!doc) return;
    if (op == 'N' || op == 'n') {
      auto n = autoscaler::decode_ca_node(*doc, JsonPath("node"));
      if (!n) return;
      if (op == 'n') {
        cache.remove_node(n->node.name);
      } else {
        cache.upsert_node(std::move(*n));
      }
    } else if (op == 'P' || op == 'p') {
      autoscaler::CaPod p;
      if (!autoscaler::decode_ca_pod_into(*doc, JsonPath("pod"), p)) return;
      const std::string key = p.pod.key();
      if (op == 'p') {
        cache.remove_pod(key);
        unslimmed.erase(key);
        assumed.erase(key);
      } else {
        unslimmed[key] = p;
        daemon::slim(p);
        cache.upsert_pod(std::move(p));
      }
    }
  }
};

void same_cluster(const Cluster& a, const Cluster& b) {
  check(a.size() == b.size());
  for (NodeIndex n = 0; n < a.size(); ++n) {
    check(a.name(n) == b.name(n));
    std::multiset<std::string> pa, pb;
    for (const auto& p : a.pods_on(n)) pa.insert(p.key);
    for (const auto& p : b.pods_on(n)) pb.insert(p.key);
    check(pa == pb);
    check(a.req_cpu()[n] == b.req_cpu()[n] && a.req_memory()[n] == b.req_memory()[n]);
    check(a.pod_count()[n] == b.pod_count()[n]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Replay r;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    r.line(text.substr(start, nl - start));
    start = nl + 1;
  }
  Cluster& kept = r.cache.cluster();

  // Built again from the same records.
  daemon::ClusterCache fresh;
  std::vector<autoscaler::CaNode> nodes;
  for (const auto& [name, n] : r.cache.nodes()) nodes.push_back(n);
  fresh.replace_nodes(std::move(nodes));
  std::vector<autoscaler::CaPod> pods;
  for (const auto& [key, rec] : r.cache.pods()) pods.push_back(rec.pod);
  fresh.replace_pods(std::move(pods));
  for (const auto& [key, rec] : r.cache.pods()) {
    if (!rec.assumed_node.empty() && rec.pending() && fresh.nodes().count(rec.assumed_node)) {
      const Pod& p = rec.pod.pod;
      fresh.assume(key, rec.assumed_node,
                   BoundPod{key, p.priority, fresh.cluster().usage_of(p), "", 0,
                            std::make_shared<const PodMeta>(PodMeta{p.ns, p.labels, false}),
                            nullptr, nullptr});
    }
  }
  same_cluster(kept, fresh.cluster());

  // Redaction.
  const json::value snapshot = daemon::redacted_snapshot(r.cache, json::value(nullptr),
                                                         std::nullopt, json::array(), 20261202);
  std::set<std::string> carried;
  strings_of(snapshot, carried);
  daemon::ClusterCache nodes_only;
  std::vector<autoscaler::CaNode> node_list;
  for (const auto& [name, n] : r.cache.nodes()) node_list.push_back(n);
  nodes_only.replace_nodes(std::move(node_list));
  std::set<std::string> allowed;
  strings_of(
      daemon::redacted_snapshot(nodes_only, json::value(nullptr), std::nullopt, json::array(), 1),
      allowed);
  for (const char* word : {"ownerReferences",
                           "uid",
                           "controller",
                           "nodeName",
                           "priority",
                           "containers",
                           "initContainers",
                           "overhead",
                           "resources",
                           "requests",
                           "limits",
                           "tolerations",
                           "key",
                           "operator",
                           "value",
                           "effect",
                           "tolerationSeconds",
                           "nodeSelector",
                           "volumes",
                           "emptyDir",
                           "ports",
                           "containerPort",
                           "hostPort",
                           "protocol",
                           "hostIP",
                           "restartPolicy",
                           "Always",
                           "annotations",
                           "namespace",
                           "kube-system",
                           "mirror",
                           "kubernetes.io/config.mirror",
                           "Pod",
                           "Running",
                           "phase",
                           ""}) {
    allowed.insert(word);
  }
  for (const auto& [key, rec] : r.cache.pods()) {
    publishable(rec.pod.pod, allowed);
    allowed.insert(rec.holds());
    if (!rec.pod.controller_kind.empty()) allowed.insert(rec.pod.controller_kind);
  }
  std::set<std::string> home;
  for (const auto& [key, ca] : r.unslimmed) {
    if (r.cache.pod(key) && !r.cache.pod(key)->holds().empty()) secrets(ca, home);
  }
  for (const auto& s : home) {
    if (allowed.count(s) || generated(s)) continue;
    check(!carried.count(s));
  }
  return 0;
}
