// A cluster snapshot as cluster-autoscaler sees it, and the scenario its
// rules run on.
#include <boost/json.hpp>

#include "tightpack/autoscaler/estimator.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/pools/pools.hpp"

namespace tightpack::pools {
namespace json = boost::json;

namespace {

bool is_controller_kind(std::string_view kind) {
  return kind == "DaemonSet" || kind == "ReplicaSet" || kind == "StatefulSet" || kind == "Job" ||
         kind == "ReplicationController";
}

// How many objects a List (or {"pods": [...]}) holds: an upper bound on its
// pods. A CaPod is a large object; growing the vector without a reservation
// moved every pod about twice and took a fifth of the decoding time.
size_t pods_upper_bound(const json::value& v) {
  if (!v.is_object()) return 0;
  size_t n = 0;
  for (const char* key : {"items", "pods"}) {
    if (const json::value* a = v.get_object().if_contains(key); a && a->is_array())
      n += a->get_array().size();
  }
  return n;
}

}  // namespace

Result<ClusterSnapshot> decode_cluster_snapshot(const json::value& v, const JsonPath& path) {
  ClusterSnapshot s;
  s.pods.reserve(pods_upper_bound(v));
  auto status = visit_objects(
      v, path, [&](std::string_view kind, const json::value& item, const JsonPath& p) -> Status {
        if (kind == "Node") {
          auto n = autoscaler::decode_ca_node(item, p);
          if (!n) return n.error();
          s.nodes.push_back(std::move(*n));
        } else if (kind == "Pod") {
          // Decoded where a bound pod belongs; the others move out or go.
          autoscaler::CaPod& pod = s.pods.emplace_back();
          if (auto st = autoscaler::decode_ca_pod_into(item, p, pod); !st) return st.error();
          const bool live = !pod.pod.terminated();
          const bool bound = !pod.pod.node_name.empty();
          if (live && !bound) s.pending.push_back(std::move(pod));
          if (!live || !bound) s.pods.pop_back();
        } else if (kind == "DaemonSet") {
          auto ds = autoscaler::decode_daemon_set(item, p);
          if (!ds) return ds.error();
          s.controllers.insert("DaemonSet/" + ds->ns + "/" + ds->name);
          s.listed_kinds.insert("DaemonSet");
          s.daemon_sets.push_back(std::move(*ds));
        } else if (is_controller_kind(kind)) {
          auto name = autoscaler::decode_object_name(item, p);
          if (!name) return name.error();
          s.controllers.insert(std::string(kind) + "/" + name->first + "/" + name->second);
          s.listed_kinds.insert(std::string(kind));
          bool known = false;
          if (auto st = decode_api_object(kind, item, p, s.objects, known); !st) return st;
        } else if ((kind == "Service" || kind == "Namespace" || kind == "PersistentVolumeClaim" ||
                    kind == "PersistentVolume" || kind == "StorageClass" || kind == "CSINode" ||
                    kind == "CSIDriver" || kind == "CSIStorageCapacity") &&
                   &item != &v) {
          bool known = false;
          if (auto st = decode_api_object(kind, item, p, s.objects, known); !st) return st;
        } else if (kind == "PodDisruptionBudget") {
          auto pdb = autoscaler::decode_pdb(item, p);
          if (!pdb) return pdb.error();
          s.pdbs.push_back(std::move(*pdb));
        } else if (&item == &v) {
          return Error{p.field("kind").str(),
                       "expected a List or a Node, Pod, DaemonSet or PodDisruptionBudget, got " +
                           quote_value(kind)};
        }
        return Ok{};
      });
  if (!status) return status.error();
  return s;
}

autoscaler::AutoscaleScenario autoscale_scenario(const ClusterSnapshot& snapshot,
                                                 const ResolvedPools& pools,
                                                 const PoolsConfig& config) {
  autoscaler::AutoscaleScenario s = autoscale_scenario_without_pods(snapshot, pools, config);
  s.pods = snapshot.pods;
  return s;
}

autoscaler::AutoscaleScenario autoscale_scenario_without_pods(const ClusterSnapshot& snapshot,
                                                              const ResolvedPools& pools,
                                                              const PoolsConfig& config) {
  autoscaler::AutoscaleScenario s;
  s.nodes = snapshot.nodes;
  s.daemon_sets = snapshot.daemon_sets;
  s.pdbs = snapshot.pdbs;
  s.controllers = snapshot.controllers;
  s.objects = snapshot.objects;  // what the framework's listers serve, as for scheduling
  // Controllers of kinds the snapshot did not list are taken to exist.
  for (const autoscaler::CaPod& p : snapshot.pods) {
    if (is_controller_kind(p.controller_kind) &&
        !snapshot.listed_kinds.contains(p.controller_kind)) {
      s.controllers.insert(p.controller_kind + "/" + p.pod.ns + "/" + p.controller_name);
    }
  }
  for (const NodePool& p : pools.pools) {
    if (p.nodes.empty() && !p.template_node) continue;  // cannot grow (noted by resolve_pools)
    autoscaler::NodeGroupSpec g;
    g.name = p.name;
    g.min_size = p.min_size;
    const auto size = static_cast<int64_t>(p.nodes.size());
    g.max_size =
        p.max_size.value_or(std::min<int64_t>(size + autoscaler::kMaxNodesPerScaleUp, 10000));
    g.max_size = std::max(g.max_size, g.min_size);
    g.nodes = p.nodes;
    if (p.template_node) {
      g.template_node = *p.template_node;
    } else {
      g.template_node.name = "template-node-for-" + p.name;
    }
    g.template_pods = p.template_pods;
    if (p.price_per_hour) s.prices[p.name] = *p.price_per_hour;
    s.groups.push_back(std::move(g));
  }
  s.expanders = config.expanders;
  s.priorities = config.priorities;
  s.options = config.options;
  s.scale_down = false;
  return s;
}

}  // namespace tightpack::pools
