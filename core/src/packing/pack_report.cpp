// Replays a packing scenario under each profile. One Simulation per profile:
// the cluster, the pods on it, the queue of pods waiting, and with pools the
// autoscaler's upcoming nodes and unneeded timers.
#include "tightpack/packing/pack_report.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include "autoscaler/run.hpp"
#include "dask_retirement.hpp"
#include "pack_bounds.hpp"
#include "pod_addresses.hpp"
#include "tightpack/cluster.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/packing/moves.hpp"
#include "tightpack/pod_resources.hpp"

namespace tightpack::packing {
namespace json = boost::json;

namespace {

using autoscaler::CaNode;
using autoscaler::CaPod;

constexpr int64_t kTick = 60;                     // seconds between autoscaler runs here
constexpr int64_t kScaleDownDelayAfterAdd = 600;  // --scale-down-delay-after-add
constexpr size_t kMaxEmptyBulkDelete = 10;        // --max-empty-bulk-delete
// Consolidate::kMove (pack_report.hpp says why each).
constexpr int64_t kSettledAfter = 300;      // a workload's last start or scale
constexpr int64_t kEmptyingHeldFor = 1200;  // a node being emptied takes no pod
constexpr size_t kMovesPerTick = 4;

struct Upcoming {
  std::string pool;
  std::string name;
  int64_t ready_at = 0;
};

class Simulation {
 public:
  Simulation(const PackScenario& s, const Profile& profile, std::string profile_name)
      : s_(s), profile_(profile) {
    figures_.profile = std::move(profile_name);
    figures_.scheduler_name = profile.scheduler_name;
    nodes_ = s.cluster.nodes;
    for (const CaNode& n : nodes_) addresses_.join(n.node.name);
    for (const CaPod& p : s.cluster.pods) {
      bound_.push_back(p);
      if (p.daemon_set || p.mirror) system_.insert(p.pod.key());
    }
    config_ = s.pools.value_or(pools::PoolsConfig{});
    std::vector<Node> plain;
    for (const CaNode& n : nodes_) plain.push_back(n.node);
    resolved_ = pools::resolve_pools(config_, plain);
    for (const pools::NodePool& p : resolved_.pools) {
      for (const std::string& n : p.nodes) pool_of_[n] = p.name;
    }
  }

  Result<ProfileFigures> run() {
    std::set<int64_t> times{0, s_.end};
    for (const Event& e : s_.events) times.insert(e.at);
    if (s_.pools) {
      for (int64_t t = 0; t <= s_.end; t += kTick) times.insert(t);
    }
    if (auto st = rebuild(); !st) return st.error();
    size_t next_event = 0;
    for (auto it = times.begin(); it != times.end(); ++it) {
      const int64_t t = *it;
      while (next_event < s_.events.size() && s_.events[next_event].at <= t) {
        if (auto st = apply(s_.events[next_event]); !st) return st.error();
        ++next_event;
      }
      if (s_.pools && t % kTick == 0) {
        if (auto st = autoscale(t); !st) return st.error();
        if (s_.consolidate == Consolidate::kMove) {
          if (auto st = consolidate(t); !st) return st.error();
        }
      }
      if (auto st = drain_queue(); !st) return st.error();
      std::map<std::string, int64_t> busy_per_pool;
      const int64_t busy = busy_nodes(&busy_per_pool);
      figures_.peak_busy = std::max(figures_.peak_busy, busy);
      auto next = std::next(it);
      if (next == times.end() || *next > s_.end) break;
      const double hours = static_cast<double>(*next - t) / 3600.0;
      figures_.busy_node_hours += static_cast<double>(busy) * hours;
      figures_.pending_pod_hours += static_cast<double>(pending_.size()) * hours;
      for (const auto& [p, b] : busy_per_pool) busy_hours_[p] += static_cast<double>(b) * hours;
      figures_.node_hours += static_cast<double>(nodes_.size() + upcoming_.size()) * hours;
      for (const CaNode& n : nodes_) pool_hours_[pool_name(n.node.name)] += hours;
      for (const Upcoming& u : upcoming_) pool_hours_[u.pool] += hours;
      const PoolDemand need = demand();
      const PoolRoom& pool_room = room();
      for (const auto& [p, lb] : lower_bounds(need, pool_room)) {
        lower_hours_[p] += static_cast<double>(lb) * hours;
        figures_.lower_bound_node_hours += static_cast<double>(lb) * hours;
      }
      for (const auto& [p, bins] : repack_bounds(need, pool_room)) {
        repack_hours_[p] += static_cast<double>(bins) * hours;
        figures_.repack_node_hours += static_cast<double>(bins) * hours;
      }
    }
    finish();
    return figures_;
  }

 private:
  const std::string& pool_name(const std::string& node) const {
    static const std::string kNone = "(no pool)";
    auto it = pool_of_.find(node);
    return it == pool_of_.end() ? kNone : it->second;
  }

  Status rebuild() {
    std::vector<Node> nodes;
    std::vector<Pod> pods;
    for (const CaNode& n : nodes_) {
      nodes.push_back(n.node);
      // The scheduler sends nothing to a node being emptied; cluster-autoscaler
      // (ca_scenario) sees it as it is.
      if (emptying_.contains(n.node.name)) nodes.back().unschedulable = true;
    }
    for (const CaPod& p : bound_) pods.push_back(p.pod);
    auto c = Cluster::build(std::move(nodes), pods);
    if (!c) return c.error();
    cluster_.emplace(std::move(*c));
    plans_.clear();  // a plan belongs to one cluster's node indices
    return Ok{};
  }

  Result<PlanWithScratch*> plan_for(const CaPod& p) {
    const std::string& group = group_of_[p.pod.key()];
    auto it = plans_.find(group);
    if (it == plans_.end()) {
      auto plan = PodPlan::make(*cluster_, profile_, p.pod);
      if (!plan) return plan.error();
      it = plans_.emplace(group, PlanWithScratch{std::move(*plan), {}}).first;
    }
    return &it->second;
  }

  // Schedules what waits, first come first served. Replicas of one workload
  // are alike: once one fits nowhere, the rest of it waits too. A pod that
  // fits nowhere else takes back the node emptied by a move that the
  // scheduler would give it (as PyTorch's node-compactor lifts its taint for
  // pending pods): a move must never make a user wait for a new node. One
  // node at a time, and only one the pod would take: a GPU notebook that
  // waits for its pool undoes no move of the Dask workers' pool.
  Status drain_queue() {
    if (auto st = place_pending(); !st) return st;
    while (!pending_.empty()) {
      auto released = release_an_emptied_node();
      if (!released) return released.error();
      if (!*released) break;
      if (auto st = rebuild(); !st) return st;
      if (auto st = place_pending(); !st) return st;
    }
    return Ok{};
  }

  // The emptied node (its move done) the first waiting pod that fits one
  // would be bound to were the emptied nodes open; whether there was one.
  Result<bool> release_an_emptied_node() {
    std::vector<std::string> done;
    for (const auto& entry : emptying_) {
      if (std::none_of(moves_.begin(), moves_.end(),
                       [&](const Move& m) { return m.node == entry.first; })) {
        done.push_back(entry.first);
      }
    }
    if (done.empty()) return false;
    Cluster open = *cluster_;
    for (const std::string& name : done) {
      const NodeIndex n = open.find(name);
      if (n >= open.size()) continue;
      Node node = open.node(n);
      node.unschedulable = false;
      open.update_node(n, std::move(node));
    }
    std::set<std::string> tried;
    for (const CaPod& p : pending_) {
      if (!tried.insert(group_of_[p.pod.key()]).second) continue;
      auto plan = PodPlan::make(open, profile_, p.pod);
      if (!plan) return plan.error();
      PlanScratch scratch;
      const Decision d = decide(*plan, open, scratch);
      if (!d.chosen) continue;
      const std::string& name = open.name(*d.chosen);
      if (emptying_.erase(name) > 0) {
        ++figures_.emptied_taken_back;
        return true;
      }
    }
    return false;
  }

  Status place_pending() {
    std::deque<CaPod> still;
    std::set<std::string> stuck;
    while (!pending_.empty()) {
      CaPod p = std::move(pending_.front());
      pending_.pop_front();
      const std::string& group = group_of_[p.pod.key()];
      if (stuck.contains(group)) {
        still.push_back(std::move(p));
        continue;
      }
      auto plan = plan_for(p);
      if (!plan) return plan.error();
      Decision d = decide((*plan)->plan, *cluster_, (*plan)->scratch);
      if (!d.chosen) {
        stuck.insert(group);
        still.push_back(std::move(p));
        continue;
      }
      cluster_->place(*d.chosen, (*plan)->plan.bound(p.pod.key()));
      p.pod.node_name = cluster_->name(*d.chosen);
      addresses_.assign(p.pod.key(), p.pod.node_name);
      bound_.push_back(std::move(p));
    }
    pending_ = std::move(still);
    return Ok{};
  }

  void remove_pod(const std::string& key) {
    auto it = std::find_if(bound_.begin(), bound_.end(),
                           [&](const CaPod& p) { return p.pod.key() == key; });
    if (it != bound_.end()) {
      const NodeIndex n = cluster_->find(it->pod.node_name);
      if (n < cluster_->size()) {
        const auto& on = cluster_->pods_on(n);
        for (size_t i = 0; i < on.size(); ++i) {
          if (on[i].key == key) {
            cluster_->remove(n, {i});
            break;
          }
        }
      }
      addresses_.release(key, it->pod.node_name);
      bound_.erase(it);
      return;
    }
    std::erase_if(pending_, [&](const CaPod& p) { return p.pod.key() == key; });
  }

  Status apply(const Event& e) {
    if (auto st = abandon_move(e.group); !st) return st;
    if (e.kind != Event::Kind::kStop) last_change_[e.group] = e.at;
    std::vector<std::string>& keys = groups_[e.group];
    switch (e.kind) {
      case Event::Kind::kStart:
        plans_.erase(e.group);  // the workload may come back with another template
        templates_of_[e.group] = e.pod;
        for (int64_t i = 0; i < e.replicas; ++i) add_replica(e.group, e.pod);
        break;
      case Event::Kind::kStop:
        for (const std::string& k : keys) remove_pod(k);
        keys.clear();
        break;
      case Event::Kind::kScale:
        // Dask's adapt() retires workers, by the event's rule or the
        // scenario's, or asks for more of the workload's last template.
        if (static_cast<int64_t>(keys.size()) > e.replicas) {
          const size_t leave = keys.size() - static_cast<size_t>(e.replicas);
          for (const std::string& k : retiring_of(e.group, leave, e.retire.value_or(s_.retire))) {
            remove_pod(k);
            std::erase(keys, k);
          }
        }
        if (auto t = templates_of_.find(e.group); t != templates_of_.end()) {
          while (static_cast<int64_t>(keys.size()) < e.replicas) add_replica(e.group, t->second);
        }
        break;
    }
    return Ok{};
  }

  // A new replica of `group`, named <group>-<i> with the smallest i no
  // replica of it has now (the newest rule frees the highest, so replicas
  // come back under the names they had).
  void add_replica(const std::string& group, const CaPod& tmpl) {
    std::vector<std::string>& keys = groups_[group];
    CaPod p = tmpl;
    for (size_t i = 0;; ++i) {
      p.pod.name = group + "-" + std::to_string(i);
      if (std::find(keys.begin(), keys.end(), p.pod.key()) == keys.end()) break;
    }
    group_of_[p.pod.key()] = group;
    keys.push_back(p.pod.key());
    pending_.push_back(std::move(p));
  }

  // ------------------------------------------------------------ moves

  struct Move {
    std::set<std::string> groups;  // a node may hold workers of several workloads
    std::string node;
    std::vector<std::string> old_keys, new_keys;
    int64_t made_at = 0;
  };

  // The user changed the workload's size (or ended it) while its move was
  // in flight: the replacements go, the old workers stay, the node is no
  // longer emptied.
  Status abandon_move(const std::string& group) {
    auto m = std::find_if(moves_.begin(), moves_.end(),
                          [&](const Move& mv) { return mv.groups.contains(group); });
    if (m == moves_.end()) return Ok{};
    for (const std::string& k : m->new_keys) {
      remove_pod(k);
      std::erase(groups_[group_of_[k]], k);
    }
    emptying_.erase(m->node);
    moves_.erase(m);
    ++figures_.moves_abandoned;
    return rebuild();
  }

  Status consolidate(int64_t t) {
    bool changed = false;
    // Break: the replacements have joined; the old workers retire.
    for (const Move& m : moves_) {
      for (const std::string& k : m.old_keys) {
        if (t - last_change_[group_of_[k]] < kSettledAfter) ++figures_.tasks_interrupted;
        remove_pod(k);
        std::erase(groups_[group_of_[k]], k);
      }
      ++figures_.moves;
      figures_.workers_moved += static_cast<int64_t>(m.old_keys.size());
      figures_.move_overlap_worker_hours +=
          static_cast<double>(m.new_keys.size()) * static_cast<double>(t - m.made_at) / 3600.0;
      changed = true;
    }
    moves_.clear();
    changed |= std::erase_if(emptying_, [&](const auto& entry) {
                 return t - entry.second > kEmptyingHeldFor ||
                        std::none_of(nodes_.begin(), nodes_.end(),
                                     [&](const CaNode& n) { return n.node.name == entry.first; });
               }) > 0;
    if (changed) {
      if (auto st = rebuild(); !st) return st;
    }
    // Room is wanted now: nothing is emptied.
    if (!pending_.empty()) return Ok{};
    // Plan, with the planner the daemon runs: nodes whose every workload pod
    // is a settled worker, confirmed by cluster-autoscaler's scale-down.
    MoveRules rules;
    rules.max_moves = kMovesPerTick;
    rules.workload_of = [this](const CaPod& p) { return group_of_[p.pod.key()]; };
    for (const auto& entry : emptying_) rules.closed.insert(entry.first);
    const auto movable = [&](const CaPod& p) {
      auto g = group_of_.find(p.pod.key());
      return g != group_of_.end() && !p.controller_kind.empty() &&
             t - last_change_[g->second] >= kSettledAfter;
    };
    auto planned = plan_scenario_moves(ca_scenario(), profile_, movable, rules);
    if (!planned) return planned.error();
    if (planned->empty()) return Ok{};
    // Make: each worker's replacement, a new replica of its workload, bound
    // where the plan said.
    std::vector<std::pair<CaPod, std::string>> made;  // replacement, its group
    for (const ScenarioMove& pm : *planned) {
      Move m{{}, pm.node, {}, {}, t};
      for (const auto& moved : pm.pods) {
        const std::string& key = moved.first;
        const std::string& target = moved.second;
        auto old = std::find_if(bound_.begin(), bound_.end(),
                                [&](const CaPod& b) { return b.pod.key() == key; });
        if (old == bound_.end()) return Error{"", "a move names " + key + ", which is not bound"};
        const std::string& group = group_of_[key];
        m.groups.insert(group);
        m.old_keys.push_back(key);
        CaPod p = *old;
        p.pod.name = free_replica_name(group, made);
        p.pod.node_name = target;
        m.new_keys.push_back(p.pod.key());
        made.emplace_back(std::move(p), group);
      }
      emptying_[m.node] = t;
      moves_.push_back(std::move(m));
      ++figures_.nodes_emptied;
    }
    for (auto& [p, group] : made) {
      group_of_[p.pod.key()] = group;
      groups_[group].push_back(p.pod.key());
      addresses_.assign(p.pod.key(), p.pod.node_name);
      bound_.push_back(std::move(p));
    }
    return rebuild();
  }

  // The smallest <group>-<i> neither a replica of the group nor one about to
  // be made has.
  std::string free_replica_name(const std::string& group,
                                const std::vector<std::pair<CaPod, std::string>>& made) {
    const std::vector<std::string>& keys = groups_[group];
    for (size_t i = 0;; ++i) {
      CaPod probe;
      probe.pod.ns = templates_of_[group].pod.ns;
      probe.pod.name = group + "-" + std::to_string(i);
      const std::string key = probe.pod.key();
      const bool taken = std::find(keys.begin(), keys.end(), key) != keys.end() ||
                         std::any_of(made.begin(), made.end(),
                                     [&](const auto& m) { return m.first.pod.key() == key; });
      if (!taken) return probe.pod.name;
    }
  }

  // ------------------------------------------------------------ retirement

  // The replicas of `group` that leave when it shrinks by `leave`
  // (dask_retirement.hpp). What node-aware retirement knows of a node:
  // whether its pool is at its min size (cluster-autoscaler's target) or
  // some other pod keeps it.
  std::vector<std::string> retiring_of(const std::string& group, size_t leave, Retire rule) {
    GroupWorkers workers{groups_[group], {}};
    // The newest replicas go whatever runs where.
    if (rule == Retire::kNewest) return retiring(workers, leave, rule, {}, {});
    for (const CaPod& p : bound_) {
      auto g = group_of_.find(p.pod.key());
      if (g != group_of_.end() && g->second == group)
        workers.running[p.pod.key()] = p.pod.node_name;
    }
    std::map<std::string, int64_t> pool_size;
    std::set<std::string> others;  // nodes with a pod of another workload
    if (rule == Retire::kNodeAware) {
      for (const CaNode& n : nodes_) ++pool_size[pool_name(n.node.name)];
      for (const Upcoming& u : upcoming_) ++pool_size[u.pool];
      for (const CaPod& p : bound_) {
        if (system_.contains(p.pod.key())) continue;
        auto g = group_of_.find(p.pod.key());
        if (g == group_of_.end() || g->second != group) others.insert(p.pod.node_name);
      }
    }
    auto kept = [&](const std::string& node) {
      const std::string& pn = pool_name(node);
      const pools::NodePool* p = pool(pn);
      return !p || pool_size[pn] <= p->min_size || others.contains(node);
    };
    auto address = [&](const std::string& pod) -> const std::string& { return addresses_.of(pod); };
    return retiring(workers, leave, rule, address, kept);
  }

  int64_t busy_nodes(std::map<std::string, int64_t>* per_pool) const {
    int64_t busy = 0;
    for (NodeIndex n = 0; n < cluster_->size(); ++n) {
      const auto& on = cluster_->pods_on(n);
      const bool any = std::any_of(on.begin(), on.end(),
                                   [&](const BoundPod& p) { return !system_.contains(p.key); });
      if (!any) continue;
      ++busy;
      if (per_pool) ++(*per_pool)[pool_name(cluster_->name(n))];
    }
    return busy;
  }

  // ------------------------------------------------------------ autoscaling

  autoscaler::AutoscaleScenario ca_scenario() const {
    pools::ClusterSnapshot snap;
    snap.nodes = nodes_;
    snap.pods = bound_;
    snap.daemon_sets = s_.cluster.daemon_sets;
    snap.pdbs = s_.cluster.pdbs;
    snap.controllers = s_.cluster.controllers;
    snap.listed_kinds = s_.cluster.listed_kinds;
    pools::ResolvedPools current = resolved_;
    for (pools::NodePool& p : current.pools) {
      p.nodes.clear();
      for (const CaNode& n : nodes_) {
        if (pool_name(n.node.name) == p.name) p.nodes.push_back(n.node.name);
      }
      // Inferred pools keep the template of the node they were found by,
      // even after every such node is gone.
      if (!p.template_node) {
        auto t = templates_.find(p.name);
        if (t != templates_.end()) p.template_node = t->second;
      }
    }
    autoscaler::AutoscaleScenario sc = pools::autoscale_scenario(snap, current, config_);
    for (autoscaler::NodeGroupSpec& g : sc.groups) {
      int64_t upcoming = 0;
      for (const Upcoming& u : upcoming_) upcoming += u.pool == g.name;
      g.target_size = static_cast<int64_t>(g.nodes.size()) + upcoming;
    }
    return sc;
  }

  void remember_templates() {
    for (const pools::NodePool& p : resolved_.pools) {
      if (templates_.contains(p.name)) continue;
      if (p.template_node) {
        templates_[p.name] = *p.template_node;
        continue;
      }
      for (const CaNode& n : nodes_) {
        if (pool_name(n.node.name) == p.name) {
          templates_[p.name] = n.node;
          break;
        }
      }
    }
  }

  const pools::NodePool* pool(const std::string& name) const {
    for (const pools::NodePool& p : resolved_.pools) {
      if (p.name == name) return &p;
    }
    return nullptr;
  }

  Status autoscale(int64_t t) {
    remember_templates();
    bool changed = false;
    // Nodes whose provisioning is over join, with their DaemonSet pods.
    for (auto it = upcoming_.begin(); it != upcoming_.end();) {
      if (it->ready_at > t) {
        ++it;
        continue;
      }
      autoscaler::AutoscaleScenario sc = ca_scenario();
      for (const autoscaler::NodeGroupSpec& g : sc.groups) {
        if (g.name != it->pool) continue;
        autoscaler::NodeTemplate tmpl = autoscaler::group_template(sc, g);
        CaNode n;
        n.node = autoscaler::renamed_copy(tmpl.node, it->name);
        for (Pod p : tmpl.pods) {
          CaPod cp;
          p.name = p.name + "-" + it->name;
          p.node_name = it->name;
          cp.pod = std::move(p);
          cp.daemon_set = true;
          system_.insert(cp.pod.key());
          bound_.push_back(std::move(cp));
        }
        nodes_.push_back(std::move(n));
        pool_of_[it->name] = it->pool;
        addresses_.join(it->name);
      }
      it = upcoming_.erase(it);
      changed = true;
    }
    if (changed) {
      if (auto st = rebuild(); !st) return st;
      if (auto st = drain_queue(); !st) return st;
    }

    const Profile ca_profile = autoscaler::ca_profile();  // CA's predicates are the default filters
    if (!pending_.empty()) {
      autoscaler::AutoscaleScenario sc = ca_scenario();
      for (const CaPod& p : pending_) sc.pending.push_back(p);
      auto run = autoscaler::run_loops(sc, ca_profile);
      if (!run) return run.error();
      for (size_t g = 0; g < sc.groups.size(); ++g) {
        const int64_t delta = run->target_sizes[g] - *sc.groups[g].target_size;
        const pools::NodePool* p = pool(sc.groups[g].name);
        for (int64_t i = 0; i < delta; ++i) {
          upcoming_.push_back(Upcoming{sc.groups[g].name,
                                       sc.groups[g].name + "-new-" + std::to_string(++added_),
                                       t + (p ? p->provisioning_seconds : 0)});
          ++figures_.nodes_added;
          last_scale_up_ = t;
        }
        if (delta > 0) ++figures_.scale_ups;
      }
    }

    if (t - last_scale_up_ < kScaleDownDelayAfterAdd) return Ok{};
    autoscaler::AutoscaleScenario sc = ca_scenario();
    sc.scale_down = true;
    autoscaler::RunRecord record;
    for (const autoscaler::NodeGroupSpec& g : sc.groups)
      record.target_sizes.push_back(*g.target_size);
    auto down = autoscaler::run_scale_down(sc, ca_profile, record);
    if (!down) return down.error();
    std::set<std::string> unneeded(down->unneeded.begin(), down->unneeded.end());
    std::set<std::string> empty(down->empty.begin(), down->empty.end());
    std::erase_if(unneeded_since_, [&](const auto& kv) { return !unneeded.contains(kv.first); });
    for (const std::string& n : unneeded) unneeded_since_.emplace(n, t);
    // Empty nodes go in bulk, a node with pods to move one at a time; no
    // pool below its min size.
    std::map<std::string, int64_t> size;
    for (const autoscaler::NodeGroupSpec& g : sc.groups) size[g.name] = *g.target_size;
    std::vector<std::string> remove;
    bool drained_one = false;
    for (const auto& [name, since] : unneeded_since_) {
      if (t - since < config_.scale_down_unneeded_seconds) continue;
      const bool is_empty = empty.contains(name);
      if (!is_empty && drained_one) continue;
      if (is_empty && remove.size() >= kMaxEmptyBulkDelete) continue;
      const std::string& pool_name_of = pool_name(name);
      const pools::NodePool* p = pool(pool_name_of);
      if (!p || size[pool_name_of] <= p->min_size) continue;
      --size[pool_name_of];
      remove.push_back(name);
      drained_one = drained_one || !is_empty;
    }
    if (remove.empty()) return Ok{};
    for (const std::string& name : remove) {
      unneeded_since_.erase(name);
      ++figures_.nodes_removed;
      // Evicted pods come back through their controllers and wait for the scheduler.
      std::vector<CaPod> keep;
      for (CaPod& p : bound_) {
        if (p.pod.node_name != name) {
          keep.push_back(std::move(p));
        } else if (!system_.contains(p.pod.key())) {
          ++figures_.pods_evicted;
          if (group_of_.contains(p.pod.key())) ++figures_.tasks_interrupted;
          addresses_.forget(p.pod.key());
          p.pod.node_name.clear();
          pending_.push_front(std::move(p));
        }
      }
      bound_ = std::move(keep);
      std::erase_if(nodes_, [&](const CaNode& n) { return n.node.name == name; });
      addresses_.leave(name);
    }
    if (auto st = rebuild(); !st) return st;
    return drain_queue();
  }

  // ------------------------------------------------------------ figures

  // The workload pods' requests per pool, and one node's room per pool (from
  // the first node of the pool seen): pack_bounds.hpp.
  PoolDemand demand() const {
    PoolDemand out;
    for (const CaPod& pod : bound_) {
      if (system_.contains(pod.pod.key())) continue;
      out[pool_name(pod.pod.node_name)].push_back(pod_requests(pod.pod, false));
    }
    return out;
  }

  const PoolRoom& room() {
    for (const CaNode& n : nodes_) {
      const std::string& p = pool_name(n.node.name);
      if (room_.contains(p)) continue;
      ResourceList r = n.node.allocatable;
      for (const CaPod& pod : bound_) {
        if (pod.pod.node_name != n.node.name || !system_.contains(pod.pod.key())) continue;
        for (const auto& [name, v] : pod_requests(pod.pod, false)) {
          const int64_t* have = find_resource(r, name);
          set_resource(r, name, (have ? *have : 0) - v);
        }
      }
      room_[p] = std::move(r);
    }
    return room_;
  }

  void finish() {
    std::map<std::string, int64_t> busy;
    figures_.busy_at_end = busy_nodes(&busy);
    figures_.pending_at_end = static_cast<int64_t>(pending_.size());
    std::map<std::string, int64_t> lower = lower_bounds(demand(), room());
    std::map<std::string, int64_t> nodes;
    for (const CaNode& n : nodes_) ++nodes[pool_name(n.node.name)];
    std::set<std::string> names;
    for (const auto& [p, n] : nodes) names.insert(p);
    for (const auto& [p, h] : pool_hours_) names.insert(p);
    for (const std::string& p : names) {
      PoolFigures f;
      f.pool = p;
      f.busy_at_end = busy[p];
      f.nodes_at_end = nodes[p];
      f.node_hours = pool_hours_[p];
      f.lower_bound = lower[p];
      f.lower_bound_node_hours = lower_hours_[p];
      f.repack_node_hours = repack_hours_[p];
      f.busy_node_hours = busy_hours_[p];
      figures_.lower_bound += f.lower_bound;
      figures_.pools.push_back(std::move(f));
    }
  }

  const PackScenario& s_;
  const Profile& profile_;
  pools::PoolsConfig config_;
  pools::ResolvedPools resolved_;
  std::map<std::string, std::string> pool_of_;  // node → pool
  std::map<std::string, Node> templates_;       // pool → template
  std::vector<CaNode> nodes_;
  std::vector<CaPod> bound_;
  std::deque<CaPod> pending_;
  std::set<std::string> system_;  // DaemonSet and mirror pods: never make a node busy
  std::optional<Cluster> cluster_;
  std::map<std::string, PlanWithScratch> plans_;            // by workload
  std::map<std::string, std::vector<std::string>> groups_;  // workload → pod keys, by replica
  std::map<std::string, std::string> group_of_;             // pod key → workload
  std::map<std::string, CaPod> templates_of_;               // workload → its last template
  std::vector<Upcoming> upcoming_;
  std::map<std::string, int64_t> unneeded_since_;
  std::map<std::string, double> pool_hours_, lower_hours_, repack_hours_, busy_hours_;
  PoolRoom room_;  // pool → one node's room for workloads
  PodAddresses addresses_;
  std::vector<Move> moves_;                     // made, not yet broken
  std::map<std::string, int64_t> emptying_;     // node → since when
  std::map<std::string, int64_t> last_change_;  // workload → its last start or scale
  int64_t last_scale_up_ = -kScaleDownDelayAfterAdd;
  int64_t added_ = 0;
  ProfileFigures figures_;
};

}  // namespace

Result<PackReport> run_pack_report(const PackScenario& s) {
  PackReport r;
  r.end = s.end;
  r.retire = s.retire;
  r.consolidate = s.consolidate;
  for (size_t i = 0; i < s.profiles.size(); ++i) {
    Simulation sim(s, s.profiles[i], s.profile_names[i]);
    auto f = sim.run();
    if (!f) return f.error();
    r.profiles.push_back(std::move(*f));
  }
  return r;
}

}  // namespace tightpack::packing
