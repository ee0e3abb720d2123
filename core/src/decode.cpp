#include "tightpack/decode.hpp"

#include <algorithm>
#include <iterator>

#include "decode_detail.hpp"
#include "json_read.hpp"
#include "tightpack/labels.hpp"
#include "tightpack/quantity.hpp"

namespace tightpack {

using namespace json_read;

Result<json::value> parse_json(std::string_view text) {
  json::parse_options opts;
  opts.max_depth = 128;
  json::stream_parser parser({}, opts);
  boost::system::error_code ec;
  // A document is decoded once and dropped whole: an arena makes both the
  // many small allocations of a 150,000-pod snapshot and the teardown cheap.
  parser.reset(json::make_shared_resource<json::monotonic_resource>());
  parser.write(text.data(), text.size(), ec);
  if (!ec) parser.finish(ec);
  if (!ec) return parser.release();
  // Locate the failure as a line and column for the person who wrote the file.
  json::stream_parser probe({}, opts);
  boost::system::error_code ignored;
  size_t consumed = probe.write_some(text.data(), text.size(), ignored);
  size_t line = 1, col = 1;
  for (size_t i = 0; i < consumed; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  std::string where = text.empty()
                          ? "empty input"
                          : "line " + std::to_string(line) + " column " + std::to_string(col);
  return Error{"", "invalid JSON at " + where + ": " + ec.message()};
}

namespace {

// Quantity.UnmarshalJSON: strings.TrimSpace of a string, or a bare number's text.
Result<std::string> quantity_text(const json::value& v, std::string_view& trimmed) {
  if (v.is_string()) {
    constexpr const char* kSpace = " \t\n\v\f\r";
    std::string_view s = v.get_string();
    const size_t first = s.find_first_not_of(kSpace);
    trimmed = first == std::string_view::npos
                  ? std::string_view()
                  : s.substr(first, s.find_last_not_of(kSpace) - first + 1);
    return std::string();
  }
  if (v.is_int64() || v.is_uint64() || v.is_double()) {
    return json::serialize(v);  // Quantity also unmarshals bare JSON numbers
  }
  return Error{"", std::string("expected a quantity, got ") + kind_name(v)};
}

}  // namespace

Result<Quantity> resource_quantity(const json::value& v) {
  std::string_view trimmed;
  auto text = quantity_text(v, trimmed);
  if (!text) return text.error();
  return Quantity::parse(v.is_string() ? trimmed : std::string_view(*text));
}

Result<int64_t> resource_amount(std::string_view resource, const json::value& v, bool* whole) {
  const int32_t shift = resource == "cpu" ? 3 : 0;
  std::string_view trimmed;
  auto text = quantity_text(v, trimmed);
  if (!text) return text.error();
  if (v.is_string()) {
    if (!trimmed.empty()) {
      if (auto fast = Quantity::fast_scaled(trimmed, shift, whole)) return *fast;
    }
    *text = std::string(trimmed);
  }
  auto q = Quantity::parse(*text);
  if (!q) return q.error();
  if (q->negative()) return Error{"", "quantity " + quote_value(*text) + " must not be negative"};
  if (whole) *whole = q->whole_in(shift);
  return shift == 3 ? q->milli_value() : q->value();
}

namespace {

constexpr std::string_view kMetadataNameLabel = "kubernetes.io/metadata.name";

// `whole` turns false when an amount is not whole (resource_amount).
Fail read_resources(const json::object& o, std::string_view key, const JsonPath& path,
                    ResourceList& out, bool* whole = nullptr) {
  const json::value* v = member(o, key);
  if (!v) return std::nullopt;
  JsonPath p = path.field(key);
  const json::object* m = nullptr;
  TP_TRY(as_object(*v, p, m));
  out.clear();
  for (const auto& kv : *m) {
    bool w = true;
    auto amount = resource_amount(kv.key(), kv.value(), whole ? &w : nullptr);
    if (!amount) return Error{p.field(kv.key()).str(), amount.error().message};
    if (whole && !w) *whole = false;
    out.emplace_back(std::string(kv.key()), *amount);
  }
  std::sort(out.begin(), out.end());
  return std::nullopt;
}

// API defaulting (SetDefaults_ResourceRequirements): a limit without a request
// makes the request equal to the limit.
void default_requests_from_limits(ResourceList& requests, const ResourceList& limits) {
  for (const auto& [name, value] : limits) {
    if (!find_resource(requests, name)) set_resource(requests, name, value);
  }
}

Fail read_resource_requirements(const json::object& o, const JsonPath& path, ResourceList& requests,
                                ResourceList& limits, bool& whole) {
  const json::value* v = member(o, "resources");
  if (!v) return std::nullopt;
  JsonPath p = path.field("resources");
  const json::object* r = nullptr;
  TP_TRY(as_object(*v, p, r));
  TP_TRY(read_resources(*r, "requests", p, requests, &whole));
  TP_TRY(read_resources(*r, "limits", p, limits, &whole));
  default_requests_from_limits(requests, limits);
  return std::nullopt;
}

Fail read_container(const json::value& v, const JsonPath& path, Container& c, bool& whole) {
  const json::object* o = nullptr;
  TP_TRY(as_object(v, path, o));
  TP_TRY(read_string(*o, "name", path, c.name));
  TP_TRY(read_string(*o, "image", path, c.image));
  TP_TRY(read_resource_requirements(*o, path, c.requests, c.limits, whole));
  std::string restart_policy;
  TP_TRY(read_string(*o, "restartPolicy", path, restart_policy));
  c.restart_always = restart_policy == "Always";
  if (const json::value* ports = member(*o, "ports")) {
    JsonPath pp = path.field("ports");
    const json::array* a = nullptr;
    TP_TRY(as_array(*ports, pp, a));
    for (size_t i = 0; i < a->size(); ++i) {
      JsonPath ip = pp.index(static_cast<int64_t>(i));
      const json::object* po = nullptr;
      TP_TRY(as_object((*a)[i], ip, po));
      ContainerPort port;
      TP_TRY(read_int(*po, "containerPort", ip, port.container_port));
      TP_TRY(read_int(*po, "hostPort", ip, port.host_port));
      TP_TRY(read_string(*po, "protocol", ip, port.protocol));
      TP_TRY(read_string(*po, "hostIP", ip, port.host_ip));
      c.ports.push_back(std::move(port));
    }
  }
  return std::nullopt;
}

Fail read_containers(const json::object& o, std::string_view key, const JsonPath& path,
                     std::vector<Container>& out, bool& whole) {
  const json::value* v = member(o, key);
  if (!v) return std::nullopt;
  JsonPath p = path.field(key);
  const json::array* a = nullptr;
  TP_TRY(as_array(*v, p, a));
  out.resize(a->size());
  for (size_t i = 0; i < a->size(); ++i) {
    TP_TRY(read_container((*a)[i], p.index(static_cast<int64_t>(i)), out[i], whole));
  }
  return std::nullopt;
}

// Appends the amounts of a resource list as ParseQuantity gives them, but for
// resources `out` already names. Only called after read_resources has read
// the same list, so every amount parses.
void add_go_quantities(const json::value* list, QuantityList& out) {
  if (!list || !list->is_object()) return;
  for (const auto& kv : list->get_object()) {
    const bool have =
        std::any_of(out.begin(), out.end(), [&](const auto& e) { return e.first == kv.key(); });
    if (have) continue;  // a request wins over its limit
    if (auto q = resource_quantity(kv.value())) out.emplace_back(std::string(kv.key()), *q);
  }
}

void sort_by_name(QuantityList& list) {
  std::sort(list.begin(), list.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
}

// A resources object's requests, defaulted from its limits as the API server
// does.
QuantityList go_requests_of(const json::object* resources) {
  QuantityList out;
  if (!resources) return out;
  for (const char* key : {"requests", "limits"}) add_go_quantities(member(*resources, key), out);
  sort_by_name(out);
  return out;
}

const json::object* resources_of(const json::object& holder) {
  const json::value* r = member(holder, "resources");
  return r && r->is_object() ? &r->get_object() : nullptr;
}

std::vector<QuantityList> go_container_requests(const json::object& spec, std::string_view key) {
  std::vector<QuantityList> out;
  const json::value* v = member(spec, key);
  if (!v || !v->is_array()) return out;
  for (const json::value& c : v->get_array())
    out.push_back(go_requests_of(c.is_object() ? resources_of(c.get_object()) : nullptr));
  return out;
}

GoRequestsRef go_requests(const json::object& spec) {
  auto r = std::make_shared<GoRequests>();
  r->containers = go_container_requests(spec, "containers");
  r->init_containers = go_container_requests(spec, "initContainers");
  add_go_quantities(member(spec, "overhead"), r->overhead);
  sort_by_name(r->overhead);
  r->pod_requests = go_requests_of(resources_of(spec));
  return GoRequestsRef{std::move(r)};
}

Fail read_requirements(const json::object& o, std::string_view key, const JsonPath& path,
                       std::vector<NodeSelectorRequirement>& out) {
  const json::value* v = member(o, key);
  if (!v) return std::nullopt;
  JsonPath p = path.field(key);
  const json::array* a = nullptr;
  TP_TRY(as_array(*v, p, a));
  for (size_t i = 0; i < a->size(); ++i) {
    JsonPath ip = p.index(static_cast<int64_t>(i));
    const json::object* ro = nullptr;
    TP_TRY(as_object((*a)[i], ip, ro));
    NodeSelectorRequirement r;
    TP_TRY(read_string(*ro, "key", ip, r.key));
    TP_TRY(read_string(*ro, "operator", ip, r.op));
    TP_TRY(read_string_list(*ro, "values", ip, r.values));
    out.push_back(std::move(r));
  }
  return std::nullopt;
}

Fail read_term(const json::value& v, const JsonPath& path, NodeSelectorTerm& term) {
  const json::object* o = nullptr;
  TP_TRY(as_object(v, path, o));
  TP_TRY(read_requirements(*o, "matchExpressions", path, term.match_expressions));
  TP_TRY(read_requirements(*o, "matchFields", path, term.match_fields));
  return std::nullopt;
}

bool non_empty_array(const json::object& o, std::string_view key) {
  const json::value* v = member(o, key);
  return v && v->is_array() && !v->get_array().empty();
}

// A v1.PodAffinityTerm, checked as kube-apiserver's validatePodAffinityTerm
// checks it: valid selectors and a topology key that is a valid label key.
// matchLabelKeys and mismatchLabelKeys are left to kube-apiserver, which
// merges them into the label selector when it stores the pod.
Fail read_pod_affinity_term(const json::object& o, const JsonPath& path, PodAffinityTerm& t) {
  if (const json::value* ls = member(o, "labelSelector")) {
    const JsonPath lp = path.field("labelSelector");
    TP_TRY(decode_label_selector(*ls, lp, t.label_selector.emplace()));
    TP_TRY(validate_label_selector(*t.label_selector, lp));
  }
  if (const json::value* ns = member(o, "namespaceSelector")) {
    const JsonPath np = path.field("namespaceSelector");
    TP_TRY(decode_label_selector(*ns, np, t.namespace_selector.emplace()));
    TP_TRY(validate_label_selector(*t.namespace_selector, np));
  }
  TP_TRY(read_string_list(o, "namespaces", path, t.namespaces));
  TP_TRY(read_string(o, "topologyKey", path, t.topology_key));
  if (t.topology_key.empty())
    return value_error(path.field("topologyKey"), "a pod affinity term needs a topology key");
  if (std::string problem = label_key_problem(t.topology_key); !problem.empty()) {
    return value_error(path.field("topologyKey"),
                       quote_value(t.topology_key) + " is not a valid label key: " + problem);
  }
  return std::nullopt;
}

Fail read_pod_affinity_terms(const json::object& o, const JsonPath& path, bool anti,
                             std::vector<PodAffinityTerm>& out) {
  if (const json::value* rv = member(o, "requiredDuringSchedulingIgnoredDuringExecution")) {
    JsonPath rp = path.field("requiredDuringSchedulingIgnoredDuringExecution");
    const json::array* a = nullptr;
    TP_TRY(as_array(*rv, rp, a));
    for (size_t i = 0; i < a->size(); ++i) {
      JsonPath ip = rp.index(static_cast<int64_t>(i));
      const json::object* to = nullptr;
      TP_TRY(as_object((*a)[i], ip, to));
      PodAffinityTerm t;
      t.anti = anti;
      t.required = true;
      TP_TRY(read_pod_affinity_term(*to, ip, t));
      out.push_back(std::move(t));
    }
  }
  if (const json::value* pv = member(o, "preferredDuringSchedulingIgnoredDuringExecution")) {
    JsonPath pp = path.field("preferredDuringSchedulingIgnoredDuringExecution");
    const json::array* a = nullptr;
    TP_TRY(as_array(*pv, pp, a));
    for (size_t i = 0; i < a->size(); ++i) {
      JsonPath ip = pp.index(static_cast<int64_t>(i));
      const json::object* wo = nullptr;
      TP_TRY(as_object((*a)[i], ip, wo));
      PodAffinityTerm t;
      t.anti = anti;
      TP_TRY(read_int(*wo, "weight", ip, t.weight));
      if (t.weight < 1 || t.weight > 100) {
        return value_error(ip.field("weight"),
                           std::to_string(t.weight) + " is not in the range 1-100");
      }
      if (const json::value* tv = member(*wo, "podAffinityTerm")) {
        JsonPath tp = ip.field("podAffinityTerm");
        const json::object* to = nullptr;
        TP_TRY(as_object(*tv, tp, to));
        TP_TRY(read_pod_affinity_term(*to, tp, t));
      }
      out.push_back(std::move(t));
    }
  }
  return std::nullopt;
}

Fail read_affinity(const json::object& spec, const JsonPath& path, Pod& pod) {
  const json::value* v = member(spec, "affinity");
  if (!v) return std::nullopt;
  JsonPath p = path.field("affinity");
  const json::object* aff = nullptr;
  TP_TRY(as_object(*v, p, aff));
  for (const std::string_view key : {"podAffinity", "podAntiAffinity"}) {
    if (const json::value* pa = member(*aff, key)) {
      JsonPath pap = p.field(key);
      const json::object* pao = nullptr;
      TP_TRY(as_object(*pa, pap, pao));
      TP_TRY(read_pod_affinity_terms(*pao, pap, key == std::string_view("podAntiAffinity"),
                                     pod.pod_affinity_terms));
    }
  }
  const json::value* na = member(*aff, "nodeAffinity");
  if (!na) return std::nullopt;
  JsonPath np = p.field("nodeAffinity");
  const json::object* nao = nullptr;
  TP_TRY(as_object(*na, np, nao));
  if (const json::value* req = member(*nao, "requiredDuringSchedulingIgnoredDuringExecution")) {
    JsonPath rp = np.field("requiredDuringSchedulingIgnoredDuringExecution");
    const json::object* ro = nullptr;
    TP_TRY(as_object(*req, rp, ro));
    auto& terms = pod.node_affinity.required.emplace();
    if (const json::value* tv = member(*ro, "nodeSelectorTerms")) {
      JsonPath tp = rp.field("nodeSelectorTerms");
      const json::array* ta = nullptr;
      TP_TRY(as_array(*tv, tp, ta));
      terms.resize(ta->size());
      for (size_t i = 0; i < ta->size(); ++i) {
        TP_TRY(read_term((*ta)[i], tp.index(static_cast<int64_t>(i)), terms[i]));
      }
    }
  }
  if (const json::value* pref = member(*nao, "preferredDuringSchedulingIgnoredDuringExecution")) {
    JsonPath pp = np.field("preferredDuringSchedulingIgnoredDuringExecution");
    const json::array* pa = nullptr;
    TP_TRY(as_array(*pref, pp, pa));
    for (size_t i = 0; i < pa->size(); ++i) {
      JsonPath ip = pp.index(static_cast<int64_t>(i));
      const json::object* po = nullptr;
      TP_TRY(as_object((*pa)[i], ip, po));
      PreferredSchedulingTerm t;
      TP_TRY(read_int(*po, "weight", ip, t.weight));
      if (const json::value* pv = member(*po, "preference")) {
        TP_TRY(read_term(*pv, ip.field("preference"), t.preference));
      }
      pod.node_affinity.preferred.push_back(std::move(t));
    }
  }
  return std::nullopt;
}

Fail read_tolerations(const json::object& spec, const JsonPath& path,
                      std::vector<Toleration>& out) {
  const json::value* v = member(spec, "tolerations");
  if (!v) return std::nullopt;
  JsonPath p = path.field("tolerations");
  const json::array* a = nullptr;
  TP_TRY(as_array(*v, p, a));
  for (size_t i = 0; i < a->size(); ++i) {
    JsonPath ip = p.index(static_cast<int64_t>(i));
    const json::object* o = nullptr;
    TP_TRY(as_object((*a)[i], ip, o));
    Toleration t;
    TP_TRY(read_string(*o, "key", ip, t.key));
    TP_TRY(read_string(*o, "operator", ip, t.op));
    TP_TRY(read_string(*o, "value", ip, t.value));
    TP_TRY(read_string(*o, "effect", ip, t.effect));
    if (member(*o, "tolerationSeconds")) {
      int64_t s = 0;
      TP_TRY(read_int(*o, "tolerationSeconds", ip, s));
      t.seconds = s;
    }
    out.push_back(std::move(t));
  }
  return std::nullopt;
}

// metadata.ownerReferences: the first reference with controller: true.
Fail read_controller_ref(const json::object& meta, const JsonPath& path,
                         std::optional<OwnerReference>& out) {
  const json::value* v = member(meta, "ownerReferences");
  if (!v) return std::nullopt;
  const JsonPath p = path.field("ownerReferences");
  const json::array* a = nullptr;
  TP_TRY(as_array(*v, p, a));
  for (size_t i = 0; i < a->size(); ++i) {
    const JsonPath ip = p.index(static_cast<int64_t>(i));
    const json::object* o = nullptr;
    TP_TRY(as_object((*a)[i], ip, o));
    OwnerReference ref;
    bool controller = false;
    TP_TRY(read_string(*o, "apiVersion", ip, ref.api_version));
    TP_TRY(read_string(*o, "kind", ip, ref.kind));
    TP_TRY(read_string(*o, "name", ip, ref.name));
    TP_TRY(read_string(*o, "uid", ip, ref.uid));
    TP_TRY(read_bool(*o, "controller", ip, controller));
    if (controller && !out) out = std::move(ref);
  }
  return std::nullopt;
}

// The checks ValidateTopologySpreadConstraints (a pod's) or
// ValidatePodTopologySpreadArgs (defaultConstraints) makes.
Fail check_topology_spread(const std::vector<TopologySpreadConstraint>& list, const JsonPath& path,
                           bool for_pod) {
  for (size_t i = 0; i < list.size(); ++i) {
    const TopologySpreadConstraint& c = list[i];
    const JsonPath ip = path.index(static_cast<int64_t>(i));
    if (c.max_skew <= 0) {
      return value_error(ip.field("maxSkew"),
                         "maxSkew " + std::to_string(c.max_skew) + " must be greater than zero");
    }
    if (c.topology_key.empty()) return value_error(ip.field("topologyKey"), "can not be empty");
    if (!for_pod) {
      if (std::string p = label_key_problem(c.topology_key); !p.empty()) {
        return value_error(ip.field("topologyKey"),
                           "topology key " + quote_value(c.topology_key) + " " + p);
      }
    }
    if (c.when_unsatisfiable != "DoNotSchedule" && c.when_unsatisfiable != "ScheduleAnyway") {
      return value_error(ip.field("whenUnsatisfiable"), "unsupported value " +
                                                            quote_value(c.when_unsatisfiable) +
                                                            " (DoNotSchedule, ScheduleAnyway)");
    }
    for (size_t j = 0; j < i; ++j) {
      if (list[j].topology_key == c.topology_key &&
          list[j].when_unsatisfiable == c.when_unsatisfiable) {
        return value_error(ip, "duplicate {" + c.topology_key + ", " + c.when_unsatisfiable +
                                   "} (also at index " + std::to_string(j) + ")");
      }
    }
    if (!for_pod) {
      if (c.label_selector) {
        return value_error(ip.field("labelSelector"),
                           "constraint must not define a selector, as they deduced for each pod");
      }
      continue;
    }
    if (c.min_domains) {
      if (*c.min_domains <= 0) {
        return value_error(ip.field("minDomains"), "minDomains " + std::to_string(*c.min_domains) +
                                                       " must be greater than zero");
      }
      if (c.when_unsatisfiable != "DoNotSchedule") {
        return value_error(ip.field("minDomains"),
                           "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not " +
                               c.when_unsatisfiable);
      }
    }
    for (auto [field, value] : {std::pair{"nodeAffinityPolicy", &c.node_affinity_policy},
                                std::pair{"nodeTaintsPolicy", &c.node_taints_policy}}) {
      if (!value->empty() && *value != "Honor" && *value != "Ignore") {
        return value_error(ip.field(field),
                           "unsupported value " + quote_value(*value) + " (Honor, Ignore)");
      }
    }
    const JsonPath kp = ip.field("matchLabelKeys");
    for (size_t k = 0; k < c.match_label_keys.size(); ++k) {
      if (std::string p = label_key_problem(c.match_label_keys[k]); !p.empty()) {
        return value_error(kp.index(static_cast<int64_t>(k)),
                           "label key " + quote_value(c.match_label_keys[k]) + " " + p);
      }
    }
    if (c.label_selector) {
      if (auto e = validate_label_selector(*c.label_selector, ip.field("labelSelector"))) return *e;
    }
  }
  return std::nullopt;
}

}  // namespace

namespace decode_detail {

Fail read_node_selector_term(const json::value& v, const JsonPath& path, NodeSelectorTerm& term) {
  return read_term(v, path, term);
}

Fail read_controller(const json::object& meta, const JsonPath& path,
                     std::optional<OwnerReference>& out) {
  return read_controller_ref(meta, path, out);
}

}  // namespace decode_detail

std::optional<Error> decode_label_selector(const json::value& v, const JsonPath& path,
                                           LabelSelector& out) {
  const json::object* o = nullptr;
  TP_TRY(as_object(v, path, o));
  TP_TRY(read_string_map(*o, "matchLabels", path, out.match_labels));
  std::vector<NodeSelectorRequirement> exprs;
  TP_TRY(read_requirements(*o, "matchExpressions", path, exprs));
  for (auto& e : exprs)
    out.match_expressions.push_back({std::move(e.key), std::move(e.op), std::move(e.values)});
  return std::nullopt;
}

std::optional<Error> decode_topology_spread(const json::value& v, const JsonPath& path,
                                            bool for_pod,
                                            std::vector<TopologySpreadConstraint>& out) {
  const json::array* a = nullptr;
  TP_TRY(as_array(v, path, a));
  out.clear();
  for (size_t i = 0; i < a->size(); ++i) {
    const JsonPath ip = path.index(static_cast<int64_t>(i));
    const json::object* o = nullptr;
    TP_TRY(as_object((*a)[i], ip, o));
    TopologySpreadConstraint c;
    TP_TRY(read_int(*o, "maxSkew", ip, c.max_skew));
    TP_TRY(read_string(*o, "topologyKey", ip, c.topology_key));
    TP_TRY(read_string(*o, "whenUnsatisfiable", ip, c.when_unsatisfiable));
    if (const json::value* ls = member(*o, "labelSelector")) {
      TP_TRY(decode_label_selector(*ls, ip.field("labelSelector"), c.label_selector.emplace()));
    }
    if (member(*o, "minDomains")) {
      int32_t m = 0;
      TP_TRY(read_int(*o, "minDomains", ip, m));
      c.min_domains = m;
    }
    TP_TRY(read_string(*o, "nodeAffinityPolicy", ip, c.node_affinity_policy));
    TP_TRY(read_string(*o, "nodeTaintsPolicy", ip, c.node_taints_policy));
    TP_TRY(read_string_list(*o, "matchLabelKeys", ip, c.match_label_keys));
    out.push_back(std::move(c));
  }
  return check_topology_spread(out, path, for_pod);
}

Result<Pod> decode_pod(const json::value& v, const JsonPath& path) {
  Pod pod;
  if (auto s = decode_pod_into(v, path, pod); !s) return s.error();
  return pod;
}

// Longer than .clang-tidy allows: a decoder, a branch per field.
// NOLINTNEXTLINE(readability-function-size)
Status decode_pod_into(const json::value& v, const JsonPath& path, Pod& pod) {
  const json::object* o = nullptr;
  auto run = [&]() -> Fail {
    TP_TRY(as_object(v, path, o));
    if (const json::value* mv = member(*o, "metadata")) {
      JsonPath mp = path.field("metadata");
      const json::object* m = nullptr;
      TP_TRY(as_object(*mv, mp, m));
      TP_TRY(read_string(*m, "name", mp, pod.name));
      TP_TRY(read_string(*m, "namespace", mp, pod.ns));
      if (pod.ns.empty()) pod.ns = "default";
      TP_TRY(read_string(*m, "uid", mp, pod.uid));
      TP_TRY(read_string(*m, "creationTimestamp", mp, pod.creation_timestamp));
      TP_TRY(read_string(*m, "deletionTimestamp", mp, pod.deletion_timestamp));
      Labels labels;
      TP_TRY(read_string_map(*m, "labels", mp, labels));
      pod.labels = std::move(labels);
      if (const json::value* av = member(*m, "annotations")) {
        const JsonPath ap = mp.field("annotations");
        const json::object* a = nullptr;
        TP_TRY(as_object(*av, ap, a));
        static_assert(
            std::is_sorted(std::begin(kPodAnnotationsRead), std::end(kPodAnnotationsRead)));
        for (std::string_view key : kPodAnnotationsRead) {
          const json::value* value = member(*a, key);
          if (!value) continue;
          if (!value->is_string()) return type_error(ap.field(key), "a string", *value);
          pod.annotations.emplace_back(key, value->get_string());
        }
      }
      TP_TRY(read_controller_ref(*m, mp, pod.controller));
    }
    if (const json::value* sv = member(*o, "spec")) {
      JsonPath sp = path.field("spec");
      const json::object* s = nullptr;
      TP_TRY(as_object(*sv, sp, s));
      TP_TRY(read_string(*s, "nodeName", sp, pod.node_name));
      TP_TRY(read_string(*s, "schedulerName", sp, pod.scheduler_name));
      TP_TRY(read_int(*s, "priority", sp, pod.priority));
      std::string policy;
      TP_TRY(read_string(*s, "preemptionPolicy", sp, policy));
      pod.preempt_never = policy == "Never";
      bool whole = true;
      std::vector<Container> containers, init_containers;
      TP_TRY(read_containers(*s, "containers", sp, containers, whole));
      TP_TRY(read_containers(*s, "initContainers", sp, init_containers, whole));
      pod.containers = std::move(containers);
      pod.init_containers = std::move(init_containers);
      TP_TRY(read_resources(*s, "overhead", sp, pod.overhead, &whole));
      ResourceList pod_limits;
      TP_TRY(read_resource_requirements(*s, sp, pod.pod_requests, pod_limits, whole));
      if (!whole) pod.go_requests = go_requests(*s);
      Labels node_selector;
      TP_TRY(read_string_map(*s, "nodeSelector", sp, node_selector));
      pod.node_selector = std::move(node_selector);
      std::vector<Toleration> tolerations;
      TP_TRY(read_tolerations(*s, sp, tolerations));
      pod.tolerations = std::move(tolerations);
      TP_TRY(read_affinity(*s, sp, pod));
      if (const json::value* ts = member(*s, "topologySpreadConstraints")) {
        TP_TRY(decode_topology_spread(*ts, sp.field("topologySpreadConstraints"), true,
                                      pod.topology_spread));
      }
      pod.scheduling_gated = non_empty_array(*s, "schedulingGates");
      pod.resource_claims = non_empty_array(*s, "resourceClaims");
      if (const json::value* vols = member(*s, "volumes")) {
        const json::array* va = nullptr;
        TP_TRY(as_array(*vols, sp.field("volumes"), va));
        const JsonPath vp = sp.field("volumes");
        for (size_t i = 0; i < va->size(); ++i) {
          const json::value& vol = (*va)[i];
          if (!vol.is_object()) continue;
          PodVolume volume;
          TP_TRY(decode_detail::read_pod_volume(vol.get_object(), vp.index(static_cast<int64_t>(i)),
                                                volume));
          if (volume.source != PodVolume::Source::kOther) pod.volumes.push_back(std::move(volume));
          if (const json::value* iv = member(vol.get_object(), "image")) {
            const JsonPath ep = vp.index(static_cast<int64_t>(i));
            const JsonPath ip = ep.field("image");
            const json::object* image = nullptr;
            TP_TRY(as_object(*iv, ip, image));
            std::string reference;
            TP_TRY(read_string(*image, "reference", ip, reference));
            pod.image_volumes.push_back(std::move(reference));
          }
        }
      }
    }
    if (const json::value* stv = member(*o, "status")) {
      JsonPath stp = path.field("status");
      const json::object* st = nullptr;
      TP_TRY(as_object(*stv, stp, st));
      TP_TRY(read_string(*st, "phase", stp, pod.phase));
      TP_TRY(read_string(*st, "nominatedNodeName", stp, pod.nominated_node_name));
      TP_TRY(read_string(*st, "startTime", stp, pod.start_time));
    }
    return std::nullopt;
  };
  if (auto fail = run()) return *fail;
  return Ok{};
}

// Longer than .clang-tidy allows: a decoder, a branch per field.
// NOLINTNEXTLINE(readability-function-size)
Result<Node> decode_node(const json::value& v, const JsonPath& path) {
  Node node;
  auto run = [&]() -> Fail {
    const json::object* o = nullptr;
    TP_TRY(as_object(v, path, o));
    if (const json::value* mv = member(*o, "metadata")) {
      JsonPath mp = path.field("metadata");
      const json::object* m = nullptr;
      TP_TRY(as_object(*mv, mp, m));
      TP_TRY(read_string(*m, "name", mp, node.name));
      TP_TRY(read_string_map(*m, "labels", mp, node.labels));
    }
    if (node.name.empty()) {
      const JsonPath metadata = path.field("metadata");
      return value_error(metadata.field("name"), "a node needs a name");
    }
    if (const json::value* sv = member(*o, "spec")) {
      JsonPath sp = path.field("spec");
      const json::object* s = nullptr;
      TP_TRY(as_object(*sv, sp, s));
      TP_TRY(read_bool(*s, "unschedulable", sp, node.unschedulable));
      if (const json::value* tv = member(*s, "taints")) {
        JsonPath tp = sp.field("taints");
        const json::array* a = nullptr;
        TP_TRY(as_array(*tv, tp, a));
        for (size_t i = 0; i < a->size(); ++i) {
          JsonPath ip = tp.index(static_cast<int64_t>(i));
          const json::object* to = nullptr;
          TP_TRY(as_object((*a)[i], ip, to));
          Taint t;
          TP_TRY(read_string(*to, "key", ip, t.key));
          TP_TRY(read_string(*to, "value", ip, t.value));
          TP_TRY(read_string(*to, "effect", ip, t.effect));
          node.taints.push_back(std::move(t));
        }
      }
    }
    if (const json::value* stv = member(*o, "status")) {
      JsonPath stp = path.field("status");
      const json::object* st = nullptr;
      TP_TRY(as_object(*stv, stp, st));
      TP_TRY(read_resources(*st, "capacity", stp, node.capacity));
      if (member(*st, "allocatable")) {
        TP_TRY(read_resources(*st, "allocatable", stp, node.allocatable));
      } else {
        node.allocatable = node.capacity;  // SetDefaults_NodeStatus
      }
      if (const json::value* iv = member(*st, "images")) {
        JsonPath ip = stp.field("images");
        const json::array* a = nullptr;
        TP_TRY(as_array(*iv, ip, a));
        for (size_t i = 0; i < a->size(); ++i) {
          JsonPath ep = ip.index(static_cast<int64_t>(i));
          const json::object* io = nullptr;
          TP_TRY(as_object((*a)[i], ep, io));
          ContainerImage image;
          TP_TRY(read_int(*io, "sizeBytes", ep, image.size_bytes));
          TP_TRY(read_string_list(*io, "names", ep, image.names));
          node.images.push_back(std::move(image));
        }
      }
    }
    return std::nullopt;
  };
  if (auto fail = run()) return *fail;
  return node;
}

namespace {

Fail read_meta(const json::object& o, const JsonPath& path, std::string& ns, std::string& name,
               Labels* labels, bool namespaced) {
  const json::value* mv = member(o, "metadata");
  const JsonPath mp = path.field("metadata");
  if (mv) {
    const json::object* m = nullptr;
    TP_TRY(as_object(*mv, mp, m));
    TP_TRY(read_string(*m, "name", mp, name));
    if (namespaced) TP_TRY(read_string(*m, "namespace", mp, ns));
    if (labels) TP_TRY(read_string_map(*m, "labels", mp, *labels));
  }
  if (name.empty()) return value_error(mp.field("name"), "the object needs a name");
  if (namespaced && ns.empty()) ns = "default";
  return std::nullopt;
}

const json::object* spec_of(const json::object& o) {
  const json::value* v = member(o, "spec");
  return v && v->is_object() ? &v->get_object() : nullptr;
}

Fail check_spec(const json::object& o, const JsonPath& path) {
  if (const json::value* v = member(o, "spec"); v && !v->is_object())
    return type_error(path.field("spec"), "an object", *v);
  return std::nullopt;
}

}  // namespace

Result<Namespace> decode_namespace(const json::value& v, const JsonPath& path) {
  Namespace out;
  auto run = [&]() -> Fail {
    const json::object* o = nullptr;
    TP_TRY(as_object(v, path, o));
    std::string ignored;
    TP_TRY(read_meta(*o, path, ignored, out.name, &out.labels, false));
    // SetDefaults_Namespace: every named namespace carries its name as a label.
    if (!out.name.empty()) {
      auto it =
          std::lower_bound(out.labels.begin(), out.labels.end(), std::string(kMetadataNameLabel),
                           [](const auto& e, const std::string& key) { return e.first < key; });
      if (it != out.labels.end() && it->first == kMetadataNameLabel) {
        it->second = out.name;
      } else {
        out.labels.insert(it, {std::string(kMetadataNameLabel), out.name});
      }
    }
    return std::nullopt;
  };
  if (auto fail = run()) return *fail;
  return out;
}

namespace {

// A namespaced object whose spec only `read_spec` reads.
template <class Object, class ReadSpec>
Result<Object> decode_namespaced(const json::value& v, const JsonPath& path, ReadSpec&& read_spec) {
  Object out;
  auto run = [&]() -> Fail {
    const json::object* o = nullptr;
    TP_TRY(as_object(v, path, o));
    TP_TRY(read_meta(*o, path, out.ns, out.name, nullptr, true));
    TP_TRY(check_spec(*o, path));
    const json::object* spec = spec_of(*o);
    const JsonPath sp = path.field("spec");
    return spec ? read_spec(*spec, sp, out) : std::nullopt;
  };
  if (auto fail = run()) return *fail;
  return out;
}

}  // namespace

Result<MapSelectorObject> decode_map_selector_object(const json::value& v, const JsonPath& path) {
  return decode_namespaced<MapSelectorObject>(
      v, path, [](const json::object& spec, const JsonPath& sp, MapSelectorObject& out) -> Fail {
        if (member(spec, "selector"))
          TP_TRY(read_string_map(spec, "selector", sp, out.selector.emplace()));
        return std::nullopt;
      });
}

Result<SelectorObject> decode_selector_object(const json::value& v, const JsonPath& path) {
  return decode_namespaced<SelectorObject>(
      v, path, [](const json::object& spec, const JsonPath& sp, SelectorObject& out) -> Fail {
        const json::value* sel = member(spec, "selector");
        if (!sel) return std::nullopt;
        const JsonPath selp = sp.field("selector");
        TP_TRY(decode_label_selector(*sel, selp, out.selector.emplace()));
        return validate_label_selector(*out.selector, selp);
      });
}

namespace {

template <class T>
Status append(Result<T> decoded, std::vector<T>& into) {
  if (!decoded) return decoded.error();
  into.push_back(std::move(*decoded));
  return Ok{};
}

}  // namespace

Status decode_api_object(std::string_view kind, const json::value& v, const JsonPath& path,
                         ApiObjects& out, bool& known) {
  known = true;
  if (kind == "Namespace") {
    out.namespaces_listed = true;
    auto o = decode_namespace(v, path);
    if (!o) return o.error();
    out.namespaces.push_back(std::move(*o));
  } else if (kind == "Service" || kind == "ReplicationController") {
    auto o = decode_map_selector_object(v, path);
    if (!o) return o.error();
    (kind == "Service" ? out.services : out.replication_controllers).push_back(std::move(*o));
  } else if (kind == "ReplicaSet" || kind == "StatefulSet") {
    auto o = decode_selector_object(v, path);
    if (!o) return o.error();
    (kind == "ReplicaSet" ? out.replica_sets : out.stateful_sets).push_back(std::move(*o));
  } else if (kind == "PersistentVolumeClaim") {
    out.storage_listed = true;
    return append(decode_persistent_volume_claim(v, path), out.claims);
  } else if (kind == "PersistentVolume") {
    out.storage_listed = true;
    return append(decode_persistent_volume(v, path), out.volumes);
  } else if (kind == "StorageClass") {
    out.storage_listed = true;
    return append(decode_storage_class(v, path), out.storage_classes);
  } else if (kind == "CSINode") {
    return append(decode_csi_node(v, path), out.csi_nodes);
  } else if (kind == "CSIDriver") {
    return append(decode_csi_driver(v, path), out.csi_drivers);
  } else if (kind == "CSIStorageCapacity") {
    return append(decode_csi_storage_capacity(v, path), out.csi_capacities);
  } else {
    known = false;
  }
  return Ok{};
}

namespace {

Fail visit_items(const json::value& v, const JsonPath& path, std::string_view default_kind,
                 const ObjectVisitor& visit) {
  const json::array* a = nullptr;
  TP_TRY(as_array(v, path, a));
  for (size_t i = 0; i < a->size(); ++i) {
    JsonPath ip = path.index(static_cast<int64_t>(i));
    const json::object* o = nullptr;
    TP_TRY(as_object((*a)[i], ip, o));
    std::string kind(default_kind);
    TP_TRY(read_string(*o, "kind", ip, kind));
    if (kind.empty()) return value_error(ip.field("kind"), "an item of a v1 List needs a kind");
    if (kind == "PodGroup") {
      std::string api_version;
      TP_TRY(read_string(*o, "apiVersion", ip, api_version));
      if (api_version == "tightpack.io/v1") {
        TP_TRY(decode_detail::visit_pod_group(*o, ip, visit));
        continue;
      }
    }
    if (auto s = visit(kind, (*a)[i], ip); !s) return s.error();
  }
  return std::nullopt;
}

}  // namespace

Status visit_objects(const json::value& v, const JsonPath& path, const ObjectVisitor& visit) {
  auto run = [&]() -> Fail {
    const json::object* o = nullptr;
    TP_TRY(as_object(v, path, o));
    std::string kind;
    TP_TRY(read_string(*o, "kind", path, kind));
    if (kind.size() > 4 && kind.ends_with("List")) {
      std::string item_kind = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
      if (const json::value* items = member(*o, "items")) {
        TP_TRY(visit_items(*items, path.field("items"), item_kind, visit));
      }
      return std::nullopt;
    }
    if (kind == "List") {
      if (const json::value* items = member(*o, "items")) {
        TP_TRY(visit_items(*items, path.field("items"), "", visit));
      }
      return std::nullopt;
    }
    if (!kind.empty()) {
      if (auto s = visit(kind, v, path); !s) return s.error();
      return std::nullopt;
    }
    bool any = false;
    if (const json::value* nodes = member(*o, "nodes")) {
      any = true;
      TP_TRY(visit_items(*nodes, path.field("nodes"), "Node", visit));
    }
    if (const json::value* pods = member(*o, "pods")) {
      any = true;
      TP_TRY(visit_items(*pods, path.field("pods"), "Pod", visit));
    }
    if (!any) {
      return value_error(
          path, "expected a Kubernetes List (kind, items) or an object with nodes and pods");
    }
    return std::nullopt;
  };
  if (auto fail = run()) return *fail;
  return Ok{};
}

Status decode_objects(const json::value& v, const JsonPath& path, ClusterObjects& out) {
  return visit_objects(
      v, path, [&](std::string_view kind, const json::value& item, const JsonPath& p) -> Status {
        const bool single = &item == &v;  // a lone object of another kind is a mistake
        if (kind == "Node") {
          auto n = decode_node(item, p);
          if (!n) return n.error();
          out.nodes.push_back(std::move(*n));
        } else if (kind == "Pod") {
          auto pod = decode_pod(item, p);
          if (!pod) return pod.error();
          out.pods.push_back(std::move(*pod));
        } else {
          bool known = false;
          if (auto s = decode_api_object(kind, item, p, out.objects, known); !s) return s;
          if (!known && single) {
            return Error{
                p.field("kind").str(),
                "expected a List, NodeList, PodList, Node or Pod, got " + quote_value(kind)};
          }
        }
        return Ok{};
      });
}

}  // namespace tightpack
