#include "tightpack/what_if/spawn_question.hpp"

#include <algorithm>
#include <boost/json.hpp>

#include "json_read.hpp"
#include "tightpack/what_if/outlook.hpp"
#include "tightpack/what_if/what_if.hpp"

namespace tightpack {
namespace json = boost::json;
using namespace json_read;

namespace {

// Puts `object` in `ns`: KubeSpawner's manifests name no namespace; one that
// names another is refused.
Fail place_in(json::value& object, const std::string& ns, const JsonPath& path) {
  json::object* o = object.if_object();
  if (!o) return type_error(path, "an object", object);
  json::value& metadata = (*o)["metadata"];
  if (metadata.is_null()) metadata = json::object{};
  json::object* m = metadata.if_object();
  const JsonPath mp = path.field("metadata");
  if (!m) return type_error(mp, "an object", metadata);
  if (const json::value* given = member(*m, "namespace")) {
    const json::string* s = given->if_string();
    if (!s) return type_error(mp.field("namespace"), "a string", *given);
    if (!s->empty() && *s != ns) {
      return value_error(mp.field("namespace"),
                         quote_value(*s) + " is not the question's namespace " + quote_value(ns));
    }
  }
  (*m)["namespace"] = ns;
  return std::nullopt;
}

}  // namespace

Result<SpawnQuestion> decode_spawn_question(const json::value& doc) {
  SpawnQuestion q;
  auto run = [&]() -> Fail {
    const JsonPath root;
    const json::object* o = nullptr;
    TP_TRY(as_object(doc, root, o));
    TP_TRY(only_known(*o, root, {"namespace", "user", "claims", "pods"}));
    TP_TRY(read_string(*o, "namespace", root, q.ns));
    if (q.ns.empty()) return value_error(root.field("namespace"), "is required");
    TP_TRY(read_string(*o, "user", root, q.user));
    if (const json::value* claims = member(*o, "claims")) {
      const JsonPath cp = root.field("claims");
      const json::array* a = nullptr;
      TP_TRY(as_array(*claims, cp, a));
      if (a->size() > kMaxSpawnClaims) {
        return value_error(
            cp, std::to_string(a->size()) + " claims; at most " + std::to_string(kMaxSpawnClaims));
      }
      for (size_t i = 0; i < a->size(); ++i) {
        const JsonPath ip = cp.index(static_cast<int64_t>(i));
        json::value claim = (*a)[i];
        TP_TRY(place_in(claim, q.ns, ip));
        json::object& c = claim.as_object();
        if (const json::value* kind = member(c, "kind"); kind && *kind != "PersistentVolumeClaim") {
          return value_error(ip.field("kind"),
                             "is not PersistentVolumeClaim: " + json::serialize(*kind));
        }
        c["apiVersion"] = "v1";
        c["kind"] = "PersistentVolumeClaim";
        q.claims.push_back(std::move(claim));
      }
    }
    const json::value* pods = member(*o, "pods");
    const JsonPath pp = root.field("pods");
    if (!pods) return value_error(pp, "is required");
    const json::array* a = nullptr;
    TP_TRY(as_array(*pods, pp, a));
    if (a->empty() || a->size() > kMaxSpawnChoices) {
      return value_error(
          pp, std::to_string(a->size()) + " pods; from 1 to " + std::to_string(kMaxSpawnChoices));
    }
    for (size_t i = 0; i < a->size(); ++i) {
      const JsonPath ip = pp.index(static_cast<int64_t>(i));
      const json::object* choice = nullptr;
      TP_TRY(as_object((*a)[i], ip, choice));
      TP_TRY(only_known(*choice, ip, {"id", "pod"}));
      SpawnQuestion::Choice c;
      TP_TRY(read_string(*choice, "id", ip, c.id));
      if (c.id.empty()) return value_error(ip.field("id"), "is required");
      for (const auto& earlier : q.choices) {
        if (earlier.id == c.id) return value_error(ip.field("id"), quote_value(c.id) + " twice");
      }
      const json::value* pod = member(*choice, "pod");
      if (!pod) return value_error(ip.field("pod"), "is required");
      c.pod = *pod;
      TP_TRY(place_in(c.pod, q.ns, ip.field("pod")));
      q.choices.push_back(std::move(c));
    }
    return std::nullopt;
  };
  if (auto fail = run()) return *fail;
  return q;
}

Status add_new_claims(pools::ClusterSnapshot& snapshot, const SpawnQuestion& question) {
  if (question.claims.empty()) return Ok{};
  // The one claim decoder: the snapshot's own.
  const JsonPath root;
  auto decoded = pools::decode_cluster_snapshot(
      json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", question.claims}},
      root.field("claims"));
  if (!decoded) return decoded.error();
  auto& claims = snapshot.objects.claims;
  for (PersistentVolumeClaim& claim : decoded->objects.claims) {
    const bool known = std::any_of(claims.begin(), claims.end(), [&](const auto& c) {
      return c.ns == claim.ns && c.name == claim.name;
    });
    if (!known) claims.push_back(std::move(claim));
  }
  snapshot.objects.storage_listed = true;
  return Ok{};
}

json::object answer_spawn_question(WhatIfCluster& cluster, const SpawnQuestion& question) {
  json::array answers;
  for (size_t i = 0; i < question.choices.size(); ++i) {
    const SpawnQuestion::Choice& choice = question.choices[i];
    const std::string where = "pods[" + std::to_string(i) + "].";
    auto fail = [&](const Error& e) {
      answers.push_back(json::object{{"id", choice.id}, {"error", where + e.what()}});
    };
    auto request =
        decode_what_if_request(json::object{{"pod", choice.pod}}, false, cluster.admission());
    if (!request) {
      fail(request.error());
      continue;
    }
    auto profile = cluster.profile("", request->pod);
    if (!profile) {
      fail(profile.error());
      continue;
    }
    auto placement = cluster.place(request->pod, 1, *profile);
    if (!placement) {
      fail(placement.error());
      continue;
    }
    answers.push_back(
        json::object{{"id", choice.id}, {"outlook", encode_outlook(outlook_of(*placement))}});
  }
  return json::object{{"answers", std::move(answers)}};
}

}  // namespace tightpack
