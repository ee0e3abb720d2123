// The NodePools document. Strict where the scenario decoders are lenient: it
// is written by hand, and a misspelt key would silently change an answer.
#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdio>

#include "json_read.hpp"
#include "tightpack/pools/pools.hpp"

namespace tightpack::pools {

using namespace json_read;

namespace {

constexpr int64_t kMaxPoolSize = 10000;  // upcoming nodes become snapshot nodes

// A number as the user would have written it, for error messages.
std::string number_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

Fail read_number(const json::object& o, std::string_view key, const JsonPath& path, double& out) {
  const json::value* v = member(o, key);
  if (!v) return std::nullopt;
  if (v->is_double()) {
    out = v->get_double();
  } else if (v->is_int64()) {
    out = static_cast<double>(v->get_int64());
  } else if (v->is_string()) {
    // YAML keeps floats as strings (see the CLI's YAML reader): a number in text.
    const std::string text(v->get_string());
    char* end = nullptr;
    out = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(out)) {
      return value_error(path.field(key), "expected a number, got " + quote_value(text));
    }
  } else {
    return type_error(path.field(key), "a number", *v);
  }
  if (!std::isfinite(out)) return value_error(path.field(key), "expected a finite number");
  return std::nullopt;
}

Fail read_duration(const json::object& o, std::string_view key, const JsonPath& path,
                   int64_t& seconds) {
  const json::value* v = member(o, key);
  if (!v) return std::nullopt;
  if (!v->is_string()) return type_error(path.field(key), "a duration string such as \"10m\"", *v);
  auto d = parse_duration(v->get_string());
  if (!d) return value_error(path.field(key), d.error().message);
  seconds = *d;
  return std::nullopt;
}

// `template` as a v1 Node, or the shorthand {labels, taints, allocatable,
// capacity} turned into one, so that the one node decoder reads both.
Result<Node> read_template(const json::value& v, const JsonPath& path, const std::string& pool) {
  const json::object* o = nullptr;
  if (auto fail = as_object(v, path, o)) return *fail;
  const bool v1_node = o->contains("metadata") || o->contains("spec") || o->contains("status") ||
                       o->contains("kind") || o->contains("apiVersion");
  if (v1_node) return autoscaler::decode_template_node(v, path, pool);
  if (auto fail = only_known(*o, path, {"labels", "taints", "allocatable", "capacity"}))
    return *fail;
  json::object node{
      {"metadata", json::object{}}, {"spec", json::object{}}, {"status", json::object{}}};
  if (const json::value* l = member(*o, "labels")) node["metadata"].as_object()["labels"] = *l;
  if (const json::value* t = member(*o, "taints")) node["spec"].as_object()["taints"] = *t;
  for (const char* k : {"allocatable", "capacity"}) {
    if (const json::value* r = member(*o, k)) node["status"].as_object()[k] = *r;
  }
  // Paths in errors should point at the shorthand the user wrote.
  auto decoded = autoscaler::decode_template_node(json::value(std::move(node)), JsonPath(), pool);
  if (!decoded) {
    std::string inner = decoded.error().path;  // "$.metadata.labels.x" and the like
    for (const char* prefix : {"$.metadata.", "$.spec.", "$.status."}) {
      if (inner.rfind(prefix, 0) == 0) {
        inner = inner.substr(std::string_view(prefix).size());
        break;
      }
    }
    return Error{path.str() + "." + inner, decoded.error().message};
  }
  return decoded;
}

Fail read_pool(const json::value& v, const JsonPath& path, NodePool& p) {
  const json::object* o = nullptr;
  TP_TRY(as_object(v, path, o));
  TP_TRY(only_known(*o, path,
                    {"name", "nodeLabels", "template", "templatePods", "minSize", "maxSize",
                     "provisioningTime", "pricePerHour", "preemptible"}));
  TP_TRY(read_string(*o, "name", path, p.name));
  if (p.name.empty()) return value_error(path.field("name"), "a pool needs a name");
  TP_TRY(read_string_map(*o, "nodeLabels", path, p.node_labels));
  if (const json::value* t = member(*o, "template")) {
    auto node = read_template(*t, path.field("template"), p.name);
    if (!node) return node.error();
    p.template_node = std::move(*node);
    // least-waste divides by capacity: a template that gives only
    // allocatable means it as the node's size.
    if (p.template_node->capacity.empty()) p.template_node->capacity = p.template_node->allocatable;
  }
  if (const json::value* tp = member(*o, "templatePods")) {
    JsonPath pp = path.field("templatePods");
    const json::array* a = nullptr;
    TP_TRY(as_array(*tp, pp, a));
    for (size_t i = 0; i < a->size(); ++i) {
      auto pod = autoscaler::decode_ca_pod((*a)[i], pp.index(static_cast<int64_t>(i)));
      if (!pod) return pod.error();
      p.template_pods.push_back(std::move(*pod));
    }
  }
  TP_TRY(read_int(*o, "minSize", path, p.min_size));
  if (member(*o, "maxSize")) {
    int64_t max = 0;
    TP_TRY(read_int(*o, "maxSize", path, max));
    p.max_size = max;
  }
  if (p.min_size < 0 || p.min_size > kMaxPoolSize) {
    return value_error(path.field("minSize"),
                       "minSize " + std::to_string(p.min_size) + " is not in [0, 10000]");
  }
  if (p.max_size && (*p.max_size < p.min_size || *p.max_size > kMaxPoolSize)) {
    return value_error(path.field("maxSize"),
                       "maxSize " + std::to_string(*p.max_size) + " is not in [minSize, 10000]");
  }
  const bool gpu = p.template_node &&
                   std::any_of(p.template_node->allocatable.begin(),
                               p.template_node->allocatable.end(), [](const auto& r) {
                                 return r.first.find("gpu") != std::string::npos && r.second > 0;
                               });
  p.provisioning_seconds = gpu ? kDefaultGpuProvisioningSeconds : kDefaultProvisioningSeconds;
  TP_TRY(read_duration(*o, "provisioningTime", path, p.provisioning_seconds));
  p.provisioning_time_given = member(*o, "provisioningTime") != nullptr;
  if (member(*o, "pricePerHour")) {
    double price = 0;
    TP_TRY(read_number(*o, "pricePerHour", path, price));
    if (price < 0) {
      return value_error(path.field("pricePerHour"),
                         "pricePerHour " + number_text(price) + " must not be negative");
    }
    p.price_per_hour = price;
  }
  TP_TRY(read_bool(*o, "preemptible", path, p.preemptible));
  return std::nullopt;
}

Fail read_autoscaler(const json::value& v, const JsonPath& path, PoolsConfig& c) {
  const json::object* o = nullptr;
  TP_TRY(as_object(v, path, o));
  TP_TRY(only_known(
      *o, path,
      {"scaleDownUtilizationThreshold", "scaleDownGpuUtilizationThreshold", "scaleDownUnneededTime",
       "skipNodesWithSystemPods", "skipNodesWithLocalStorage", "skipNodesWithCustomControllerPods",
       "expendablePodsPriorityCutoff", "maxNodesTotal", "gpuLabel"}));
  autoscaler::Options& opt = c.options;
  TP_TRY(
      read_number(*o, "scaleDownUtilizationThreshold", path, opt.scale_down_utilization_threshold));
  TP_TRY(read_number(*o, "scaleDownGpuUtilizationThreshold", path,
                     opt.scale_down_gpu_utilization_threshold));
  for (auto [key, value] :
       {std::pair{"scaleDownUtilizationThreshold", opt.scale_down_utilization_threshold},
        std::pair{"scaleDownGpuUtilizationThreshold", opt.scale_down_gpu_utilization_threshold}}) {
    if (value < 0 || value > 1) {
      return value_error(path.field(key),
                         std::string(key) + " " + number_text(value) + " is not in [0, 1]");
    }
  }
  TP_TRY(read_duration(*o, "scaleDownUnneededTime", path, c.scale_down_unneeded_seconds));
  TP_TRY(read_bool(*o, "skipNodesWithSystemPods", path, opt.skip_nodes_with_system_pods));
  TP_TRY(read_bool(*o, "skipNodesWithLocalStorage", path, opt.skip_nodes_with_local_storage));
  TP_TRY(read_bool(*o, "skipNodesWithCustomControllerPods", path,
                   opt.skip_nodes_with_custom_controller_pods));
  TP_TRY(read_int(*o, "expendablePodsPriorityCutoff", path, opt.expendable_pods_priority_cutoff));
  TP_TRY(read_int(*o, "maxNodesTotal", path, opt.max_nodes_total));
  if (opt.max_nodes_total < 0) {
    return value_error(
        path.field("maxNodesTotal"),
        "maxNodesTotal " + std::to_string(opt.max_nodes_total) + " must not be negative");
  }
  TP_TRY(read_string(*o, "gpuLabel", path, opt.gpu_label));
  return std::nullopt;
}

Fail read_priorities(const json::value& v, const JsonPath& path, autoscaler::Priorities& out) {
  const json::object* o = nullptr;
  TP_TRY(as_object(v, path, o));
  for (const auto& kv : *o) {
    JsonPath kp = path.field(kv.key());
    const std::string key(kv.key());
    char* end = nullptr;
    const long long prio = std::strtoll(key.c_str(), &end, 10);
    if (key.empty() || end != key.c_str() + key.size() || key.size() > 18) {
      return value_error(kp, "a priority must be an integer, not " + quote_value(key));
    }
    std::vector<std::string> patterns;
    if (kv.value().is_string()) {
      patterns.emplace_back(kv.value().get_string());
    } else {
      TP_TRY(read_string_list(*o, kv.key(), path, patterns));
    }
    out.emplace_back(prio, std::move(patterns));
  }
  return std::nullopt;
}

}  // namespace

bool known_expander(std::string_view name) {
  return name == "least-waste" || name == "most-pods" || name == "priority" || name == "price" ||
         name == "random";
}

Result<int64_t> parse_duration(std::string_view text) {
  // Go's time.ParseDuration, whole seconds: "0", or number+unit pairs.
  if (text == "0") return int64_t{0};
  if (text.empty()) return Error{"", "empty duration"};
  double total = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    if (i == start) {
      return Error{
          "", "invalid duration " + quote_value(text) + " (use e.g. \"90s\", \"10m\", \"1h30m\")"};
    }
    const double number = std::strtod(std::string(text.substr(start, i - start)).c_str(), nullptr);
    size_t unit_start = i;
    while (i < text.size() && !((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    const std::string_view unit = text.substr(unit_start, i - unit_start);
    double scale = 0;
    if (unit == "h")
      scale = 3600;
    else if (unit == "m")
      scale = 60;
    else if (unit == "s")
      scale = 1;
    else if (unit == "ms")
      scale = 1e-3;
    else if (unit == "us" || unit == "µs")
      scale = 1e-6;
    else if (unit == "ns")
      scale = 1e-9;
    else {
      return Error{"", "invalid duration " + quote_value(text) +
                           (unit.empty() ? std::string(": missing unit")
                                         : ": unknown unit " + quote_value(unit)) +
                           " (use h, m, s)"};
    }
    total += number * scale;
  }
  if (!(total < 1e12)) return Error{"", "duration " + quote_value(text) + " is too long"};
  return static_cast<int64_t>(total);
}

Result<PoolsConfig> decode_pools_config(const json::value& doc, const JsonPath& path) {
  PoolsConfig c;
  auto run = [&]() -> Fail {
    const json::object* o = nullptr;
    TP_TRY(as_object(doc, path, o));
    TP_TRY(only_known(*o, path,
                      {"apiVersion", "kind", "inferPools", "expander", "expanderPriorities",
                       "autoscaler", "pools"}));
    std::string api, kind;
    TP_TRY(read_string(*o, "apiVersion", path, api));
    TP_TRY(read_string(*o, "kind", path, kind));
    if (kind != kPoolsKind) {
      return value_error(path.field("kind"),
                         "expected kind " + std::string(kPoolsKind) + ", got " + quote_value(kind));
    }
    if (api != kPoolsApiVersion) {
      return value_error(
          path.field("apiVersion"),
          "expected apiVersion " + std::string(kPoolsApiVersion) + ", got " + quote_value(api));
    }
    TP_TRY(read_bool(*o, "inferPools", path, c.infer));
    if (member(*o, "expander")) {
      std::string list;
      TP_TRY(read_string(*o, "expander", path, list));
      c.expanders.clear();
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        std::string name = list.substr(start, comma - start);
        if (!known_expander(name)) {
          return value_error(path.field("expander"),
                             "unknown expander " + quote_value(name) +
                                 " (least-waste, most-pods, priority, price, random)");
        }
        c.expanders.push_back(std::move(name));
        start = comma + 1;
      }
    }
    if (const json::value* pv = member(*o, "expanderPriorities")) {
      TP_TRY(read_priorities(*pv, path.field("expanderPriorities"), c.priorities));
    }
    if (std::find(c.expanders.begin(), c.expanders.end(), "priority") != c.expanders.end() &&
        c.priorities.empty()) {
      return value_error(path.field("expanderPriorities"),
                         "the priority expander needs expanderPriorities");
    }
    if (const json::value* av = member(*o, "autoscaler")) {
      TP_TRY(read_autoscaler(*av, path.field("autoscaler"), c));
    }
    if (const json::value* pv = member(*o, "pools")) {
      JsonPath pp = path.field("pools");
      const json::array* a = nullptr;
      TP_TRY(as_array(*pv, pp, a));
      for (size_t i = 0; i < a->size(); ++i) {
        NodePool p;
        JsonPath ip = pp.index(static_cast<int64_t>(i));
        TP_TRY(read_pool((*a)[i], ip, p));
        for (const NodePool& q : c.pools) {
          if (q.name == p.name) {
            return value_error(ip.field("name"), "pool " + quote_value(p.name) + " is named twice");
          }
        }
        c.pools.push_back(std::move(p));
      }
    }
    return std::nullopt;
  };
  if (auto fail = run()) return *fail;
  return c;
}

}  // namespace tightpack::pools
