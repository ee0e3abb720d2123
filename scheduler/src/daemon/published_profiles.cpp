#include "daemon/published_profiles.hpp"

#include <boost/json.hpp>
#include <cctype>
#include <span>
#include <string_view>

#include "tightpack/known_fields.hpp"

namespace tightpack::daemon {
namespace json = boost::json;

namespace {

class Withholder;
using Filter = json::value (*)(Withholder&, const json::value&, const std::string& path);

// One key the sidebar reads, and what of its value it reads.
struct Rule {
  std::string_view key;
  Filter filter;
};

// KubeSpawner's update_k8s_model takes snake_case and camelCase alike for
// extra_pod_config and extra_container_config; so does the sidebar.
std::string camel(std::string_view key) {
  std::string out;
  bool upper = false;
  for (char c : key) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out.push_back(upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c);
    upper = false;
  }
  return out;
}

class Withholder {
 public:
  std::vector<std::string> withheld;

  // The members of `in` that a rule names (matched as is or, with `any_case`,
  // in camelCase), each filtered by its rule; every other member withheld.
  json::value keep(const json::value& in, const std::string& path, std::span<const Rule> rules,
                   bool any_case = false) {
    if (!in.is_object()) return withhold(path);
    json::object out;
    for (const auto& kv : in.get_object()) {
      const std::string key(kv.key());
      const std::string child = path + "." + key;
      const std::string wanted = any_case ? camel(key) : key;
      const Rule* rule = nullptr;
      for (const auto& r : rules) {
        if (r.key == wanted) rule = &r;
      }
      if (!rule) {
        withheld.push_back(child);
        continue;
      }
      json::value v = rule->filter(*this, kv.value(), child);
      if (!v.is_null() || kv.value().is_null()) out[key] = std::move(v);
    }
    return out;
  }

  // Each element of a list filtered by `each`.
  json::value each(const json::value& in, const std::string& path, Filter each) {
    if (!in.is_array()) return withhold(path);
    json::array out;
    for (size_t i = 0; i < in.get_array().size(); ++i) {
      json::value v = each(*this, in.get_array()[i], path + "[" + std::to_string(i) + "]");
      if (!v.is_null() || in.get_array()[i].is_null()) out.push_back(std::move(v));
    }
    return out;
  }

  // Each member of an object filtered by `each`, under its own key.
  json::value each_member(const json::value& in, const std::string& path, Filter each) {
    if (!in.is_object()) return withhold(path);
    json::object out;
    for (const auto& kv : in.get_object()) {
      json::value v = each(*this, kv.value(), path + "." + std::string(kv.key()));
      if (!v.is_null()) out[kv.key()] = std::move(v);
    }
    return out;
  }

  json::value withhold(const std::string& path) {
    withheld.push_back(path);
    return nullptr;
  }
};

json::value verbatim(Withholder&, const json::value& v, const std::string&) {
  return v;
}

// A container of extra_containers or init_containers: what takes room on a
// node (requests, limits, host ports, a restartable init container's place
// among the sidecars) and the image; never env, command, args or mounts.
json::value resources(Withholder& w, const json::value& v, const std::string& path) {
  static constexpr Rule kRules[] = {{"requests", verbatim}, {"limits", verbatim}};
  return w.keep(v, path, kRules);
}

json::value container(Withholder& w, const json::value& v, const std::string& path) {
  static constexpr Rule kRules[] = {{"name", verbatim},
                                    {"image", verbatim},
                                    {"resources", resources},
                                    {"ports", verbatim},
                                    {"restartPolicy", verbatim}};
  return w.keep(v, path, kRules, true);
}

json::value containers(Withholder& w, const json::value& v, const std::string& path) {
  return w.each(v, path, container);
}

// extra_container_config, merged into the notebook container.
json::value container_config(Withholder& w, const json::value& v, const std::string& path) {
  static constexpr Rule kRules[] = {
      {"image", verbatim}, {"resources", resources}, {"ports", verbatim}};
  return w.keep(v, path, kRules, true);
}

json::value nothing(Withholder& w, const json::value& v, const std::string& path) {
  return w.keep(v, path, {}, true);
}

json::value empty_dir(Withholder& w, const json::value& v, const std::string& path) {
  static constexpr Rule kRules[] = {{"medium", verbatim}};
  return w.keep(v, path, kRules, true);
}

// A volume: which claim or image it is, and that it is local (cluster-
// autoscaler's drain rule), not where its bytes come from (an NFS server, a
// host's path, a secret's name, a CSI driver's attributes, an in-line disk).
json::value volume(Withholder& w, const json::value& v, const std::string& path) {
  static constexpr Rule kRules[] = {{"name", verbatim},      {"persistentVolumeClaim", verbatim},
                                    {"ephemeral", verbatim}, {"image", verbatim},
                                    {"emptyDir", empty_dir}, {"hostPath", nothing}};
  return w.keep(v, path, kRules, true);
}

json::value volumes(Withholder& w, const json::value& v, const std::string& path) {
  return w.each(v, path, volume);
}

// That the pod asks for devices (DynamicResources, which the engine refuses
// by name), not which claims.
json::value resource_claim(Withholder& w, const json::value& v, const std::string& path) {
  static constexpr Rule kRules[] = {{"name", verbatim}};
  return w.keep(v, path, kRules, true);
}

json::value resource_claims(Withholder& w, const json::value& v, const std::string& path) {
  return w.each(v, path, resource_claim);
}

// extra_pod_config, merged into the pod's spec: the fields kube-scheduler
// reads (the decoders' spec of scheduling_fields.hpp; published_profiles_test
// holds the two together), and those the API server turns into them.
json::value pod_config(Withholder& w, const json::value& v, const std::string& path) {
  static constexpr Rule kRules[] = {
      {"resources", resources},        {"resourceClaims", resource_claims},
      {"nodeSelector", verbatim},      {"affinity", verbatim},
      {"tolerations", verbatim},       {"schedulerName", verbatim},
      {"priorityClassName", verbatim}, {"priority", verbatim},
      {"preemptionPolicy", verbatim},  {"topologySpreadConstraints", verbatim},
      {"overhead", verbatim},          {"runtimeClassName", verbatim},
      {"hostNetwork", verbatim},       {"nodeName", verbatim},
      {"schedulingGates", verbatim},   {"volumes", volumes}};
  return w.keep(v, path, kRules, true);
}

// The KubeSpawner traits the sidebar turns into the pod.
json::value override(Withholder& w, const json::value& v, const std::string& path) {
  static constexpr Rule kRules[] = {
      {"image", verbatim},
      {"cpu_guarantee", verbatim},
      {"cpu_limit", verbatim},
      {"mem_guarantee", verbatim},
      {"mem_limit", verbatim},
      {"extra_resource_guarantees", verbatim},
      {"extra_resource_limits", verbatim},
      {"node_selector", verbatim},
      {"tolerations", verbatim},
      {"scheduler_name", verbatim},
      {"priority_class_name", verbatim},
      {"node_affinity_required", verbatim},
      {"node_affinity_preferred", verbatim},
      {"pod_affinity_required", verbatim},
      {"pod_affinity_preferred", verbatim},
      {"pod_anti_affinity_required", verbatim},
      {"pod_anti_affinity_preferred", verbatim},
      {"extra_labels", verbatim},
      // The labels KubeSpawner puts on every object (zero-to-jupyterhub's
      // release and chart), so that a predicted home claim is the one made.
      {"common_labels", verbatim},
      {"init_containers", containers},
      {"extra_containers", containers},
      {"extra_container_config", container_config},
      {"extra_pod_config", pod_config},
      // The home claim: which claim the pod mounts (a template such as
      // "{pvc_name}" for a user's own) and how KubeSpawner makes a new one.
      {"volumes", volumes},
      {"storage_pvc_ensure", verbatim},
      {"storage_class", verbatim},
      {"storage_capacity", verbatim},
      {"storage_access_modes", verbatim}};
  return w.keep(v, path, kRules);
}

json::value choice(Withholder& w, const json::value& v, const std::string& path) {
  static constexpr Rule kRules[] = {
      {"display_name", verbatim}, {"default", verbatim}, {"kubespawner_override", override}};
  return w.keep(v, path, kRules);
}

json::value choices(Withholder& w, const json::value& v, const std::string& path) {
  return w.each_member(v, path, choice);
}

// An entry of profile_options; its unlisted_choice (free text the user types)
// is not something the sidebar can preview.
json::value option(Withholder& w, const json::value& v, const std::string& path) {
  static constexpr Rule kRules[] = {{"display_name", verbatim}, {"choices", choices}};
  return w.keep(v, path, kRules);
}

json::value options(Withholder& w, const json::value& v, const std::string& path) {
  return w.each_member(v, path, option);
}

json::value entry(Withholder& w, const json::value& v, const std::string& path) {
  static constexpr Rule kRules[] = {
      {"display_name", verbatim},         {"slug", verbatim},
      {"description", verbatim},          {"default", verbatim},
      {"kubespawner_override", override}, {"profile_options", options}};
  return w.keep(v, path, kRules);
}

// dask-gateway's backend.worker settings (dask_gateway_server's
// KubeClusterConfig.worker_extra_pod_config and worker_extra_container_config).
json::value gateway_worker(Withholder& w, const json::value& v, const std::string& path) {
  static constexpr Rule kRules[] = {{"extraPodConfig", pod_config},
                                    {"extraContainerConfig", container_config}};
  return w.keep(v, path, kRules);
}

json::value gateway(Withholder& w, const json::value& v, const std::string& path) {
  static constexpr Rule kRules[] = {{"worker", gateway_worker}};
  return w.keep(v, path, kRules);
}

}  // namespace

PublishedSettings publishable_dask_gateway(const json::value& settings) {
  Withholder w;
  json::value kept = gateway(w, settings, "$.daskGateway");
  return {std::move(kept), std::move(w.withheld)};
}

PublishedSettings publishable_kubespawner_defaults(const json::value& settings) {
  Withholder w;
  json::value kept = override(w, settings, "$.kubespawnerDefaults");
  return {std::move(kept), std::move(w.withheld)};
}

PublishedProfiles publishable_profiles(const json::array& entries) {
  Withholder w;
  json::value kept = w.each(entries, "$.profiles", entry);
  return {std::move(kept.as_array()), std::move(w.withheld)};
}

Result<PublishedDocument> publishable(const json::value& document) {
  if (!document.is_object())
    return Error{"",
                 "expected an object with the keys profiles, kubespawnerDefaults and daskGateway"};
  const json::object& doc = document.get_object();
  if (auto unknown =
          unknown_field(doc, JsonPath(), {"profiles", "kubespawnerDefaults", "daskGateway"})) {
    return *unknown;
  }
  PublishedDocument out;
  if (const json::value* p = doc.if_contains("profiles")) {
    if (!p->is_array()) return Error{"$.profiles", "expected a list of profile entries"};
    for (size_t i = 0; i < p->get_array().size(); ++i) {
      if (!p->get_array()[i].is_object())
        return Error{"$.profiles[" + std::to_string(i) + "]", "expected an object"};
    }
    auto profiles = publishable_profiles(p->get_array());
    out.published.profiles = std::move(profiles.profiles);
    out.withheld = std::move(profiles.withheld);
  }
  struct Part {
    const char* key;
    const char* expected;
    PublishedSettings (*keep)(const json::value&);
    json::value Published::*into;
  };
  static const Part kParts[] = {
      {"kubespawnerDefaults", "an object of KubeSpawner settings ({\"tolerations\": [...], ...})",
       publishable_kubespawner_defaults, &Published::kubespawner_defaults},
      {"daskGateway", "an object ({\"worker\": {\"extraPodConfig\": ...}})",
       publishable_dask_gateway, &Published::dask_gateway},
  };
  for (const Part& part : kParts) {
    const json::value* v = doc.if_contains(part.key);
    if (!v) continue;
    if (!v->is_object())
      return Error{std::string("$.") + part.key, std::string("expected ") + part.expected};
    auto kept = part.keep(*v);
    out.withheld.insert(out.withheld.end(), kept.withheld.begin(), kept.withheld.end());
    out.published.*part.into = std::move(kept.settings);
  }
  return out;
}

}  // namespace tightpack::daemon
