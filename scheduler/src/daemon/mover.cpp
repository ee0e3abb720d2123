#include "daemon/mover.hpp"

#include <algorithm>
#include <set>

#include "daemon/dask_operator_api.hpp"
#include "log.hpp"

namespace tightpack::daemon {

namespace {

constexpr const char* kGroupLabel = "dask.org/workergroup-name";
constexpr const char* kClusterLabel = "dask.org/cluster-name";
constexpr const char* kGatewayClusterLabel = "gateway.dask.org/cluster";

std::string label(const autoscaler::CaPod& p, const char* key) {
  const std::string* v = find_label(p.pod.labels, key);
  return v ? *v : std::string();
}

// The Dask cluster a worker belongs to (the operator's or dask-gateway's),
// empty for any other pod.
std::string cluster_of(const autoscaler::CaPod& p) {
  std::string name = label(p, kClusterLabel);
  return name.empty() ? label(p, kGatewayClusterLabel) : name;
}

// The set of workers one move resizes: an operator worker group, or a whole
// dask-gateway cluster.
std::string worker_set_of(const autoscaler::CaPod& p) {
  const std::string group = label(p, kGroupLabel);
  if (!group.empty()) return p.pod.ns + "/" + group;
  const std::string gateway = label(p, kGatewayClusterLabel);
  return gateway.empty() ? std::string() : p.pod.ns + "/gateway:" + gateway;
}

}  // namespace

Mover::Mover(MoverOptions options, Scheduler& scheduler,
             std::shared_ptr<const kube::ClientConfig> client,
             std::shared_ptr<kube::RateLimiter> limiter, Metrics& metrics)
    : options_(std::move(options)),
      scheduler_(scheduler),
      metrics_(metrics),
      api_(std::move(client), std::move(limiter)) {}

Mover::~Mover() {
  stop();
}

void Mover::set_write_fence(std::function<Clock::time_point()> valid_until) {
  valid_until_ = std::move(valid_until);
}

void Mover::start() {
  thread_ = std::thread([this] { loop(); });
}

void Mover::set_active(bool active) {
  {
    std::lock_guard lock(m_);
    active_ = active;
  }
  cv_.notify_all();
}

void Mover::stop() {
  {
    std::lock_guard lock(m_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  api_.cancel();
  if (thread_.joinable()) thread_.join();
}

void Mover::loop() {
  std::unique_lock lock(m_);
  while (!stopping_) {
    cv_.wait_for(lock, options_.tick, [&] { return stopping_; });
    if (stopping_ || !active_ || !scheduler_.synced()) continue;
    lock.unlock();
    if (!recovered_) {
      recover();
      recovered_ = true;
    }
    // A pod waiting for room gives an emptying node back, once it has waited
    // a whole tick: a pod between two attempts while the cluster changes
    // (a binding in flight, a node just added) does not undo a move.
    const auto now = Clock::now();
    if (moves_.empty() || scheduler_.unschedulable_pods() == 0) {
      room_wanted_since_.reset();
    } else if (!room_wanted_since_) {
      room_wanted_since_ = now;
    }
    const bool room_wanted = room_wanted_since_ && now - *room_wanted_since_ >= options_.tick;
    for (auto it = moves_.begin(); it != moves_.end();) {
      Move& move = it->second;
      ++it;  // advance() may end the move
      advance(move, room_wanted);
    }
    if (Clock::now() >= next_plan_) {
      next_plan_ = Clock::now() + options_.interval;
      plan();
    }
    metrics_.moves_in_flight(moves_.size());
    lock.lock();
  }
}

void Mover::close_nodes() {
  std::set<std::string> nodes;
  for (const auto& [key, move] : moves_) nodes.insert(move.state.node);
  scheduler_.set_closed(std::move(nodes));
}

void Mover::end(Move move, bool done, const std::string& why) {
  if (move.gateway) {
    scheduler_.move_board().set_replacing(move.key(), move.state.node, 0);
  } else {
    write_state(move, true);
  }
  scheduler_.move_board().set_emptying(move.key(), {});
  rested_until_[move.key()] = Clock::now() + options_.cooldown;
  const std::string key = move.key();
  const bool held = moves_.erase(key) > 0;
  if (held) close_nodes();
  metrics_.move_ended(done);
  if (done) {
    log_info("move: " + key + " moved off " + move.state.node + ": " + why);
  } else {
    log_info("move: " + key + " off " + move.state.node + " abandoned: " + why);
  }
}

void Mover::advance(Move& move, bool room_wanted) {
  const std::string& node = move.state.node;
  const auto workers = scheduler_.group_workers(
      move.ns, move.gateway ? move.cluster : move.state.worker_group, node, move.gateway);
  MoveObserved seen;
  seen.running_elsewhere = workers.running_elsewhere;
  seen.on_node = workers.on_node;
  seen.room_wanted = room_wanted;
  std::optional<Group> group;  // the operator's worker group, as read now
  if (move.gateway) {
    const PreloadReport report = scheduler_.move_board().report(move.key());
    seen.drained = report.drained.contains(node);
    // The count is the preload's to hold: what it says stands for the size the
    // operator path reads from the worker group.
    seen.replicas = move.state.phase == MovePhase::Breaking ? move.state.from : move.state.to;
    if (move.state.phase != MovePhase::Breaking) {
      const bool raised = report.raised.contains(node);
      if (raised) move.acknowledged = true;
      if (move.acknowledged && !raised) {
        end(move, false, "its worker count was set meanwhile (its user's scale or adapt)");
        return;
      }
      if (report.refused.contains(node)) {
        end(move, false, "its Dask scheduler made no replacements (its log says why)");
        return;
      }
    }
  } else {
    bool gone = false;
    group = get_group(move.ns, move.state.worker_group, gone);
    if (!group && !gone) return;  // not readable now: next tick
    if (group) seen.replicas = group->replicas;
    seen.drained = scheduler_.move_board().drained(move.key(), node);
  }
  const MoveStep step = next_move_step(move.state, seen, unix_now(), options_.timeouts);
  switch (step.action) {
    case MoveAction::Wait:
      return;
    case MoveAction::Drain:
      move.state.phase = MovePhase::Draining;
      move.state.since = unix_now();
      if (!move.gateway) write_state(move, false);
      scheduler_.move_board().set_emptying(move.key(), {node});
      log_info("move: " + move.key() + ": " + step.why + "; draining its workers on " + node);
      return;
    case MoveAction::Lower:
      if (move.gateway) {
        // No longer answered `replace`: its preload lowers the count, and its
        // heartbeat retires the drained workers first.
        scheduler_.move_board().set_replacing(move.key(), node, 0);
      } else if (!set_replicas(move.ns, move.state.worker_group, *group, move.state.from)) {
        return;
      }
      move.state.phase = MovePhase::Breaking;
      move.state.since = unix_now();
      if (move.gateway) {
        log_info("move: " + move.key() + ": " + step.why + "; its worker count back to " +
                 std::to_string(move.state.from) + " by its Dask scheduler");
      } else {
        write_state(move, false);
        log_info("move: " + move.key() + ": " + step.why + "; " + move.state.worker_group +
                 " back to " + std::to_string(move.state.from));
      }
      return;
    case MoveAction::Done:
      end(move, true, step.why);
      return;
    case MoveAction::AbandonLower:
      // The emptying node is withdrawn first: the cluster's retirement then
      // chooses among all the workers by Dask's own rules. A gateway
      // cluster's preload lowers its count once end() withdraws `replace`.
      if (!move.gateway) {
        scheduler_.move_board().set_emptying(move.key(), {});
        set_replicas(move.ns, move.state.worker_group, *group, move.state.from);
      }
      end(move, false, step.why);
      return;
    case MoveAction::Abandon:
      end(move, false, step.why);
      return;
  }
}

void Mover::plan() {
  if (moves_.size() >= options_.max_moves) return;
  const auto now = Clock::now();
  std::erase_if(rested_until_, [&](const auto& rest) { return rest.second <= now; });
  auto eligible = [&](const std::string& cluster_key) {
    if (moves_.contains(cluster_key) || rested_until_.contains(cluster_key)) return false;
    auto asked = scheduler_.move_board().last_asked(cluster_key);
    // A dask-gateway cluster that adapts would undo a raise within seconds.
    return asked && now - *asked <= options_.asked_within &&
           !scheduler_.move_board().adaptive(cluster_key);
  };
  // The copy of the cache holds the decisions' lock: not taken while no
  // cluster could move.
  const std::vector<std::string> asked =
      scheduler_.move_board().asked_since(now - options_.asked_within);
  if (std::none_of(asked.begin(), asked.end(), eligible)) return;
  auto scenario = scheduler_.autoscale_scenario();
  if (!scenario) return;
  // Nodes with workers of two groups: a move raises one group.
  std::map<std::string, std::set<std::string>> groups_on;
  for (const autoscaler::CaPod& p : scenario->pods) {
    if (packing::movable_dask_worker(p, false) && !worker_set_of(p).empty()) {
      groups_on[p.pod.node_name].insert(worker_set_of(p));
    }
  }
  std::set<std::string> closed;
  for (const auto& [key, move] : moves_) closed.insert(move.state.node);
  for (const Profile& profile : scheduler_.profiles().profiles) {
    if (moves_.size() >= options_.max_moves) break;
    auto movable = [&](const autoscaler::CaPod& p) {
      const std::string& name =
          p.pod.scheduler_name.empty() ? std::string("default-scheduler") : p.pod.scheduler_name;
      return name == profile.scheduler_name && packing::movable_dask_worker(p, false) &&
             !worker_set_of(p).empty() && !cluster_of(p).empty() &&
             groups_on[p.pod.node_name].size() == 1 && eligible(p.pod.ns + "/" + cluster_of(p));
    };
    packing::MoveRules rules;
    rules.max_moves = options_.max_moves - moves_.size();
    rules.max_use_percent = options_.max_use_percent;
    rules.workload_of = [](const autoscaler::CaPod& p) { return p.pod.ns + "/" + cluster_of(p); };
    rules.closed = closed;
    auto planned = packing::plan_scenario_moves(*scenario, profile, movable, rules);
    if (!planned) {
      log_warning("move: planning failed: " + std::string(planned.error().what()));
      return;
    }
    for (const packing::ScenarioMove& m : *planned) {
      begin(m, *scenario);
      closed.insert(m.node);
    }
  }
}

void Mover::begin(const packing::ScenarioMove& planned, const autoscaler::AutoscaleScenario& s) {
  if (planned.pods.empty()) return;
  // The pods' labels name the cluster and group; all of one group (plan()).
  const std::string& first = planned.pods.front().first;
  const std::string ns = first.substr(0, first.find('/'));
  std::string cluster, group;
  bool gateway = false;
  for (const autoscaler::CaPod& p : s.pods) {
    if (p.pod.key() == first) {
      cluster = cluster_of(p);
      group = label(p, kGroupLabel);
      gateway = group.empty();
      break;
    }
  }
  if (cluster.empty()) return;
  Move move{ns, cluster, {}};
  const auto k = static_cast<int64_t>(planned.pods.size());
  std::string targets;
  for (const auto& [pod, to] : planned.pods) targets += (targets.empty() ? "" : ", ") + to;
  if (gateway) {
    // Its preload raises the count when it reads `replace`, and refuses
    // (the cluster adapts or is still scaling) in its next question.
    move.gateway = true;
    const auto workers = scheduler_.group_workers(ns, cluster, planned.node, /*gateway=*/true);
    move.state =
        MoveState{"",         planned.node,     workers.all, workers.all + k, MovePhase::Making,
                  unix_now(), options_.identity};
    moves_[move.key()] = move;
    scheduler_.move_board().set_replacing(move.key(), planned.node, k);
    close_nodes();
    metrics_.move_started();
    log_info("move: " + move.key() + " off " + planned.node + ": its Dask scheduler asked for " +
             std::to_string(k) + " more dask-gateway worker(s), planned on " + targets);
    return;
  }
  // An adaptive cluster's own autoscaler would undo the raise within seconds;
  // a cluster that may be adaptive is not moved either.
  const std::optional<bool> adaptive = exists(dask_path("daskautoscalers", ns, cluster));
  if (adaptive != false) {
    rested_until_[move.key()] = Clock::now() + options_.cooldown;
    log_info("move: " + move.key() + " not moved off " + planned.node + ": " +
             (adaptive ? "it has a DaskAutoscaler, which would undo the raise"
                       : "whether it has a DaskAutoscaler is not known"));
    return;
  }
  bool gone = false;
  auto seen = get_group(ns, group, gone);
  if (!seen) return;
  // A group still growing or shrinking is left alone.
  const auto workers = scheduler_.group_workers(ns, group, planned.node);
  if (workers.all != seen->replicas) return;
  move.state =
      MoveState{group,      planned.node,     seen->replicas, seen->replicas + k, MovePhase::Making,
                unix_now(), options_.identity};
  if (!write_state(move, false)) return;
  if (!set_replicas(ns, group, *seen, move.state.to)) {
    write_state(move, true);
    return;
  }
  moves_[move.key()] = move;
  close_nodes();
  metrics_.move_started();
  log_info("move: " + move.key() + " off " + planned.node + ": " + ns + "/" + group + " raised " +
           std::to_string(move.state.from) + " -> " + std::to_string(move.state.to) +
           ", replacements planned on " + targets);
}

}  // namespace tightpack::daemon
