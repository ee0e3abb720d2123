#include "tightpack/replay.hpp"

#include <boost/json.hpp>

#include "config_edit.hpp"
#include "json_read.hpp"
#include "tightpack/built_in_profiles.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/kube_release.hpp"

namespace tightpack {

using namespace json_read;

using namespace config_edit;

Result<Profile> resolve_scenario_profile(const json::value& spec, const JsonPath& path,
                                         std::string& name) {
  json::value config;
  auto run = [&]() -> Fail {
    if (spec.is_string()) {
      name = std::string(spec.get_string());
      auto base = built_in_scheduler_config(name, path);
      if (!base) return base.error();
      config = std::move(*base);
      return std::nullopt;
    }
    const json::object* o = nullptr;
    TP_TRY(as_object(spec, path, o));
    TP_TRY(only_known(*o, path,
                      {"name", "scoringStrategy", "scoreWeights", "disabledScore",
                       "schedulerConfig", "release"}));
    name = "default";
    TP_TRY(read_string(*o, "name", path, name));
    if (const json::value* sc = member(*o, "schedulerConfig")) {
      config = *sc;
      const json::object* co = nullptr;
      TP_TRY(as_object(config, path.field("schedulerConfig"), co));
      if (!co->contains("profiles")) config.as_object()["profiles"] = json::array{json::object{}};
    } else {
      auto base = built_in_scheduler_config(name, path.field("name"));
      if (!base) return base.error();
      config = std::move(*base);
    }
    const json::value* profiles = config.as_object().if_contains("profiles");
    if (!profiles || !profiles->is_array() || profiles->as_array().empty() ||
        !profiles->as_array()[0].is_object()) {
      const JsonPath config_path = path.field("schedulerConfig");
      return value_error(config_path.field("profiles"), "needs at least one profile object");
    }
    json::object& profile = first_profile(config);
    if (const json::value* ss = member(*o, "scoringStrategy")) {
      JsonPath sp = path.field("scoringStrategy");
      const json::object* so = nullptr;
      TP_TRY(as_object(*ss, sp, so));
      json::object strategy = *so;
      // The corpus writes the shape beside the type; the configuration nests it.
      if (json::value* shape = strategy.if_contains("shape")) {
        strategy["requestedToCapacityRatio"] = json::object{{"shape", *shape}};
        strategy.erase("shape");
      }
      json::object& args = fit_args(profile);
      const json::value* type = strategy.if_contains("type");
      bool rtc = type && type->is_string() && type->get_string() == "RequestedToCapacityRatio";
      if (rtc && !strategy.contains("requestedToCapacityRatio")) {
        if (json::value* old = args.if_contains("scoringStrategy")) {
          if (old->is_object() && old->as_object().contains("requestedToCapacityRatio")) {
            strategy["requestedToCapacityRatio"] = old->as_object()["requestedToCapacityRatio"];
          }
        }
      }
      args["scoringStrategy"] = std::move(strategy);
    }
    if (const json::value* sw = member(*o, "scoreWeights")) {
      JsonPath wp = path.field("scoreWeights");
      const json::object* wo = nullptr;
      TP_TRY(as_object(*sw, wp, wo));
      // score_list may insert into the profile: take each list afresh.
      for (const auto& kv : *wo) {
        erase_named(score_list(profile, "enabled"), kv.key());
        if (!contains_named(score_list(profile, "disabled"), kv.key())) {
          score_list(profile, "disabled").push_back(json::object{{"name", kv.key()}});
        }
        score_list(profile, "enabled")
            .push_back(json::object{{"name", kv.key()}, {"weight", kv.value()}});
      }
    }
    if (const json::value* ds = member(*o, "disabledScore")) {
      JsonPath dp = path.field("disabledScore");
      const json::array* da = nullptr;
      TP_TRY(as_array(*ds, dp, da));
      for (size_t i = 0; i < da->size(); ++i) {
        if (!(*da)[i].is_string())
          return type_error(dp.index(static_cast<int64_t>(i)), "a string", (*da)[i]);
        std::string_view plugin = (*da)[i].get_string();
        erase_named(score_list(profile, "enabled"), plugin);
        if (!contains_named(score_list(profile, "disabled"), plugin)) {
          score_list(profile, "disabled").push_back(json::object{{"name", plugin}});
        }
      }
    }
    return std::nullopt;
  };
  if (auto fail = run()) return *fail;
  auto decoded = decode_scheduler_configuration(config, path);
  if (!decoded) return decoded.error();
  Profile profile = std::move(decoded->profiles.front());
  // "release": the kube-scheduler whose wording to use (Profile::kube_minor).
  if (const json::value* rv = spec.is_object() ? member(spec.get_object(), "release") : nullptr) {
    const JsonPath rp = path.field("release");
    if (!rv->is_string()) return type_error(rp, "a string", *rv);
    if (auto e = kube_release::apply(profile, rv->get_string(), rp.str())) return *e;
  }
  return profile;
}

namespace {

// The scenario's keys (../shared/corpus/README.md).
constexpr const char* kScenarioKeys[] = {"profile",
                                         "nodes",
                                         "pods",
                                         "incoming",
                                         "namespaces",
                                         "services",
                                         "replicaSets",
                                         "statefulSets",
                                         "replicationControllers",
                                         "persistentVolumeClaims",
                                         "persistentVolumes",
                                         "storageClasses",
                                         "csiNodes",
                                         "csiDrivers",
                                         "csiStorageCapacities",
                                         "podDisruptionBudgets"};

std::string scenario_keys() {
  std::string out;
  for (const char* k : kScenarioKeys) out += (out.empty() ? "" : ", ") + std::string(k);
  return out;
}

}  // namespace

Result<Scenario> decode_scenario(const json::value& doc) {
  Scenario s;
  auto run = [&]() -> Fail {
    const json::object* o = nullptr;
    TP_TRY(as_object(doc, JsonPath(), o));
    JsonPath path;
    JsonPath scenario_path = path.field("scenario");
    const json::object* sc = o;
    const JsonPath* sp = &path;
    if (const json::value* inner = member(*o, "scenario")) {
      TP_TRY(as_object(*inner, scenario_path, sc));
      sp = &scenario_path;
    }
    json::value default_profile_name("default");
    const json::value* profile = member(*sc, "profile");
    auto resolved = resolve_scenario_profile(profile ? *profile : default_profile_name,
                                             sp->field("profile"), s.profile_name);
    if (!resolved) return resolved.error();
    s.profile = std::move(*resolved);
    // Every key is one the engine reads: a misspelt one must not quietly
    // drop what it holds.
    for (const auto& kv : *sc) {
      const std::string_view key = kv.key();
      bool known = false;
      for (const char* k : kScenarioKeys) known = known || key == k;
      if (sc == o && (key == "expected" || key == "meta"))
        known = true;  // a corpus line without "scenario"
      if (!known) {
        return value_error(sp->field(key), "unknown scenario key " + quote_value(key) + " (" +
                                               scenario_keys() + ")");
      }
    }
    s.objects.storage_listed = true;  // a scenario lacks what it does not list
    s.objects.namespaces_listed = true;
    if (const json::value* v = member(*sc, "podDisruptionBudgets")) {
      const JsonPath lp = sp->field("podDisruptionBudgets");
      const json::array* a = nullptr;
      TP_TRY(as_array(*v, lp, a));
      if (!a->empty()) {
        return value_error(
            lp, "disruption budgets in a scheduling scenario are not supported by tightpack yet");
      }
    }
    for (const auto& [key, kind] : kScenarioObjectKeys) {
      const json::value* v = member(*sc, key);
      if (!v) continue;
      const JsonPath lp = sp->field(key);
      const json::array* a = nullptr;
      TP_TRY(as_array(*v, lp, a));
      for (size_t i = 0; i < a->size(); ++i) {
        const JsonPath ip = lp.index(static_cast<int64_t>(i));
        bool decoded = false;
        if (auto st = decode_api_object(kind, (*a)[i], ip, s.objects, decoded); !st)
          return st.error();
        if (!decoded) return value_error(ip, "not a " + std::string(kind));
      }
    }
    for (const char* key : {"nodes", "pods", "incoming"}) {
      const json::value* v = member(*sc, key);
      if (!v) continue;
      JsonPath lp = sp->field(key);
      const json::array* a = nullptr;
      TP_TRY(as_array(*v, lp, a));
      for (size_t i = 0; i < a->size(); ++i) {
        JsonPath ip = lp.index(static_cast<int64_t>(i));
        if (key == std::string_view("nodes")) {
          auto node = decode_node((*a)[i], ip);
          if (!node) return node.error();
          s.nodes.push_back(std::move(*node));
          continue;
        }
        auto pod = decode_pod((*a)[i], ip);
        if (!pod) return pod.error();
        if (key == std::string_view("pods")) {
          s.pods.push_back(std::move(*pod));
          continue;
        }
        if (s.incoming.size() > kMaxIncomingPods) {
          return value_error(ip, "more than " + std::to_string(kMaxIncomingPods) +
                                     " incoming pods in one scenario (replicas included)");
        }
        int64_t replicas = -1;
        const json::object* po = nullptr;
        TP_TRY(as_object((*a)[i], ip, po));
        TP_TRY(read_int(*po, "replicas", ip, replicas));
        if (replicas < -1 || replicas > 1000000) {
          return value_error(ip.field("replicas"), "replicas " + std::to_string(replicas) +
                                                       " not in valid range [0, 1000000]");
        }
        if (replicas == -1) {
          s.incoming.push_back(std::move(*pod));
          continue;
        }
        if (s.incoming.size() + static_cast<size_t>(replicas) > kMaxIncomingPods) {
          return value_error(ip.field("replicas"),
                             "more than " + std::to_string(kMaxIncomingPods) +
                                 " incoming pods in one scenario (replicas included)");
        }
        for (int64_t r = 0; r < replicas; ++r) {
          Pod copy = *pod;
          copy.name = pod->name + "-" + std::to_string(r);
          s.incoming.push_back(std::move(copy));
        }
      }
    }
    return std::nullopt;
  };
  if (auto fail = run()) return *fail;
  return s;
}

json::object encode_decision(const PodPlan& plan, const Cluster& c, const Decision& d) {
  json::object r;
  r["pod"] = d.pod;
  if (!d.error.empty()) {
    r["error"] = d.error;
    return r;
  }
  if (c.size() > 0) {
    json::object filter, filter_plugin;
    for (size_t j = 0; j < d.filtered.size(); ++j) {
      NodeIndex n = d.filtered[j];
      const NodeStatus& s = d.statuses[j];
      if (s.ok()) {
        filter[c.name(n)] = "ok";
        continue;
      }
      json::array reasons;
      for (const auto& reason : plan.reasons(c, n, s)) reasons.emplace_back(reason);
      filter[c.name(n)] = std::move(reasons);
      filter_plugin[c.name(n)] = s.plugin == Plugin::kCount ? "" : plugin_name(s.plugin);
    }
    r["filter"] = std::move(filter);
    if (!filter_plugin.empty()) r["filterPlugin"] = std::move(filter_plugin);
    json::object scores;
    for (size_t j = 0; j < d.feasible.size(); ++j) {
      json::object row;
      for (size_t k = 0; k < kScorePlugins.size(); ++k) {
        if (d.scoring[k]) {
          row[plugin_name(kScorePlugins[k])] = d.scores[j].weighted[k];
        }
      }
      row["total"] = d.scores[j].total;
      scores[c.name(d.feasible[j])] = std::move(row);
    }
    r["scores"] = std::move(scores);
  }
  r["feasible"] = d.feasible.size();
  r["scored"] = d.feasible.size() > 1;
  json::array top;
  for (NodeIndex n : d.top) top.emplace_back(c.name(n));
  r["top"] = std::move(top);
  if (d.chosen) {
    r["chosen"] = c.name(*d.chosen);
  } else {
    r["chosen"] = nullptr;
  }
  if (!d.message.empty()) r["message"] = d.message;
  return r;
}

json::value run_scenario(const Scenario& s) {
  json::object out;
  json::object profile = encode_profile(s.profile).as_object();
  profile["name"] = s.profile_name;
  out["profile"] = std::move(profile);
  auto cluster = Cluster::build(s.nodes, s.pods, s.objects);
  if (!cluster) return json::object{{"error", cluster.error().what()}};
  json::array results;
  for (const Pod& pod : s.incoming) {
    auto plan = PodPlan::make(*cluster, s.profile, pod);
    if (!plan) {
      results.push_back(json::object{{"pod", pod.key()}, {"error", plan.error().what()}});
      continue;
    }
    PlanScratch scratch;
    Decision d = decide(*plan, *cluster, scratch);
    results.push_back(encode_decision(*plan, *cluster, d));
    if (d.chosen) cluster->place(*d.chosen, plan->bound(pod.key()));
  }
  out["results"] = std::move(results);
  return out;
}

std::string replay_text(std::string_view text) {
  auto doc = parse_json(text);
  if (!doc) return json::serialize(json::object{{"error", doc.error().what()}});
  auto scenario = decode_scenario(*doc);
  if (!scenario) return json::serialize(json::object{{"error", scenario.error().what()}});
  return json::serialize(run_scenario(*scenario));
}

}  // namespace tightpack
