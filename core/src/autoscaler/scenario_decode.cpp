// Decodes an autoscaler corpus scenario: Kubernetes objects through the
// engine's decoders, plus the metadata CA reads that scheduling does not
// (controller references, volumes, annotations, conditions).
#include <boost/json.hpp>

#include "json_read.hpp"
#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/timestamp.hpp"

namespace tightpack::autoscaler {

using namespace json_read;

namespace {

constexpr size_t kMaxPending = 100000;
constexpr int64_t kMaxGroupSize = 10000;

constexpr const char* kScenarioKeys[] = {"nodes",
                                         "pods",
                                         "nodeGroups",
                                         "pending",
                                         "expander",
                                         "expanderPriorities",
                                         "scaleDown",
                                         "daemonSets",
                                         "replicaSets",
                                         "statefulSets",
                                         "jobs",
                                         "replicationControllers",
                                         "podDisruptionBudgets",
                                         "options",
                                         "namespaces",
                                         "services",
                                         "persistentVolumeClaims",
                                         "persistentVolumes",
                                         "storageClasses",
                                         "csiNodes",
                                         "csiDrivers",
                                         "csiStorageCapacities"};

std::string scenario_keys() {
  std::string out;
  for (const char* k : kScenarioKeys) out += (out.empty() ? "" : ", ") + std::string(k);
  return out;
}

const json::object* child(const json::object& o, std::string_view key) {
  const json::value* v = member(o, key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

const json::array* child_array(const json::object& o, std::string_view key) {
  const json::value* v = member(o, key);
  return v && v->is_array() ? &v->get_array() : nullptr;
}

// Fields the pod decoder already type-checked, or that only explain.
void read_ca_extras(const json::object& o, CaPod& p) {
  if (p.pod.controller) {
    p.controller_kind = p.pod.controller->kind;
    p.controller_name = p.pod.controller->name;
  }
  if (const json::object* spec = child(o, "spec")) {
    if (const json::array* vols = child_array(*spec, "volumes")) {
      for (const auto& vv : *vols) {
        if (!vv.is_object()) continue;
        const json::object& vol = vv.get_object();
        // isLocalVolume: hostPath, or an emptyDir not backed by memory.
        const json::value* empty_dir = member(vol, "emptyDir");
        bool in_memory = false;
        if (empty_dir && empty_dir->is_object()) {
          const json::value* medium = member(empty_dir->get_object(), "medium");
          in_memory = medium && medium->is_string() && medium->get_string() == "Memory";
        }
        if (!member(vol, "hostPath") && (!empty_dir || in_memory)) continue;
        const json::value* name = member(vol, "name");
        p.local_volumes.push_back(name && name->is_string() ? std::string(name->get_string()) : "");
      }
    }
  }
  p.mirror = p.annotation("kubernetes.io/config.mirror") != nullptr;
  const std::string* ds = p.annotation("cluster-autoscaler.kubernetes.io/daemonset-pod");
  p.daemon_set = p.controller_kind == "DaemonSet" || (ds && *ds == "true");
}

}  // namespace

Result<CaPod> decode_ca_pod(const json::value& v, const JsonPath& path) {
  CaPod p;
  if (auto s = decode_ca_pod_into(v, path, p); !s) return s.error();
  return p;
}

Status decode_ca_pod_into(const json::value& v, const JsonPath& path, CaPod& p) {
  if (auto s = decode_pod_into(v, path, p.pod); !s) return s;
  read_ca_extras(v.get_object(), p);
  // The longterminating drainability rule adds it to the deletionTimestamp.
  if (const json::object* spec = child(v.get_object(), "spec")) {
    if (member(*spec, "terminationGracePeriodSeconds")) {
      int64_t grace = 0;
      TP_TRY(read_int(*spec, "terminationGracePeriodSeconds", path.field("spec"), grace));
      p.grace_period = grace;
    }
  }
  // The drainability rule for kube-system pods measures their age from it.
  if (const json::object* m = child(v.get_object(), "metadata")) {
    if (const json::value* ct = member(*m, "creationTimestamp")) {
      const JsonPath mp = path.field("metadata");
      const JsonPath cp = mp.field("creationTimestamp");
      if (!ct->is_string()) return type_error(cp, "an RFC 3339 time", *ct);
      p.created = rfc3339_seconds(ct->get_string());
      if (!p.created) {
        return value_error(cp, "not an RFC 3339 time: \"" + std::string(ct->get_string()) + "\"");
      }
    }
  }
  return Ok{};
}

Result<CaNode> decode_ca_node(const json::value& v, const JsonPath& path) {
  auto node = decode_node(v, path);
  if (!node) return node.error();
  CaNode n;
  n.node = std::move(*node);
  const json::object& o = v.get_object();
  if (const json::object* m = child(o, "metadata")) {
    if (const json::object* ann = child(*m, "annotations")) {
      const json::value* d = member(*ann, "cluster-autoscaler.kubernetes.io/scale-down-disabled");
      n.scale_down_disabled = d && d->is_string() && d->get_string() == "true";
    }
  }
  if (const json::object* st = child(o, "status")) {
    if (const json::array* conds = child_array(*st, "conditions")) {
      for (const auto& cv : *conds) {
        if (!cv.is_object()) continue;
        const json::value* type = member(cv.get_object(), "type");
        const json::value* status = member(cv.get_object(), "status");
        if (type && type->is_string() && type->get_string() == "Ready") {
          n.ready = status && status->is_string() && status->get_string() == "True";
        }
      }
    }
  }
  return n;
}

namespace {

Fail read_object_name(const json::value& v, const JsonPath& path, std::string& ns,
                      std::string& name) {
  const json::object* o = nullptr;
  TP_TRY(as_object(v, path, o));
  ns = "default";
  if (const json::value* mv = member(*o, "metadata")) {
    JsonPath mp = path.field("metadata");
    const json::object* m = nullptr;
    TP_TRY(as_object(*mv, mp, m));
    TP_TRY(read_string(*m, "name", mp, name));
    TP_TRY(read_string(*m, "namespace", mp, ns));
    if (ns.empty()) ns = "default";
  }
  return std::nullopt;
}

Fail read_group(const json::value& v, const JsonPath& path, NodeGroupSpec& g) {
  const json::object* o = nullptr;
  TP_TRY(as_object(v, path, o));
  TP_TRY(read_string(*o, "name", path, g.name));
  TP_TRY(read_int(*o, "minSize", path, g.min_size));
  TP_TRY(read_int(*o, "maxSize", path, g.max_size));
  if (member(*o, "targetSize")) {
    int64_t t = 0;
    TP_TRY(read_int(*o, "targetSize", path, t));
    g.target_size = t;
  }
  TP_TRY(read_string_list(*o, "nodes", path, g.nodes));
  if (const json::value* tv = member(*o, "template")) {
    auto node = decode_template_node(*tv, path.field("template"), g.name);
    if (!node) return node.error();
    g.template_node = std::move(*node);
  } else {
    g.template_node.name = "template-node-for-" + g.name;
  }
  if (const json::value* pv = member(*o, "templatePods")) {
    JsonPath pp = path.field("templatePods");
    const json::array* a = nullptr;
    TP_TRY(as_array(*pv, pp, a));
    for (size_t i = 0; i < a->size(); ++i) {
      auto pod = decode_ca_pod((*a)[i], pp.index(static_cast<int64_t>(i)));
      if (!pod) return pod.error();
      g.template_pods.push_back(std::move(*pod));
    }
  }
  // Upcoming nodes become snapshot nodes: sizes stay in a range a snapshot can hold.
  if (g.min_size < 0 || g.min_size > kMaxGroupSize) {
    return value_error(path.field("minSize"), "minSize must be in [0, 10000]");
  }
  if (g.max_size < g.min_size || g.max_size > kMaxGroupSize) {
    return value_error(path.field("maxSize"), "maxSize must be in [minSize, 10000]");
  }
  if (g.target_size && (*g.target_size < 0 || *g.target_size > kMaxGroupSize)) {
    return value_error(path.field("targetSize"), "targetSize must be in [0, 10000]");
  }
  return std::nullopt;
}

Fail read_pending(const json::array& a, const JsonPath& lp, std::vector<CaPod>& out) {
  for (size_t i = 0; i < a.size(); ++i) {
    JsonPath ip = lp.index(static_cast<int64_t>(i));
    auto pod = decode_ca_pod(a[i], ip);
    if (!pod) return pod.error();
    int64_t replicas = -1;
    TP_TRY(read_int(a[i].get_object(), "replicas", ip, replicas));
    if (replicas < -1 || replicas > static_cast<int64_t>(kMaxPending)) {
      return value_error(ip.field("replicas"),
                         "replicas " + std::to_string(replicas) + " out of range");
    }
    if (replicas == -1) {
      out.push_back(std::move(*pod));
    } else {
      for (int64_t r = 0; r < replicas; ++r) {
        CaPod copy = *pod;
        copy.pod.name = pod->pod.name + "-" + std::to_string(r);
        out.push_back(std::move(copy));
      }
    }
    if (out.size() > kMaxPending) return value_error(ip, "more than 100000 pending pods");
  }
  return std::nullopt;
}

Fail read_options(const json::object& o, const JsonPath& path, Options& opt) {
  auto number = [&](std::string_view key, double& out) -> Fail {
    const json::value* v = member(o, key);
    if (!v) return std::nullopt;
    if (v->is_double()) {
      out = v->get_double();
    } else if (v->is_int64()) {
      out = static_cast<double>(v->get_int64());
    } else {
      return type_error(path.field(key), "a number", *v);
    }
    return std::nullopt;
  };
  TP_TRY(number("scaleDownUtilizationThreshold", opt.scale_down_utilization_threshold));
  TP_TRY(number("scaleDownGpuUtilizationThreshold", opt.scale_down_gpu_utilization_threshold));
  TP_TRY(read_int(o, "expendablePodsPriorityCutoff", path, opt.expendable_pods_priority_cutoff));
  TP_TRY(read_bool(o, "skipNodesWithSystemPods", path, opt.skip_nodes_with_system_pods));
  TP_TRY(read_bool(o, "skipNodesWithLocalStorage", path, opt.skip_nodes_with_local_storage));
  TP_TRY(read_bool(o, "skipNodesWithCustomControllerPods", path,
                   opt.skip_nodes_with_custom_controller_pods));
  TP_TRY(read_int(o, "maxLoops", path, opt.max_loops));
  TP_TRY(read_string(o, "gpuLabel", path, opt.gpu_label));
  if (const json::value* nv = member(o, "now")) {
    if (!nv->is_string()) return type_error(path.field("now"), "an RFC 3339 time", *nv);
    opt.now = rfc3339_seconds(nv->get_string());
    if (!opt.now) {
      return value_error(path.field("now"),
                         "not an RFC 3339 time: \"" + std::string(nv->get_string()) + "\"");
    }
  }
  TP_TRY(read_int(o, "maxNodesTotal", path, opt.max_nodes_total));
  TP_TRY(read_int(o, "maxCoresTotal", path, opt.max_cores_total));
  TP_TRY(read_int(o, "maxMemoryTotal", path, opt.max_memory_total_gib));
  if (opt.max_nodes_total < 0 || opt.max_cores_total < 0 || opt.max_memory_total_gib < 0 ||
      opt.max_memory_total_gib > (int64_t{1} << 30)) {
    return value_error(path,
                       "cluster limits must be non-negative (maxMemoryTotal at most 2^30 GiB)");
  }
  return std::nullopt;
}

}  // namespace

const std::string* CaPod::annotation(std::string_view key) const {
  for (const auto& [k, v] : pod.annotations) {
    if (k == key) return &v;
  }
  return nullptr;
}

Result<Node> decode_template_node(const json::value& v, const JsonPath& path,
                                  const std::string& group) {
  const json::object* to = nullptr;
  if (auto fail = as_object(v, path, to)) return *fail;
  // A template need not be named; the decoder wants a name.
  json::value named = v;
  json::object& meta = named.as_object()["metadata"].emplace_object();
  if (const json::object* m = child(*to, "metadata")) meta = *m;
  if (!meta.contains("name")) meta["name"] = "template-node-for-" + group;
  return decode_node(named, path);
}

Result<DaemonSetSpec> decode_daemon_set(const json::value& v, const JsonPath& p) {
  DaemonSetSpec ds;
  if (auto fail = read_object_name(v, p, ds.ns, ds.name)) return *fail;
  const json::object* spec = child(v.get_object(), "spec");
  const json::value* tmpl = spec ? member(*spec, "template") : nullptr;
  if (tmpl && tmpl->is_object()) {
    JsonPath specp = p.field("spec");
    auto pod = decode_pod(*tmpl, specp.field("template"));
    if (!pod) return pod.error();
    ds.pod_template = std::move(*pod);
  }
  ds.pod_template.ns = ds.ns;
  ds.pod_template.name = ds.name;
  return ds;
}

Result<PdbSpec> decode_pdb(const json::value& v, const JsonPath& p) {
  PdbSpec pdb;
  std::string name;
  if (auto fail = read_object_name(v, p, pdb.ns, name)) return *fail;
  const json::object& po = v.get_object();
  if (const json::object* spec = child(po, "spec")) {
    if (const json::value* sel = member(*spec, "selector")) {
      JsonPath specp = p.field("spec");
      if (auto fail =
              decode_label_selector(*sel, specp.field("selector"), pdb.selector.emplace())) {
        return *fail;
      }
    }
  }
  if (const json::object* st = child(po, "status")) {
    JsonPath stp = p.field("status");
    if (auto fail = read_int(*st, "disruptionsAllowed", stp, pdb.disruptions_allowed)) return *fail;
  }
  return pdb;
}

Result<std::pair<std::string, std::string>> decode_object_name(const json::value& v,
                                                               const JsonPath& path) {
  std::pair<std::string, std::string> out;
  if (auto fail = read_object_name(v, path, out.first, out.second)) return *fail;
  return out;
}

// Longer than .clang-tidy allows: a decoder, a branch per field.
// NOLINTNEXTLINE(readability-function-size)
Result<AutoscaleScenario> decode_autoscale_scenario(const json::value& doc) {
  AutoscaleScenario s;
  auto run = [&]() -> Fail {
    const json::object* o = nullptr;
    TP_TRY(as_object(doc, JsonPath(), o));
    JsonPath root;
    JsonPath scenario_path = root.field("scenario");
    const json::object* sc = o;
    const JsonPath* sp = &root;
    if (const json::value* inner = member(*o, "scenario")) {
      TP_TRY(as_object(*inner, scenario_path, sc));
      sp = &scenario_path;
    }
    // A misspelt key must not quietly drop what it holds.
    for (const auto& kv : *sc) {
      const std::string_view key = kv.key();
      bool known =
          sc == o && (key == "expected" || key == "meta");  // a corpus line without "scenario"
      for (const char* k : kScenarioKeys) known = known || key == k;
      if (!known) {
        return value_error(sp->field(key), "unknown scenario key " + quote_value(key) + " (" +
                                               scenario_keys() + ")");
      }
    }
    auto each = [&](std::string_view key, auto&& fn) -> Fail {
      const json::value* v = member(*sc, key);
      if (!v) return std::nullopt;
      JsonPath lp = sp->field(key);
      const json::array* a = nullptr;
      TP_TRY(as_array(*v, lp, a));
      for (size_t i = 0; i < a->size(); ++i) TP_TRY(fn((*a)[i], lp.index(static_cast<int64_t>(i))));
      return std::nullopt;
    };
    TP_TRY(each("nodes", [&](const json::value& v, const JsonPath& p) -> Fail {
      auto n = decode_ca_node(v, p);
      if (!n) return n.error();
      s.nodes.push_back(std::move(*n));
      return std::nullopt;
    }));
    TP_TRY(each("pods", [&](const json::value& v, const JsonPath& p) -> Fail {
      auto pod = decode_ca_pod(v, p);
      if (!pod) return pod.error();
      s.pods.push_back(std::move(*pod));
      return std::nullopt;
    }));
    TP_TRY(each("nodeGroups", [&](const json::value& v, const JsonPath& p) -> Fail {
      NodeGroupSpec g;
      TP_TRY(read_group(v, p, g));
      s.groups.push_back(std::move(g));
      return std::nullopt;
    }));
    if (const json::value* pv = member(*sc, "pending")) {
      JsonPath pp = sp->field("pending");
      const json::array* a = nullptr;
      TP_TRY(as_array(*pv, pp, a));
      TP_TRY(read_pending(*a, pp, s.pending));
    }
    std::string expander = "random";
    TP_TRY(read_string(*sc, "expander", *sp, expander));
    s.expanders.clear();
    size_t start = 0;
    while (start <= expander.size()) {
      size_t comma = expander.find(',', start);
      if (comma == std::string::npos) comma = expander.size();
      std::string name = expander.substr(start, comma - start);
      if (name != "random" && name != "least-waste" && name != "most-pods" && name != "priority") {
        return value_error(sp->field("expander"),
                           "unknown expander " + quote_value(name) +
                               " (random, least-waste, most-pods, priority)");
      }
      s.expanders.push_back(name);
      start = comma + 1;
    }
    if (const json::value* pv = member(*sc, "expanderPriorities")) {
      JsonPath pp = sp->field("expanderPriorities");
      const json::object* po = nullptr;
      TP_TRY(as_object(*pv, pp, po));
      for (const auto& kv : *po) {
        JsonPath kp = pp.field(kv.key());
        int64_t prio = 0;
        std::string_view key = kv.key();
        bool digits = !key.empty() && key.size() < 18;
        for (size_t i = 0; i < key.size() && digits; ++i) {
          digits = (key[i] >= '0' && key[i] <= '9') || (i == 0 && key[i] == '-' && key.size() > 1);
        }
        if (!digits) return value_error(kp, "a priority must be an integer");
        prio = std::stoll(std::string(key));
        if (kv.value().is_null()) return type_error(kp, "an array", kv.value());
        std::vector<std::string> res;
        TP_TRY(read_string_list(*po, kv.key(), pp, res));
        s.priorities.emplace_back(prio, std::move(res));
      }
    }
    TP_TRY(read_bool(*sc, "scaleDown", *sp, s.scale_down));
    TP_TRY(each("daemonSets", [&](const json::value& v, const JsonPath& p) -> Fail {
      auto ds = decode_daemon_set(v, p);
      if (!ds) return ds.error();
      s.controllers.insert("DaemonSet/" + ds->ns + "/" + ds->name);
      s.daemon_sets.push_back(std::move(*ds));
      return std::nullopt;
    }));
    for (auto [key, kind] :
         {std::pair{"replicaSets", "ReplicaSet"}, std::pair{"statefulSets", "StatefulSet"},
          std::pair{"jobs", "Job"}, std::pair{"replicationControllers", "ReplicationController"}}) {
      const char* k = kind;
      TP_TRY(each(key, [&](const json::value& v, const JsonPath& p) -> Fail {
        std::string ns, name;
        TP_TRY(read_object_name(v, p, ns, name));
        s.controllers.insert(std::string(k) + "/" + ns + "/" + name);
        return std::nullopt;
      }));
    }
    // A scenario lacks what it does not list, as a scheduling scenario does.
    s.objects.storage_listed = true;
    s.objects.namespaces_listed = true;
    // CA's framework handle reads them through the same informers kube-scheduler does.
    for (const auto& [key, kind] : kScenarioObjectKeys) {
      const std::string_view k = kind;
      TP_TRY(each(key, [&](const json::value& v, const JsonPath& p) -> Fail {
        bool decoded = false;
        if (auto st = decode_api_object(k, v, p, s.objects, decoded); !st) return st.error();
        if (!decoded) return value_error(p, "not a " + std::string(k));
        return std::nullopt;
      }));
    }
    TP_TRY(each("podDisruptionBudgets", [&](const json::value& v, const JsonPath& p) -> Fail {
      auto pdb = decode_pdb(v, p);
      if (!pdb) return pdb.error();
      s.pdbs.push_back(std::move(*pdb));
      return std::nullopt;
    }));
    if (const json::value* ov = member(*sc, "options")) {
      JsonPath op = sp->field("options");
      const json::object* oo = nullptr;
      TP_TRY(as_object(*ov, op, oo));
      TP_TRY(read_options(*oo, op, s.options));
    }
    if (s.options.max_loops < 1 || s.options.max_loops > 100) {
      const JsonPath op = sp->field("options");
      return value_error(op.field("maxLoops"), "maxLoops must be in [1, 100]");
    }
    return std::nullopt;
  };
  if (auto fail = run()) return *fail;
  return s;
}

}  // namespace tightpack::autoscaler
