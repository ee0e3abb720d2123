#include "tightpack/packing/moves.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "autoscaler/run.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/pod_resources.hpp"

namespace tightpack::packing {
namespace {

// Nothing more goes to node n of `c` (as a cordon reads to the scheduler).
bool close_node(Cluster& c, NodeIndex n) {
  Node node = c.node(n);
  node.unschedulable = true;
  return c.update_node(n, std::move(node));
}

// The cpu a pod asks for, as NodeResourcesFit counts it.
int64_t cpu_of(const Pod& pod) {
  const ResourceList requests = pod_requests(pod, false);
  const int64_t* cpu = find_resource(requests, "cpu");
  return cpu ? *cpu : 0;
}

// Whether a node other than `candidate` and the closed ones has the cpu and
// memory `pod` asks for free in `c`. Without one NodeResourcesFit refuses the
// pod everywhere, so the candidate is skipped before its trial copies the
// cluster (a pool of 5,000 nodes with a 4-cpu worker each took 12 s).
bool room_somewhere(const Cluster& c, const Pod& pod, const std::vector<uint8_t>& closed,
                    NodeIndex candidate) {
  const ResourceList requests = pod_requests(pod, false);
  const int64_t* cpu = find_resource(requests, "cpu");
  const int64_t* memory = find_resource(requests, "memory");
  const int64_t want_cpu = cpu ? *cpu : 0, want_memory = memory ? *memory : 0;
  for (NodeIndex n = 0; n < c.size(); ++n) {
    if (n == candidate || closed[n]) continue;
    if (want_cpu <= c.alloc_cpu()[n] - c.req_cpu()[n] &&
        want_memory <= c.alloc_memory()[n] - c.req_memory()[n]) {
      return true;
    }
  }
  return false;
}

struct Candidates {
  std::vector<MoveCandidate> moves;
  std::vector<std::vector<const autoscaler::CaPod*>> pods;  // aligned with moves
};

// Nodes of a node group whose every pod but DaemonSet and mirror pods is
// movable, in the order to try them; `refused` left out.
Candidates candidates(const autoscaler::AutoscaleScenario& s, const Cluster& cluster,
                      const std::function<bool(const autoscaler::CaPod&)>& movable,
                      const MoveRules& rules, const std::set<std::string>& refused) {
  std::set<std::string> grouped;
  for (const autoscaler::NodeGroupSpec& g : s.groups)
    grouped.insert(g.nodes.begin(), g.nodes.end());
  std::map<std::string, std::vector<const autoscaler::CaPod*>> on_node;
  std::set<std::string> kept;
  for (const autoscaler::CaPod& p : s.pods) {
    if (p.daemon_set || p.mirror) continue;
    if (movable(p)) {
      on_node[p.pod.node_name].push_back(&p);
    } else {
      kept.insert(p.pod.node_name);
    }
  }
  std::vector<std::pair<size_t, std::string>> order;  // (pods, node)
  for (const autoscaler::CaNode& n : s.nodes) {
    const std::string& name = n.node.name;
    auto it = on_node.find(name);
    if (it == on_node.end() || kept.contains(name) || refused.contains(name) ||
        rules.closed.contains(name) || !grouped.contains(name) || n.scale_down_disabled) {
      continue;
    }
    const NodeIndex index = cluster.find(name);
    if (index >= cluster.size()) continue;
    // Wide: requests are whatever users write (a pod may ask for 2^62).
    __int128 cpu = 0;
    for (const autoscaler::CaPod* p : it->second) cpu += cpu_of(p->pod);
    if (100 * cpu > __int128{rules.max_use_percent} * cluster.alloc_cpu()[index]) continue;
    order.emplace_back(it->second.size(), name);
  }
  std::sort(order.begin(), order.end());
  Candidates c;
  std::set<std::string> moving;  // workloads of the candidates taken
  for (const auto& [count, name] : order) {
    if (rules.workload_of) {
      std::set<std::string> mine;
      for (const autoscaler::CaPod* p : on_node[name]) mine.insert(rules.workload_of(*p));
      if (std::any_of(mine.begin(), mine.end(),
                      [&](const std::string& w) { return moving.contains(w); })) {
        continue;
      }
      moving.insert(mine.begin(), mine.end());
    }
    MoveCandidate m{cluster.find(name), {}};
    for (const autoscaler::CaPod* p : on_node[name]) m.movable.push_back(&p->pod);
    c.moves.push_back(std::move(m));
    c.pods.push_back(on_node[name]);
  }
  return c;
}

}  // namespace

Result<std::vector<PlannedMove>> plan_moves(const Cluster& cluster, const Profile& profile,
                                            const std::vector<MoveCandidate>& candidates,
                                            size_t max_moves) {
  std::vector<PlannedMove> planned;
  std::vector<uint8_t> receives(cluster.size(), 0);
  // Closed nodes (cordoned, or being emptied): a pod that tolerates every
  // taint (operator Exists without a key) passes NodeUnschedulable, so a
  // choice of one is refused here too.
  std::vector<uint8_t> closed(cluster.size(), 0);
  for (NodeIndex n = 0; n < cluster.size(); ++n) closed[n] = cluster.node(n).unschedulable;
  Cluster after = cluster;  // with the planned moves made
  const bool checks_fit = profile.filter_enabled(Plugin::NodeResourcesFit);
  for (const MoveCandidate& candidate : candidates) {
    if (planned.size() >= max_moves) break;
    if (candidate.node >= cluster.size() || receives[candidate.node] || candidate.movable.empty()) {
      continue;
    }
    if (checks_fit &&
        std::any_of(candidate.movable.begin(), candidate.movable.end(), [&](const Pod* p) {
          return !room_somewhere(after, *p, closed, candidate.node);
        })) {
      continue;
    }
    Cluster trial = after;
    if (!close_node(trial, candidate.node)) continue;
    PlannedMove move{candidate.node, {}};
    for (size_t i = 0; i < candidate.movable.size(); ++i) {
      Pod replacement = *candidate.movable[i];
      replacement.node_name.clear();
      replacement.name += "-moved";
      auto plan = PodPlan::make(trial, profile, replacement);
      if (!plan) return plan.error();
      PlanScratch scratch;
      const Decision d = decide(*plan, trial, scratch);
      if (!d.chosen || *d.chosen == candidate.node || closed[*d.chosen]) break;
      trial.place(*d.chosen, plan->bound(replacement.key()));
      move.targets.push_back(*d.chosen);
    }
    if (move.targets.size() != candidate.movable.size()) continue;
    for (NodeIndex t : move.targets) receives[t] = 1;
    closed[candidate.node] = 1;
    after = std::move(trial);
    planned.push_back(std::move(move));
  }
  return planned;
}

autoscaler::AutoscaleScenario after_moves(const autoscaler::AutoscaleScenario& s,
                                          const std::vector<ScenarioMove>& moves) {
  std::map<std::string, std::string> to;  // pod key → its replacement's node
  for (const ScenarioMove& m : moves) {
    for (const auto& [pod, target] : m.pods) to[pod] = target;
  }
  autoscaler::AutoscaleScenario after = s;
  std::set<std::string> taken;  // a replacement's name is no other pod's
  for (const autoscaler::CaPod& p : s.pods) taken.insert(p.pod.key());
  std::vector<autoscaler::CaPod> replacements;
  std::erase_if(after.pods, [&](const autoscaler::CaPod& p) {
    auto it = to.find(p.pod.key());
    if (it == to.end()) return false;
    autoscaler::CaPod r = p;
    const std::string base = p.pod.name + "-moved";
    r.pod.name = base;
    for (int i = 2; taken.contains(r.pod.key()); ++i) r.pod.name = base + "-" + std::to_string(i);
    taken.insert(r.pod.key());
    r.pod.node_name = it->second;
    replacements.push_back(std::move(r));
    return true;
  });
  for (autoscaler::CaPod& r : replacements) after.pods.push_back(std::move(r));
  return after;
}

Result<std::vector<ScenarioMove>> plan_scenario_moves(
    const autoscaler::AutoscaleScenario& s, const Profile& profile,
    const std::function<bool(const autoscaler::CaPod&)>& movable, const MoveRules& rules) {
  if (!s.pending.empty()) return std::vector<ScenarioMove>{};
  std::vector<Node> nodes;
  for (const autoscaler::CaNode& n : s.nodes) {
    nodes.push_back(n.node);
    if (rules.closed.contains(n.node.name)) nodes.back().unschedulable = true;
  }
  std::vector<const Pod*> pods;
  for (const autoscaler::CaPod& p : s.pods) pods.push_back(&p.pod);
  auto cluster = Cluster::build_from(std::move(nodes), pods, s.objects);
  if (!cluster) return cluster.error();
  autoscaler::RunRecord sizes;
  for (const autoscaler::NodeGroupSpec& g : s.groups) {
    sizes.target_sizes.push_back(g.target_size.value_or(static_cast<int64_t>(g.nodes.size())));
  }
  // Plan, confirm, and plan again without the nodes cluster-autoscaler would
  // keep: each round refuses at least one node or ends.
  std::set<std::string> refused;
  bool removed_anyway_closed = false;
  for (;;) {
    const Candidates c = candidates(s, *cluster, movable, rules, refused);
    auto planned = plan_moves(*cluster, profile, c.moves, rules.max_moves);
    if (!planned) return planned.error();
    std::vector<ScenarioMove> moves;
    for (const PlannedMove& pm : *planned) {
      const size_t i = static_cast<size_t>(
          std::find_if(c.moves.begin(), c.moves.end(),
                       [&](const MoveCandidate& m) { return m.node == pm.node; }) -
          c.moves.begin());
      ScenarioMove m{cluster->name(pm.node), {}};
      for (size_t k = 0; k < pm.targets.size(); ++k) {
        m.pods.emplace_back(c.pods[i][k]->pod.key(), cluster->name(pm.targets[k]));
      }
      moves.push_back(std::move(m));
    }
    if (moves.empty()) return moves;
    // An empty node cluster-autoscaler removes without any move takes no
    // replacement: a move onto it saves no node, it only trades which node
    // goes and starts the unneeded time anew. (A node it would remove by
    // evicting pods may take one: filling it spares them.) Asked once, when
    // there is a plan to check.
    if (!removed_anyway_closed) {
      removed_anyway_closed = true;
      auto before = autoscaler::run_scale_down(s, autoscaler::ca_profile(), sizes);
      if (!before) return before.error();
      std::set<std::string> occupied;
      for (const autoscaler::CaPod& p : s.pods) {
        if (!p.daemon_set && !p.mirror) occupied.insert(p.pod.node_name);
      }
      bool closed_any = false;
      for (const std::string& name : before->unneeded) {
        if (occupied.contains(name)) continue;
        const NodeIndex n = cluster->find(name);
        if (n < cluster->size() && !cluster->node(n).unschedulable) {
          closed_any = close_node(*cluster, n) || closed_any;
        }
      }
      if (closed_any) continue;
    }
    autoscaler::AutoscaleScenario after = after_moves(s, moves);
    after.scale_down = true;
    auto down = autoscaler::run_scale_down(after, autoscaler::ca_profile(), sizes);
    if (!down) return down.error();
    const std::set<std::string> unneeded(down->unneeded.begin(), down->unneeded.end());
    const size_t before = refused.size();
    for (const ScenarioMove& m : moves) {
      if (!unneeded.contains(m.node)) refused.insert(m.node);
    }
    if (refused.size() != before) continue;
    // cluster-autoscaler finds every node unneeded on its own, then deletes
    // no more of a group than its size above its min size: the moves beyond
    // that would empty nodes it keeps. Nodes unneeded without a move count
    // first.
    std::map<std::string, size_t> group_of;
    std::vector<int64_t> room(s.groups.size());
    for (size_t g = 0; g < s.groups.size(); ++g) {
      for (const std::string& n : s.groups[g].nodes) group_of[n] = g;
      room[g] = sizes.target_sizes[g] - s.groups[g].min_size;
    }
    std::set<std::string> emptied;
    for (const ScenarioMove& m : moves) emptied.insert(m.node);
    for (const std::string& n : down->unneeded) {
      if (auto g = group_of.find(n); g != group_of.end() && !emptied.contains(n)) --room[g->second];
    }
    std::erase_if(moves, [&](const ScenarioMove& m) { return --room[group_of.at(m.node)] < 0; });
    return moves;
  }
}

}  // namespace tightpack::packing
