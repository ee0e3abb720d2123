// The API server's defaulting and mutating admission of a pod
// (admission.hpp), on its JSON, so that what it adds is what `kubectl get -o
// json` would show.
#include "tightpack/admission.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <functional>
#include <set>

#include "json_read.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/pod_resources.hpp"

namespace tightpack {
namespace json = boost::json;
using namespace json_read;

namespace {

constexpr const char* kNotReady = "node.kubernetes.io/not-ready";
constexpr const char* kUnreachable = "node.kubernetes.io/unreachable";
constexpr int64_t kDefaultTolerationSeconds = 300;

std::string_view string_field(const json::object& o, std::string_view key) {
  const json::value* v = member(o, key);
  return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

// The containers and init containers, each an object with its path.
Fail for_each_container(json::object& spec, const JsonPath& spec_path,
                        const std::function<Fail(json::object&, const JsonPath&)>& visit) {
  for (const char* key : {"containers", "initContainers"}) {
    auto it = spec.find(key);
    if (it == spec.end() || it->value().is_null()) continue;
    const JsonPath list_path = spec_path.field(key);
    if (!it->value().is_array()) return type_error(list_path, "an array", it->value());
    json::array& list = it->value().get_array();
    for (size_t i = 0; i < list.size(); ++i) {
      const JsonPath p = list_path.index(static_cast<int64_t>(i));
      if (!list[i].is_object()) return type_error(p, "an object", list[i]);
      TP_TRY(visit(list[i].get_object(), p));
    }
  }
  return std::nullopt;
}

Fail default_requests_from_limits(json::object& container, const JsonPath& path,
                                  std::vector<AdmissionChange>& changes) {
  auto r = container.find("resources");
  if (r == container.end() || r->value().is_null()) return std::nullopt;
  const JsonPath rp = path.field("resources");
  if (!r->value().is_object()) return type_error(rp, "an object", r->value());
  json::object& resources = r->value().get_object();
  auto l = resources.find("limits");
  if (l == resources.end() || l->value().is_null()) return std::nullopt;
  if (!l->value().is_object()) return type_error(rp.field("limits"), "an object", l->value());
  auto q = resources.find("requests");
  if (q != resources.end() && !q->value().is_null() && !q->value().is_object()) {
    return type_error(rp.field("requests"), "an object", q->value());
  }
  // Copied before `resources` may grow a "requests" member and move its values.
  const json::object limits = l->value().get_object();
  if (q == resources.end() || q->value().is_null()) resources["requests"] = json::object();
  json::object& requests = resources["requests"].get_object();
  for (const auto& [name, value] : limits) {
    if (requests.contains(name)) continue;
    requests[name] = value;
    AdmissionChange& c = changes.emplace_back();
    c.by = "defaulting";
    c.container = std::string(string_field(container, "name"));
    c.resource = std::string(name);
    c.quantity = value.is_string() ? std::string(value.get_string()) : json::serialize(value);
  }
  return std::nullopt;
}

Fail tolerations_of(json::object& spec, const JsonPath& spec_path, json::array*& out) {
  auto it = spec.find("tolerations");
  if (it == spec.end() || it->value().is_null()) {
    spec["tolerations"] = json::array();
    it = spec.find("tolerations");
  }
  const JsonPath p = spec_path.field("tolerations");
  if (!it->value().is_array()) return type_error(p, "an array", it->value());
  out = &it->value().get_array();
  for (size_t i = 0; i < out->size(); ++i) {
    if (!(*out)[i].is_object())
      return type_error(p.index(static_cast<int64_t>(i)), "an object", (*out)[i]);
  }
  return std::nullopt;
}

AdmissionChange added_toleration(std::string by, json::object toleration) {
  AdmissionChange c;
  c.by = std::move(by);
  c.toleration = std::move(toleration);
  return c;
}

json::object toleration(std::string_view key, std::string_view effect) {
  return json::object{{"key", key}, {"operator", "Exists"}, {"effect", effect}};
}

void default_toleration_seconds(json::array& tolerations, std::vector<AdmissionChange>& changes) {
  bool not_ready = false, unreachable = false;
  for (const json::value& t : tolerations) {
    const json::object& o = t.get_object();
    const std::string_view key = string_field(o, "key"), effect = string_field(o, "effect");
    if (effect != "NoExecute" && !effect.empty()) continue;
    not_ready = not_ready || key == kNotReady || key.empty();
    unreachable = unreachable || key == kUnreachable || key.empty();
  }
  for (const auto& [tolerated, key] :
       {std::pair{not_ready, kNotReady}, std::pair{unreachable, kUnreachable}}) {
    if (tolerated) continue;
    json::object t = toleration(key, "NoExecute");
    t["tolerationSeconds"] = kDefaultTolerationSeconds;
    tolerations.push_back(t);
    changes.push_back(added_toleration("DefaultTolerationSeconds", std::move(t)));
  }
}

// helper.AddOrUpdateTolerationInPod; false when an equal one is there.
bool add_or_update_toleration(json::array& tolerations, const json::object& wanted) {
  auto same = [&](const json::object& t, std::string_view key) {
    return string_field(t, key) == string_field(wanted, key);
  };
  json::array out;
  bool updated = false;
  for (const json::value& v : tolerations) {
    const json::object& t = v.get_object();
    if (same(t, "key") && same(t, "effect") && same(t, "operator") &&
        same(t, "value")) {  // MatchToleration
      // Semantic.DeepEqual: the same but for a tolerationSeconds.
      const bool equal = member(t, "tolerationSeconds") == nullptr;
      if (equal) return false;
      out.push_back(wanted);
      updated = true;
      continue;
    }
    out.push_back(v);
  }
  if (!updated) out.push_back(wanted);
  tolerations = std::move(out);
  return true;
}

}  // namespace

// Longer than .clang-tidy allows: the API server's defaulting of every container, in its order.
// NOLINTNEXTLINE(readability-function-size)
Result<AdmittedPod> admit_pod(const json::value& pod, const AdmissionOptions& options,
                              const JsonPath& path) {
  AdmittedPod admitted{pod, {}};
  auto run = [&]() -> Fail {
    if (!admitted.pod.is_object()) return type_error(path, "an object", admitted.pod);
    json::object& o = admitted.pod.get_object();
    auto s = o.find("spec");
    const JsonPath spec_path = path.field("spec");
    if (s == o.end() || s->value().is_null()) {
      o["spec"] = json::object();
      s = o.find("spec");
    }
    if (!s->value().is_object()) return type_error(spec_path, "an object", s->value());
    json::object& spec = s->value().get_object();
    std::set<std::string> extended;  // sorted, as sets.String.List()
    TP_TRY(for_each_container(spec, spec_path, [&](json::object& c, const JsonPath& p) -> Fail {
      TP_TRY(default_requests_from_limits(c, p, admitted.changes));
      if (const json::value* r = member(c, "resources"); r && r->is_object()) {
        if (const json::value* q = member(r->get_object(), "requests"); q && q->is_object()) {
          for (const auto& kv : q->get_object()) {
            if (is_extended_resource(kv.key())) extended.insert(std::string(kv.key()));
          }
        }
      }
      return std::nullopt;
    }));
    if (!options.default_toleration_seconds &&
        !(options.extended_resource_toleration && !extended.empty())) {
      return std::nullopt;
    }
    json::array* tolerations = nullptr;
    TP_TRY(tolerations_of(spec, spec_path, tolerations));
    if (options.default_toleration_seconds)
      default_toleration_seconds(*tolerations, admitted.changes);
    if (options.extended_resource_toleration) {
      for (const std::string& resource : extended) {
        json::object t = toleration(resource, "NoSchedule");
        if (add_or_update_toleration(*tolerations, t)) {
          admitted.changes.push_back(added_toleration("ExtendedResourceToleration", std::move(t)));
        }
      }
    }
    return std::nullopt;
  };
  if (auto fail = run()) return *fail;
  return admitted;
}

Result<AdmittedRequestPod> decode_admitted_pod(const json::value& pod,
                                               const AdmissionOptions& options,
                                               const JsonPath& path) {
  auto admitted = admit_pod(pod, options, path);
  if (!admitted) return admitted.error();
  // Decoded as cluster-autoscaler reads it: its owner, local volumes and
  // annotations decide what scale-down does with it.
  auto decoded = autoscaler::decode_ca_pod(admitted->pod, path);
  if (!decoded) return decoded.error();
  const autoscaler::PodDrain drain = autoscaler::drain_of(*decoded);
  return AdmittedRequestPod{std::move(decoded->pod), std::move(admitted->changes), drain};
}

void assign_default_storage_class(ApiObjects& objects) {
  const StorageClass* chosen = nullptr;
  for (const StorageClass& c : objects.storage_classes) {
    if (!c.is_default) continue;
    if (!chosen || c.created > chosen->created ||
        (c.created == chosen->created && c.name < chosen->name))
      chosen = &c;
  }
  if (!chosen) return;
  for (PersistentVolumeClaim& claim : objects.claims) {
    if (!claim.class_unset || !claim.volume_name.empty()) continue;
    claim.class_name = chosen->name;
    claim.class_unset = false;
    claim.class_defaulted = true;
  }
}

json::array encode_admission_changes(const std::vector<AdmissionChange>& changes) {
  json::array out;
  for (const AdmissionChange& c : changes) {
    if (c.by == "defaulting") {
      out.push_back(json::object{{"by", c.by},
                                 {"container", c.container},
                                 {"resource", c.resource},
                                 {"request", c.quantity}});
    } else {
      out.push_back(json::object{{"by", c.by}, {"toleration", c.toleration}});
    }
  }
  return out;
}

}  // namespace tightpack
