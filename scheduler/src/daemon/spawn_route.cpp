#include "daemon/spawn_route.hpp"

#include <boost/json.hpp>
#include <chrono>
#include <mutex>

#include "daemon/json_answers.hpp"
#include "log.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/what_if/spawn_question.hpp"
#include "tightpack/what_if/what_if.hpp"

namespace tightpack::daemon {

namespace json = boost::json;

HttpAnswer spawn_answer(const HttpRequest& request, DelegatedAuth& auth, Scheduler& scheduler) {
  if (request.method != "POST") {
    return error_answer(405, "POST the question as JSON (docs/deploy.md, the spawn page)");
  }
  const auto started = std::chrono::steady_clock::now();
  auto doc = parse_json(request.body);
  if (!doc) return error_answer(400, "the question is not JSON: " + doc.error().what());
  auto question = decode_spawn_question(*doc);
  if (!question) return error_answer(400, question.error().what());
  const AuthDecision who =
      auth.check_resource(request.authorization, question->ns, "create", "pods");
  if (who.status != 200) {
    if (who.status == 503) log_warning("cannot authorize a spawn-page question: " + who.reason);
    return error_answer(who.status, who.reason);
  }
  if (!scheduler.synced()) return error_answer(503, "the watch cache has not synced yet");
  // One question at a time: each pod that fits no node costs cluster-
  // autoscaler's model on the whole cluster (bench/RESULTS.md), and whoever
  // may create pods in some namespace may ask. A question that waits longer
  // than kSpawnQueueWait is told to ask again; the hub draws the page without.
  static std::timed_mutex answering;
  std::unique_lock turn(answering, std::defer_lock);
  if (!turn.try_lock_for(kSpawnQueueWait)) {
    HttpAnswer busy = error_answer(429, "another spawn-page question is being answered: ask again");
    busy.retry_after = std::chrono::seconds(1);
    return busy;
  }

  pools::ClusterSnapshot snapshot = scheduler.cluster_snapshot();
  if (auto added = add_new_claims(snapshot, *question); !added) {
    return error_answer(400, added.error().what());
  }
  auto cluster = WhatIfCluster::from_snapshot(std::move(snapshot), JsonPath());
  if (!cluster)
    return error_answer(503, "the cluster cannot be judged now: " + cluster.error().what());
  // The pools cluster-autoscaler manages (--pools), else as the sidebar
  // infers them from the nodes' pool labels.
  cluster->use_pools(scheduler.pools_config() ? *scheduler.pools_config() : pools::PoolsConfig{});
  cluster->use_scheduler_configuration(scheduler.profiles());
  json::object answer = answer_spawn_question(*cluster, *question);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - started)
                      .count();
  log_info(
      "spawn page: " + std::to_string(question->choices.size()) + " pods for " +
      (question->user.empty() ? std::string("a user") : "user " + quote_value(question->user)) +
      " in " + question->ns + " answered in " + std::to_string(ms) + " ms");
  return json_answer(200, json::serialize(answer));
}

}  // namespace tightpack::daemon
