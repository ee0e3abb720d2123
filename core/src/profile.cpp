#include "tightpack/profile.hpp"

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <map>
#include <set>

#include "json_read.hpp"
#include "tightpack/decode.hpp"

namespace tightpack {

using namespace json_read;

namespace {

using ext::kFilter;
using ext::kPostFilter;
using ext::kScore;

const PluginInfo& info(Plugin p) {
  return plugin_info(p);
}

bool find_plugin(std::string_view name, Plugin& out) {
  auto p = tightpack::find_plugin(name);
  if (p) out = *p;
  return p.has_value();
}

struct PluginRef {
  std::string name;
  int64_t weight = 0;  // 0: not set
};

struct PluginSet {
  std::vector<PluginRef> enabled;
  std::vector<std::string> disabled;
};

// v1 getDefaultPlugins: everything is enabled through MultiPoint.
PluginSet default_multi_point() {
  return {{{"SchedulingGates"},
           {"PrioritySort"},
           {"NodeUnschedulable"},
           {"NodeName"},
           {"TaintToleration", 3},
           {"NodeAffinity", 2},
           {"NodePorts"},
           {"NodeResourcesFit", 1},
           {"VolumeRestrictions"},
           {"NodeVolumeLimits"},
           {"VolumeBinding"},
           {"VolumeZone"},
           {"PodTopologySpread", 2},
           {"InterPodAffinity", 2},
           {"DefaultPreemption"},
           {"NodeResourcesBalancedAllocation", 1},
           {"ImageLocality", 1},
           {"DefaultBinder"}},
          {}};
}

// v1 mergePluginSet: custom disabled entries remove defaults ("*" removes all),
// a custom enabled entry replaces a default of the same name in place, the rest
// are appended.
PluginSet merge_plugin_set(const PluginSet& defaults, const PluginSet& custom) {
  PluginSet out;
  std::set<std::string> disabled(custom.disabled.begin(), custom.disabled.end());
  out.disabled = custom.disabled;
  for (const auto& d : defaults.disabled) {
    out.disabled.push_back(d);
    disabled.insert(d);
  }
  std::vector<bool> replaced(custom.enabled.size(), false);
  if (!disabled.count("*")) {
    for (const auto& def : defaults.enabled) {
      if (disabled.count(def.name)) continue;
      PluginRef chosen = def;
      for (size_t i = 0; i < custom.enabled.size(); ++i) {
        if (custom.enabled[i].name == def.name) {
          chosen = custom.enabled[i];
          replaced[i] = true;
          break;
        }
      }
      out.enabled.push_back(chosen);
    }
  }
  for (size_t i = 0; i < custom.enabled.size(); ++i) {
    if (!replaced[i]) out.enabled.push_back(custom.enabled[i]);
  }
  return out;
}

struct Expanded {
  std::vector<std::string> names;
  std::map<std::string, int64_t> weights;  // score only
};

// frameworkImpl.expandMultiPointPlugins for one extension point, plus
// getScoreWeights: explicit entries override MultiPoint ones.
Result<Expanded> expand(const PluginSet& point, const PluginSet& multi, uint8_t ext,
                        const JsonPath& path, const char* point_name) {
  Expanded out;
  std::vector<std::string> enabled;
  // A JsonPath points at its parent, so every level must be a named local that
  // outlives the error built from it, not a temporary of a chained call.
  const JsonPath point_path = path.field(point_name);
  const JsonPath enabled_path = point_path.field("enabled");
  for (size_t i = 0; i < point.enabled.size(); ++i) {
    const auto& ref = point.enabled[i];
    Plugin p;
    JsonPath ep = enabled_path.index(static_cast<int64_t>(i));
    if (!find_plugin(ref.name, p)) {
      return Error{ep.field("name").str(), "unknown plugin " + quote_value(ref.name)};
    }
    if (!(info(p).ext & ext)) {
      return Error{ep.field("name").str(),
                   "plugin " + quote_value(ref.name) + " does not extend " + point_name};
    }
    if (std::find(enabled.begin(), enabled.end(), ref.name) != enabled.end()) {
      return Error{ep.field("name").str(), "plugin " + quote_value(ref.name) + " is enabled twice"};
    }
    enabled.push_back(ref.name);
  }
  std::set<std::string> disabled(point.disabled.begin(), point.disabled.end());
  std::vector<std::string> overrides, multi_enabled;
  if (!disabled.count("*")) {
    for (const auto& ref : multi.enabled) {
      Plugin p;
      if (!find_plugin(ref.name, p)) {
        return Error{path.field("multiPoint").str(), "unknown plugin " + quote_value(ref.name)};
      }
      if (!(info(p).ext & ext) || disabled.count(ref.name)) continue;
      if (std::find(enabled.begin(), enabled.end(), ref.name) != enabled.end()) {
        overrides.push_back(ref.name);
        continue;
      }
      if (std::find(multi_enabled.begin(), multi_enabled.end(), ref.name) != multi_enabled.end()) {
        return Error{path.field("multiPoint").str(),
                     "plugin " + quote_value(ref.name) + " is registered twice"};
      }
      multi_enabled.push_back(ref.name);
    }
  }
  for (const auto& n : enabled) {
    if (std::find(overrides.begin(), overrides.end(), n) != overrides.end()) out.names.push_back(n);
  }
  for (const auto& n : multi_enabled) out.names.push_back(n);
  for (const auto& n : enabled) {
    if (std::find(overrides.begin(), overrides.end(), n) == overrides.end()) out.names.push_back(n);
  }
  if (ext == kScore) {
    auto take = [&](const std::vector<PluginRef>& refs) {
      for (const auto& ref : refs) {
        if (!out.weights.count(ref.name)) out.weights[ref.name] = ref.weight == 0 ? 1 : ref.weight;
      }
    };
    take(point.enabled);
    take(multi.enabled);
  }
  return out;
}

Fail read_plugin_set(const json::object& plugins, std::string_view key, const JsonPath& path,
                     PluginSet& out) {
  const json::value* v = member(plugins, key);
  if (!v) return std::nullopt;
  JsonPath p = path.field(key);
  const json::object* o = nullptr;
  TP_TRY(as_object(*v, p, o));
  TP_TRY(only_known(*o, p, {"enabled", "disabled"}));
  for (const char* list : {"enabled", "disabled"}) {
    const json::value* lv = member(*o, list);
    if (!lv) continue;
    JsonPath lp = p.field(list);
    const json::array* a = nullptr;
    TP_TRY(as_array(*lv, lp, a));
    for (size_t i = 0; i < a->size(); ++i) {
      JsonPath ip = lp.index(static_cast<int64_t>(i));
      const json::object* po = nullptr;
      TP_TRY(as_object((*a)[i], ip, po));
      TP_TRY(only_known(*po, ip, {"name", "weight"}));
      PluginRef ref;
      TP_TRY(read_string(*po, "name", ip, ref.name));
      if (ref.name.empty()) return value_error(ip.field("name"), "a plugin needs a name");
      TP_TRY(read_int(*po, "weight", ip, ref.weight));
      if (ref.weight < 0) {
        return value_error(ip.field("weight"),
                           "weight " + std::to_string(ref.weight) + " must not be negative");
      }
      if (list == std::string_view("enabled")) {
        out.enabled.push_back(std::move(ref));
      } else {
        Plugin ignored;
        if (ref.name != "*" && !find_plugin(ref.name, ignored)) {
          return value_error(ip.field("name"), "unknown plugin " + quote_value(ref.name));
        }
        out.disabled.push_back(std::move(ref.name));
      }
    }
  }
  return std::nullopt;
}

Fail read_resource_specs(const json::object& o, const JsonPath& path,
                         std::vector<ResourceSpec>& out, bool& present) {
  const json::value* v = member(o, "resources");
  present = v != nullptr;
  if (!v) return std::nullopt;
  JsonPath p = path.field("resources");
  const json::array* a = nullptr;
  TP_TRY(as_array(*v, p, a));
  out.clear();
  for (size_t i = 0; i < a->size(); ++i) {
    JsonPath ip = p.index(static_cast<int64_t>(i));
    const json::object* ro = nullptr;
    TP_TRY(as_object((*a)[i], ip, ro));
    TP_TRY(only_known(*ro, ip, {"name", "weight"}));
    ResourceSpec spec;
    spec.weight = 0;
    TP_TRY(read_string(*ro, "name", ip, spec.name));
    TP_TRY(read_int(*ro, "weight", ip, spec.weight));
    if (spec.weight == 0) spec.weight = 1;  // SetDefaults_NodeResourcesFitArgs
    if (spec.weight < 1 || spec.weight > 100) {
      return value_error(ip.field("weight"), "resource weight of " + spec.name + " (" +
                                                 std::to_string(spec.weight) +
                                                 ") not in valid range [1, 100]");
    }
    if (spec.name.empty()) return value_error(ip.field("name"), "a resource needs a name");
    out.push_back(std::move(spec));
  }
  if (out.size() > 16) return value_error(p, "tightpack scores at most 16 resources");
  if (out.empty()) present = false;  // defaulting fills an empty list
  return std::nullopt;
}

Fail read_shape(const json::object& o, const JsonPath& path, std::vector<ShapePoint>& shape) {
  const json::value* v = member(o, "shape");
  if (!v) return value_error(path.field("shape"), "RequestedToCapacityRatio needs a shape");
  JsonPath p = path.field("shape");
  const json::array* a = nullptr;
  TP_TRY(as_array(*v, p, a));
  if (a->empty()) return value_error(p, "at least one point must be specified");
  shape.clear();
  for (size_t i = 0; i < a->size(); ++i) {
    JsonPath ip = p.index(static_cast<int64_t>(i));
    const json::object* so = nullptr;
    TP_TRY(as_object((*a)[i], ip, so));
    TP_TRY(only_known(*so, ip, {"utilization", "score"}));
    ShapePoint point;
    TP_TRY(read_int(*so, "utilization", ip, point.utilization));
    TP_TRY(read_int(*so, "score", ip, point.score));
    if (point.utilization < 0 || point.utilization > 100) {
      return value_error(
          ip.field("utilization"),
          "utilization " + std::to_string(point.utilization) + " not in valid range [0, 100]");
    }
    if (i > 0 && point.utilization <= shape.back().utilization) {
      return value_error(ip.field("utilization"),
                         "utilization values must be sorted in increasing order");
    }
    if (point.score < 0 || point.score > 10) {
      return value_error(ip.field("score"),
                         "score " + std::to_string(point.score) + " not in valid range [0, 10]");
    }
    shape.push_back(point);
  }
  return std::nullopt;
}

// InterPodAffinityArgs, defaulted and validated (ValidateInterPodAffinityArgs).
Fail read_inter_pod_affinity_args(const json::object& args, const JsonPath& path,
                                  InterPodAffinityArgs& out) {
  out = InterPodAffinityArgs{};
  TP_TRY(read_int(args, "hardPodAffinityWeight", path, out.hard_pod_affinity_weight));
  if (out.hard_pod_affinity_weight < 0 || out.hard_pod_affinity_weight > 100) {
    return value_error(
        path.field("hardPodAffinityWeight"),
        std::to_string(out.hard_pod_affinity_weight) + " is not in the valid range [0, 100]");
  }
  return read_bool(args, "ignorePreferredTermsOfExistingPods", path,
                   out.ignore_preferred_terms_of_existing_pods);
}

Fail read_fit_args(const json::object& args, const JsonPath& path, FitArgs& fit) {
  TP_TRY(only_known(
      args, path,
      {"apiVersion", "kind", "ignoredResources", "ignoredResourceGroups", "scoringStrategy"}));
  TP_TRY(read_string_list(args, "ignoredResources", path, fit.ignored_resources));
  TP_TRY(read_string_list(args, "ignoredResourceGroups", path, fit.ignored_resource_groups));
  const json::value* sv = member(args, "scoringStrategy");
  if (!sv) return std::nullopt;
  JsonPath sp = path.field("scoringStrategy");
  const json::object* s = nullptr;
  TP_TRY(as_object(*sv, sp, s));
  TP_TRY(only_known(*s, sp, {"type", "resources", "requestedToCapacityRatio"}));
  std::string type = "LeastAllocated";
  TP_TRY(read_string(*s, "type", sp, type));
  if (type == "LeastAllocated") {
    fit.strategy = ScoringStrategy::LeastAllocated;
  } else if (type == "MostAllocated") {
    fit.strategy = ScoringStrategy::MostAllocated;
  } else if (type == "RequestedToCapacityRatio") {
    fit.strategy = ScoringStrategy::RequestedToCapacityRatio;
  } else {
    return value_error(sp.field("type"),
                       "unsupported scoring strategy " + quote_value(type) +
                           " (LeastAllocated, MostAllocated, RequestedToCapacityRatio)");
  }
  bool present = false;
  TP_TRY(read_resource_specs(*s, sp, fit.resources, present));
  if (!present) fit.resources = {{"cpu", 1}, {"memory", 1}};
  fit.shape.clear();
  if (fit.strategy == ScoringStrategy::RequestedToCapacityRatio) {
    const json::value* rv = member(*s, "requestedToCapacityRatio");
    if (!rv)
      return value_error(sp.field("requestedToCapacityRatio"),
                         "required for RequestedToCapacityRatio");
    JsonPath rp = sp.field("requestedToCapacityRatio");
    const json::object* r = nullptr;
    TP_TRY(as_object(*rv, rp, r));
    TP_TRY(only_known(*r, rp, {"shape"}));
    TP_TRY(read_shape(*r, rp, fit.shape));
  }
  return std::nullopt;
}

// Longer than .clang-tidy allows: a decoder, a branch per plugin's arguments.
// NOLINTNEXTLINE(readability-function-size)
Fail read_plugin_config(const json::array& configs, const JsonPath& path, Profile& profile) {
  std::set<std::string> seen;
  for (size_t i = 0; i < configs.size(); ++i) {
    JsonPath ip = path.index(static_cast<int64_t>(i));
    const json::object* c = nullptr;
    TP_TRY(as_object(configs[i], ip, c));
    TP_TRY(only_known(*c, ip, {"name", "args"}));
    std::string name;
    TP_TRY(read_string(*c, "name", ip, name));
    Plugin plugin;
    if (!find_plugin(name, plugin))
      return value_error(ip.field("name"), "unknown plugin " + quote_value(name));
    if (!seen.insert(name).second)
      return value_error(ip.field("name"), "duplicate pluginConfig for " + name);
    const json::value* av = member(*c, "args");
    if (!av) continue;
    JsonPath ap = ip.field("args");
    const json::object* args = nullptr;
    TP_TRY(as_object(*av, ap, args));
    switch (plugin) {
      case Plugin::NodeResourcesFit:
        TP_TRY(read_fit_args(*args, ap, profile.fit));
        break;
      case Plugin::NodeResourcesBalancedAllocation: {
        TP_TRY(only_known(*args, ap, {"apiVersion", "kind", "resources"}));
        bool present = false;
        TP_TRY(read_resource_specs(*args, ap, profile.balanced_resources, present));
        if (!present) profile.balanced_resources = {{"cpu", 1}, {"memory", 1}};
        break;
      }
      case Plugin::NodeAffinity:
        TP_TRY(only_known(*args, ap, {"apiVersion", "kind", "addedAffinity"}));
        if (member(*args, "addedAffinity")) {
          return value_error(ap.field("addedAffinity"), "not supported yet by tightpack");
        }
        break;
      case Plugin::DefaultPreemption:
        TP_TRY(only_known(
            *args, ap,
            {"apiVersion", "kind", "minCandidateNodesPercentage", "minCandidateNodesAbsolute"}));
        break;
      case Plugin::InterPodAffinity:
        TP_TRY(only_known(
            *args, ap,
            {"apiVersion", "kind", "hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"}));
        TP_TRY(read_inter_pod_affinity_args(*args, ap, profile.inter_pod_affinity));
        break;
      case Plugin::PodTopologySpread: {
        TP_TRY(
            only_known(*args, ap, {"apiVersion", "kind", "defaultConstraints", "defaultingType"}));
        std::string type = "System";
        TP_TRY(read_string(*args, "defaultingType", ap, type));
        if (type.empty()) type = "System";  // SetDefaults_PodTopologySpreadArgs
        if (type != "System" && type != "List") {
          return value_error(ap.field("defaultingType"),
                             "unsupported value " + quote_value(type) + " (List, System)");
        }
        profile.spread.system_defaulting = type == "System";
        profile.spread.default_constraints.clear();
        if (const json::value* dc = member(*args, "defaultConstraints")) {
          TP_TRY(decode_topology_spread(*dc, ap.field("defaultConstraints"), false,
                                        profile.spread.default_constraints));
        }
        if (profile.spread.system_defaulting && !profile.spread.default_constraints.empty()) {
          return value_error(ap.field("defaultingType"),
                             "System is invalid when .defaultConstraints are not empty");
        }
        break;
      }
      case Plugin::VolumeBinding: {
        TP_TRY(only_known(*args, ap, {"apiVersion", "kind", "bindTimeoutSeconds", "shape"}));
        int64_t timeout = 600;
        TP_TRY(read_int(*args, "bindTimeoutSeconds", ap, timeout));
        if (timeout < 0) {
          return value_error(ap.field("bindTimeoutSeconds"),
                             "invalid BindTimeoutSeconds, should not be a negative value");
        }
        profile.volume_bind_timeout_seconds = timeout;
        if (const json::value* shape = member(*args, "shape"); shape && !shape->is_null()) {
          TP_TRY(read_shape(*args, ap, profile.volume_shape.emplace()));
        }
        break;
      }
      default:
        return value_error(ap, std::string("plugin ") + info(plugin).name + " takes no arguments");
    }
  }
  return std::nullopt;
}

Result<Profile> decode_profile(const json::object& o, const JsonPath& path, int32_t percentage) {
  Profile profile;
  profile.percentage_of_nodes_to_score = percentage;
  auto run = [&]() -> Fail {
    TP_TRY(only_known(o, path,
                      {"schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"}));
    TP_TRY(read_string(o, "schedulerName", path, profile.scheduler_name));
    if (profile.scheduler_name.empty()) profile.scheduler_name = "default-scheduler";
    TP_TRY(read_int(o, "percentageOfNodesToScore", path, profile.percentage_of_nodes_to_score));
    if (profile.percentage_of_nodes_to_score < 0 || profile.percentage_of_nodes_to_score > 100) {
      return value_error(path.field("percentageOfNodesToScore"), "not in valid range [0, 100]");
    }
    PluginSet custom_multi, custom_filter, custom_score, custom_post;
    if (const json::value* pv = member(o, "plugins")) {
      JsonPath pp = path.field("plugins");
      const json::object* plugins = nullptr;
      TP_TRY(as_object(*pv, pp, plugins));
      TP_TRY(
          only_known(*plugins, pp,
                     {"preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore",
                      "score", "reserve", "permit", "preBind", "bind", "postBind", "multiPoint"}));
      for (const auto& kv : *plugins) {
        PluginSet ignored;
        TP_TRY(read_plugin_set(*plugins, kv.key(), pp, ignored));  // validates every point
      }
      TP_TRY(read_plugin_set(*plugins, "multiPoint", pp, custom_multi));
      TP_TRY(read_plugin_set(*plugins, "filter", pp, custom_filter));
      TP_TRY(read_plugin_set(*plugins, "score", pp, custom_score));
      TP_TRY(read_plugin_set(*plugins, "postFilter", pp, custom_post));
    }
    JsonPath pp = path.field("plugins");
    PluginSet multi = merge_plugin_set(default_multi_point(), custom_multi);
    auto filters = expand(merge_plugin_set({}, custom_filter), multi, kFilter, pp, "filter");
    if (!filters) return filters.error();
    auto scores = expand(merge_plugin_set({}, custom_score), multi, kScore, pp, "score");
    if (!scores) return scores.error();
    auto post = expand(merge_plugin_set({}, custom_post), multi, kPostFilter, pp, "postFilter");
    if (!post) return post.error();
    for (const auto& n : filters->names) {
      Plugin p;
      find_plugin(n, p);
      profile.filters.push_back(p);
    }
    int64_t total = 0;
    for (const auto& n : scores->names) {
      Plugin p;
      find_plugin(n, p);
      int64_t w = scores->weights[n];
      if (w > (INT64_MAX - total) / 100)
        return value_error(pp.field("score"), "total score of Score plugins could overflow");
      total += w * 100;
      profile.scores.push_back({p, w});
    }
    profile.preemption = !post->names.empty();
    // DynamicResources joins the default multi-point set (before
    // DefaultPreemption) through its feature gate; the engine models only its
    // PostFilter message, and a configuration can still disable it.
    auto disabled_in = [](const PluginSet& set) {
      return std::any_of(set.disabled.begin(), set.disabled.end(),
                         [](const std::string& n) { return n == "DynamicResources" || n == "*"; });
    };
    profile.dra_post_filter = !disabled_in(custom_multi) && !disabled_in(custom_post);
    if (const json::value* cv = member(o, "pluginConfig")) {
      const json::array* configs = nullptr;
      TP_TRY(as_array(*cv, path.field("pluginConfig"), configs));
      TP_TRY(read_plugin_config(*configs, path.field("pluginConfig"), profile));
    }
    return std::nullopt;
  };
  if (auto fail = run()) return *fail;
  return profile;
}

}  // namespace

std::optional<Plugin> find_plugin(std::string_view name) {
  for (const auto& p : kPluginTable) {
    if (name == p.name) return p.plugin;
  }
  return std::nullopt;
}

const char* strategy_name(ScoringStrategy s) {
  switch (s) {
    case ScoringStrategy::LeastAllocated:
      return "LeastAllocated";
    case ScoringStrategy::MostAllocated:
      return "MostAllocated";
    case ScoringStrategy::RequestedToCapacityRatio:
      return "RequestedToCapacityRatio";
  }
  return "";
}

bool Profile::filter_enabled(Plugin p) const {
  return std::find(filters.begin(), filters.end(), p) != filters.end();
}

int64_t Profile::score_weight(Plugin p) const {
  for (const auto& e : scores) {
    if (e.plugin == p) return e.weight;
  }
  return 0;
}

const Profile* SchedulerConfiguration::find(std::string_view scheduler_name) const {
  for (const auto& p : profiles) {
    if (p.scheduler_name == scheduler_name) return &p;
  }
  return nullptr;
}

Result<SchedulerConfiguration> decode_scheduler_configuration(const json::value& doc,
                                                              const JsonPath& path) {
  SchedulerConfiguration config;
  auto run = [&]() -> Fail {
    const json::object* o = nullptr;
    TP_TRY(as_object(doc, path, o));
    // The kind first: another component's configuration would otherwise be
    // reported by its first unknown field.
    std::string api_version, kind;
    TP_TRY(read_string(*o, "apiVersion", path, api_version));
    TP_TRY(read_string(*o, "kind", path, kind));
    if (api_version != "kubescheduler.config.k8s.io/v1") {
      return value_error(path.field("apiVersion"), "expected kubescheduler.config.k8s.io/v1, got " +
                                                       quote_value(api_version));
    }
    if (kind != "KubeSchedulerConfiguration") {
      return value_error(path.field("kind"),
                         "expected KubeSchedulerConfiguration, got " + quote_value(kind));
    }
    TP_TRY(only_known(
        *o, path,
        {"apiVersion", "kind", "parallelism", "leaderElection", "clientConnection",
         "healthzBindAddress", "metricsBindAddress", "enableProfiling", "enableContentionProfiling",
         "percentageOfNodesToScore", "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles",
         "extenders", "delayCacheUntilActive"}));
    if (const json::value* ev = member(*o, "extenders")) {
      if (ev->is_array() && !ev->get_array().empty()) {
        return value_error(path.field("extenders"),
                           "scheduler extenders are not supported by tightpack");
      }
    }
    TP_TRY(read_int(*o, "percentageOfNodesToScore", path, config.percentage_of_nodes_to_score));
    if (config.percentage_of_nodes_to_score < 0 || config.percentage_of_nodes_to_score > 100) {
      return value_error(path.field("percentageOfNodesToScore"), "not in valid range [0, 100]");
    }
    const json::value* pv = member(*o, "profiles");
    if (!pv) {
      config.profiles.push_back(default_profile());
      config.profiles.back().percentage_of_nodes_to_score = config.percentage_of_nodes_to_score;
      return std::nullopt;
    }
    JsonPath pp = path.field("profiles");
    const json::array* a = nullptr;
    TP_TRY(as_array(*pv, pp, a));
    if (a->empty()) return value_error(pp, "at least one profile is required");
    for (size_t i = 0; i < a->size(); ++i) {
      JsonPath ip = pp.index(static_cast<int64_t>(i));
      const json::object* po = nullptr;
      TP_TRY(as_object((*a)[i], ip, po));
      // SetDefaults_KubeSchedulerConfiguration names a profile only when it is
      // the only one and has no name at all; validation requires the rest.
      const json::value* name = member(*po, "schedulerName");
      if ((name && name->is_string() && name->get_string().empty()) || (!name && a->size() > 1)) {
        return value_error(
            ip.field("schedulerName"),
            "required: with several profiles each needs a scheduler name, never empty");
      }
      auto profile = decode_profile(*po, ip, config.percentage_of_nodes_to_score);
      if (!profile) return profile.error();
      if (config.find(profile->scheduler_name)) {
        return value_error(ip.field("schedulerName"),
                           "duplicate profile " + quote_value(profile->scheduler_name));
      }
      config.profiles.push_back(std::move(*profile));
    }
    return std::nullopt;
  };
  if (auto fail = run()) return *fail;
  return config;
}

Profile default_profile() {
  auto p = decode_profile(json::object{}, JsonPath("profile"), 0);
  return std::move(p).value();
}

json::value encode_profile(const Profile& profile) {
  json::object o;
  o["schedulerName"] = profile.scheduler_name;
  json::array filters, scores;
  json::object weights;
  for (Plugin p : profile.filters) filters.emplace_back(plugin_name(p));
  for (const auto& e : profile.scores) {
    scores.emplace_back(plugin_name(e.plugin));
    weights[plugin_name(e.plugin)] = e.weight;
  }
  o["filterPlugins"] = std::move(filters);
  o["scorePlugins"] = std::move(scores);
  o["scoreWeights"] = std::move(weights);
  o["preemption"] = profile.preemption;
  json::object fit;
  fit["type"] = strategy_name(profile.fit.strategy);
  json::array resources;
  for (const auto& r : profile.fit.resources)
    resources.push_back(json::object{{"name", r.name}, {"weight", r.weight}});
  fit["resources"] = std::move(resources);
  if (!profile.fit.shape.empty()) {
    json::array shape;
    for (const auto& s : profile.fit.shape)
      shape.push_back(json::object{{"utilization", s.utilization}, {"score", s.score}});
    fit["shape"] = std::move(shape);
  }
  o["nodeResourcesFitArgs"] = std::move(fit);
  return o;
}

}  // namespace tightpack
