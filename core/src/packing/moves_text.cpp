// `tightpack moves`: the planner on a cluster-autoscaler scenario, as JSON,
// the interface the conformance test asks beside cluster-autoscaler's own
// loop.
#include <boost/json.hpp>
#include <optional>
#include <string>

#include "tightpack/advice/intent.hpp"
#include "tightpack/built_in_profiles.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/json_path.hpp"
#include "tightpack/packing/moves.hpp"

namespace tightpack::packing {
namespace {

namespace json = boost::json;

struct MovesQuestion {
  std::string profile = "tightpack";
  MoveRules rules;
  bool all_workers = false;
};

Result<MovesQuestion> decode_question(const json::value* v) {
  MovesQuestion q;
  if (!v) return q;
  if (!v->is_object()) return Error{"$.moves", json::serialize(*v) + " is not an object"};
  for (const auto& [key, value] : v->as_object()) {
    const std::string path = "$.moves." + std::string(key);
    if (key == "profile") {
      if (!value.is_string()) return Error{path, json::serialize(value) + " is not a string"};
      q.profile = std::string(value.as_string());
    } else if (key == "maxMoves" || key == "maxUsePercent") {
      if (!value.is_int64() || value.as_int64() < 0 ||
          (key == "maxUsePercent" && value.as_int64() > 100)) {
        return Error{path, json::serialize(value) + (key == "maxMoves"
                                                         ? " is not a whole number, 0 or more"
                                                         : " is not a whole number from 0 to 100")};
      }
      if (key == "maxMoves") {
        q.rules.max_moves = static_cast<size_t>(value.as_int64());
      } else {
        q.rules.max_use_percent = value.as_int64();
      }
    } else if (key == "workers") {
      const json::string* w = value.if_string();
      if (!w || (*w != "opted-in" && *w != "all")) {
        return Error{path, json::serialize(value) + " is not one of \"opted-in\", \"all\""};
      }
      q.all_workers = *w == "all";
    } else {
      return Error{path, "unknown field " + quote_value(key) +
                             " (known: profile, maxMoves, maxUsePercent, workers)"};
    }
  }
  return q;
}

json::value error_document(const Error& e) {
  return json::object{{"error", e.what()}};
}

}  // namespace

bool movable_dask_worker(const autoscaler::CaPod& p, bool all) {
  if (advice::pod_kind(p.pod) != advice::PodKind::kDaskWorker) return false;
  if (all) return true;
  const std::string* opted = find_label(p.pod.labels, kMoveLabel);
  return opted && *opted == "true";
}

std::string moves_text(std::string_view text) {
  auto doc = parse_json(text);
  if (!doc) return json::serialize(error_document(doc.error()));
  // The question leaves the document, which the scenario decoder then reads
  // (it refuses keys it does not know), without a copy of the whole.
  std::optional<json::value> question;
  if (json::object* o = doc->if_object()) {
    if (auto it = o->find("moves"); it != o->end()) {
      question = std::move(it->value());
      o->erase(it);
    }
  }
  auto q = decode_question(question ? &*question : nullptr);
  if (!q) return json::serialize(error_document(q.error()));
  const JsonPath root;
  const JsonPath moves_path = root.field("moves");
  auto profile = built_in_profile(q->profile, moves_path.field("profile"));
  if (!profile) return json::serialize(error_document(profile.error()));
  auto scenario = autoscaler::decode_autoscale_scenario(*doc);
  if (!scenario) return json::serialize(error_document(scenario.error()));
  const bool all = q->all_workers;
  auto moves = plan_scenario_moves(
      *scenario, *profile,
      [all](const autoscaler::CaPod& p) { return movable_dask_worker(p, all); }, q->rules);
  if (!moves) return json::serialize(error_document(moves.error()));
  json::array out;
  for (const ScenarioMove& m : *moves) {
    json::array pods;
    for (const auto& [pod, to] : m.pods) pods.push_back(json::object{{"pod", pod}, {"to", to}});
    out.push_back(json::object{{"node", m.node}, {"pods", std::move(pods)}});
  }
  return json::serialize(json::object{{"moves", std::move(out)},
                                      {"pending", static_cast<int64_t>(scenario->pending.size())}});
}

}  // namespace tightpack::packing
