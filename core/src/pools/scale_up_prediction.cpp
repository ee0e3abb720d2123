// The user's replicas through cluster-autoscaler's scale-up loop, and its
// records turned into an answer per pool and a reason per stuck replica.
#include "tightpack/pools/scale_up_prediction.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "autoscaler/run.hpp"
#include "json_write.hpp"
#include "tightpack/framework/framework.hpp"

namespace tightpack::pools {
using json_write::joined;
namespace {

using autoscaler::AutoscaleScenario;
using autoscaler::CaPod;
using autoscaler::NodeTemplate;

void add_unique(std::vector<std::string>& into, const std::string& item) {
  if (std::find(into.begin(), into.end(), item) == into.end()) into.push_back(item);
}

// One replica against one pool's new node, every filter run on its own so
// that a taint does not hide a missing GPU (CA stops at the first failure).
struct Verdict {
  std::vector<std::string> reasons;       // of every failing filter, in profile order
  std::optional<Taint> taint;             // the first untolerated taint
  bool affinity_mismatch = false;         // node selector or required node affinity
  std::vector<std::string> insufficient;  // resource names ("Too many pods" is "pods")
  // The volume plugins (VolumeBinding, VolumeZone) reject it, and nothing else.
  bool volume_conflict = false, other_failure = false;
  bool fails_only_on_volumes() const { return volume_conflict && !other_failure; }

  bool resources_fit() const { return insufficient.empty(); }
  bool passes() const { return reasons.empty(); }
};

Result<Verdict> diagnose(const NodeTemplate& t, const Pod& pod, const Profile& profile,
                         const ApiObjects& objects) {
  auto c = Cluster::build({t.node}, t.pods, objects);
  if (!c) return c.error();
  Verdict v;
  for (Plugin filter : profile.filters) {
    Profile one = profile;
    one.filters = {filter};
    auto plan = PodPlan::make(*c, one, pod);
    if (!plan) return plan.error();
    // As CA's CheckPredicates: a PreFilter rejection fails the node.
    const bool prefiltered = plan->prefilter_conflict() || !plan->in_prefilter_set(0);
    PlanScratch scratch;
    const NodeStatus st = prefiltered
                              ? NodeStatus{Code::UnschedulableAndUnresolvable, Plugin::NodeAffinity}
                              : plan->filter(scratch, *c, 0);
    if (st.ok()) continue;
    for (const std::string& r : plan->reasons(*c, 0, st)) add_unique(v.reasons, r);
    if (st.plugin == Plugin::VolumeBinding || st.plugin == Plugin::VolumeZone) {
      v.volume_conflict = true;
    } else {
      v.other_failure = true;
    }
    if (st.plugin == Plugin::TaintToleration && st.taint >= 0) {
      v.taint = c->taints_of_set(c->taint_set(0))[static_cast<size_t>(st.taint)];
    } else if (st.plugin == Plugin::NodeAffinity) {
      v.affinity_mismatch = true;
    } else if (st.plugin == Plugin::NodeResourcesFit) {
      for (const std::string& r : plan->reasons(*c, 0, st)) {
        const std::string_view prefix = "Insufficient ";
        add_unique(v.insufficient, r.rfind(prefix, 0) == 0 ? r.substr(prefix.size()) : "pods");
      }
    }
  }
  return v;
}

bool offers(const Node& n, const std::string& resource) {
  const int64_t* v = find_resource(n.allocatable, resource);
  return v && *v > 0;
}

// The sentence a user can act on, from every pool's filters and what the
// loop left of each pool (its size against its max, CA's skip reasons).
struct ReasonInput {
  const AutoscaleScenario& scenario;
  const std::vector<NodeTemplate>& templates;
  const std::vector<Verdict>& verdicts;  // per group
  const std::vector<int64_t>& targets;   // per group, after the loops
  const autoscaler::Reasons* skipped;    // the last loop's, when the replica was recorded
  int64_t loops;
};

// The sentence and, beside it, what it says as data (Unplaced's fields).
struct Actionable {
  std::string reason;
  std::vector<std::pair<std::string, int64_t>> pools_at_max;
  std::vector<std::string> unoffered;
};

std::string actionable_text(const ReasonInput& in, Actionable& facts);

Actionable actionable_reason(const ReasonInput& in) {
  Actionable a;
  a.reason = actionable_text(in, a);
  return a;
}

std::string actionable_text(const ReasonInput& in, Actionable& facts) {
  const AutoscaleScenario& s = in.scenario;
  const size_t n = s.groups.size();
  if (n == 0)
    return "no pool can grow (no NodePools pool with a template or nodes, no pool labels on nodes)";

  // Pools whose new node would take the replica: only their state stopped it.
  int64_t cluster_nodes = static_cast<int64_t>(s.nodes.size());
  for (size_t g = 0; g < n; ++g) {
    cluster_nodes +=
        std::max<int64_t>(0, in.targets[g] - static_cast<int64_t>(s.groups[g].nodes.size()));
  }
  std::vector<std::string> blocked;
  for (size_t g = 0; g < n; ++g) {
    if (!in.verdicts[g].passes()) continue;
    const auto& group = s.groups[g];
    const std::vector<std::string>* skip = nullptr;
    if (in.skipped) {
      if (auto it = in.skipped->find(group.name); it != in.skipped->end()) skip = &it->second;
    }
    if (in.targets[g] >= group.max_size) {
      blocked.push_back("max size " + std::to_string(group.max_size) + " of pool " + group.name +
                        " reached");
      facts.pools_at_max.emplace_back(group.name, group.max_size);
    } else if (skip && !skip->empty()) {
      blocked.push_back("pool " + group.name + ": " + joined(*skip, ", "));
    } else if (s.options.max_nodes_total > 0 && cluster_nodes >= s.options.max_nodes_total) {
      blocked.push_back("maxNodesTotal " + std::to_string(s.options.max_nodes_total) +
                        " of the cluster reached (pool " + group.name + " could take it)");
    } else {
      blocked.push_back("pool " + group.name + " could take it, but cluster-autoscaler added no " +
                        "node for it in " + std::to_string(in.loops) + " loops");
    }
  }
  if (!blocked.empty()) return joined(blocked, "; ");

  // Resources no template has at all.
  std::vector<std::string> missing;
  for (size_t g = 0; g < n; ++g) {
    for (const std::string& r : in.verdicts[g].insufficient) {
      if (r == "pods") continue;
      const bool anywhere = std::any_of(in.templates.begin(), in.templates.end(),
                                        [&](const NodeTemplate& t) { return offers(t.node, r); });
      if (!anywhere) add_unique(missing, r);
    }
  }
  if (!missing.empty()) {
    facts.unoffered = missing;
    return "no pool offers " + joined(missing, ", ");
  }

  std::vector<size_t> fitting;  // pools whose new node has room for the replica
  for (size_t g = 0; g < n; ++g) {
    if (in.verdicts[g].resources_fit()) fitting.push_back(g);
  }
  if (fitting.empty()) {
    // One resource short everywhere, or each pool short of something.
    std::vector<std::string> everywhere = in.verdicts[0].insufficient;
    std::erase_if(everywhere, [&](const std::string& r) {
      return std::any_of(in.verdicts.begin(), in.verdicts.end(), [&](const Verdict& v) {
        return std::find(v.insufficient.begin(), v.insufficient.end(), r) == v.insufficient.end();
      });
    });
    if (!everywhere.empty()) {
      return "no pool's new node has enough " + joined(everywhere, ", ") + " for one replica";
    }
    std::vector<std::string> per_pool;
    for (size_t g = 0; g < n; ++g) {
      per_pool.push_back(s.groups[g].name + ": not enough " +
                         joined(in.verdicts[g].insufficient, ", "));
    }
    return "no pool's new node is large enough (" + joined(per_pool, "; ") + ")";
  }

  std::vector<std::string> names, taints;
  bool all_taint = true, all_affinity = true;
  for (size_t g : fitting) {
    const Verdict& v = in.verdicts[g];
    names.push_back(s.groups[g].name);
    all_taint = all_taint && v.taint.has_value();
    all_affinity = all_affinity && v.affinity_mismatch;
    if (v.taint) add_unique(taints, taint_text(*v.taint));
  }
  const std::string pools = " on every pool that fits (" + joined(names, ", ") + ")";
  if (all_taint) {
    return "untolerated taint " + joined(taints, ", ") + pools +
           (all_affinity ? ", and node selector/affinity mismatch" : "");
  }
  if (all_affinity) return "node selector/affinity mismatch" + pools;
  std::vector<std::string> per_pool;
  for (size_t g : fitting) {
    const Verdict& v = in.verdicts[g];
    std::vector<std::string> why;
    if (v.taint) why.push_back("untolerated taint " + taint_text(*v.taint));
    if (v.affinity_mismatch) why.push_back("node selector/affinity mismatch");
    if (why.empty()) why = v.reasons;
    per_pool.push_back(s.groups[g].name + ": " + joined(why, ", "));
  }
  return "every pool that fits rejects it (" + joined(per_pool, "; ") + ")";
}

// The cluster's own pending pods compete for the scale-up; those the engine
// cannot model (inter-pod affinity, topology spread, volumes) would fail the
// whole run, so they are left out and named.
Result<std::vector<CaPod>> modelled_pending(const AutoscaleScenario& s,
                                            const std::vector<CaPod>& pending,
                                            const Profile& profile,
                                            std::vector<std::string>& notes) {
  std::vector<CaPod> out;
  if (pending.empty()) return out;
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  for (const auto& n : s.nodes) nodes.push_back(n.node);
  for (const auto& p : s.pods) pods.push_back(p.pod);
  auto c = Cluster::build(std::move(nodes), pods, s.objects);
  if (!c) return c.error();
  std::vector<std::string> left_out;
  std::string first_error;
  for (const CaPod& p : pending) {
    auto plan = PodPlan::make(*c, profile, p.pod);
    if (plan) {
      out.push_back(p);
    } else {
      left_out.push_back(p.pod.key());
      if (first_error.empty()) first_error = plan.error().what();
    }
  }
  if (!left_out.empty()) {
    notes.push_back(std::to_string(left_out.size()) +
                    " pending pod(s) of the cluster are left out of the scale-up, e.g. " +
                    first_error);
  }
  return out;
}

Pod replica(const Pod& pod, size_t i, std::string node) {
  Pod p = pod;
  p.name = pod.name + "-" + std::to_string(i);
  p.node_name = std::move(node);
  return p;
}

// A replica has no controller CA would look up: scale-down is not asked here.
CaPod ca_pod(Pod pod) {
  CaPod p;
  p.pod = std::move(pod);
  return p;
}

const NodePool* pool_named(const ResolvedPools& pools, const std::string& name) {
  for (const NodePool& p : pools.pools) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// The pools the run grew, in the order they first grow, with what their
// configuration says of each; `growth_of` gets each pool's index.
std::vector<PoolGrowth> pool_growth(const autoscaler::RunRecord& run, const AutoscaleScenario& s,
                                    const ResolvedPools& pools,
                                    std::map<std::string, size_t>& growth_of) {
  std::vector<PoolGrowth> growth;
  for (const autoscaler::ScaleUpRecord& r : run.scale_ups) {
    auto [it, added] = growth_of.try_emplace(r.group, growth.size());
    if (added) {
      PoolGrowth g;
      g.pool = r.group;
      growth.push_back(std::move(g));
    }
    PoolGrowth& g = growth[it->second];
    g.nodes_added += r.delta;
    g.estimated += r.estimated;
    g.loops.push_back(r.loop);
    for (const std::string& t : r.tied) {
      if (t != r.group) add_unique(g.tied, t);
    }
  }
  for (PoolGrowth& g : growth) {
    const NodePool* p = pool_named(pools, g.pool);
    const auto group = std::find_if(s.groups.begin(), s.groups.end(),
                                    [&](const auto& x) { return x.name == g.pool; });
    if (!p || group == s.groups.end()) continue;
    g.source = p->source;
    g.max_size = p->max_size;
    g.max_size_reached =
        run.target_sizes[static_cast<size_t>(group - s.groups.begin())] >= group->max_size;
    g.provisioning_seconds = p->provisioning_seconds;
    g.ready_in_seconds = kScanIntervalSeconds * (g.loops.back() - 1) + p->provisioning_seconds;
    g.template_from_configuration = p->nodes.empty();
    g.price_per_hour = p->price_per_hour;
    if (p->price_per_hour) {
      g.added_price_per_hour = static_cast<double>(g.nodes_added) * *p->price_per_hour;
    }
    g.preemptible = p->preemptible;
    g.autoscaler = p->autoscaler;
    std::sort(g.tied.begin(), g.tied.end());
  }
  return growth;
}

}  // namespace

std::string taint_text(const Taint& t) {
  return t.key + (t.value.empty() ? "" : "=" + t.value) + ":" + t.effect;
}

Replicas replicas_of(const Pod& pod, const SimulationResult& result, const Cluster& cluster) {
  Replicas r{pod, {}};
  for (const ReplicaPlacement& p : result.replicas) {
    r.nodes.push_back(p.node ? cluster.name(*p.node) : std::string());
  }
  return r;
}

Result<ScaleUpPrediction> predict_scale_up(const ClusterSnapshot& snapshot,
                                           const ResolvedPools& pools, const PoolsConfig& config,
                                           const Profile& profile, const Replicas& replicas) {
  ScaleUpPrediction out;
  out.expanders = config.expanders;
  std::vector<size_t> waiting;
  for (size_t i = 0; i < replicas.nodes.size(); ++i) {
    if (replicas.nodes[i].empty()) waiting.push_back(i);
  }
  out.replicas_pending = static_cast<int64_t>(waiting.size());
  if (waiting.empty()) return out;

  AutoscaleScenario s = autoscale_scenario(snapshot, pools, config);
  // CA loops every scan interval without end; the corpus's 10 loops are its
  // cut-off. A loop grows one pool, so this lets every pool have its turn.
  s.options.max_loops =
      std::max<int64_t>(s.options.max_loops, 2 * static_cast<int64_t>(s.groups.size()) + 10);
  for (size_t i = 0; i < replicas.nodes.size(); ++i) {
    if (!replicas.nodes[i].empty())
      s.pods.push_back(ca_pod(replica(replicas.pod, i, replicas.nodes[i])));
  }
  auto others = modelled_pending(s, snapshot.pending, profile, out.notes);
  if (!others) return others.error();
  s.pending = std::move(*others);
  std::set<std::string> mine;
  for (size_t i : waiting) {
    s.pending.push_back(ca_pod(replica(replicas.pod, i, "")));
    mine.insert(s.pending.back().pod.key());
  }

  auto run = autoscaler::run_loops(s, profile);
  if (!run) return run.error();
  out.loops = run->loops;
  auto landed = autoscaler::land_pending(s, profile, run->target_sizes, run->state);
  if (!landed) return landed.error();

  // Pools in the order they first grow.
  std::map<std::string, size_t> growth_of;
  out.growth = pool_growth(*run, s, pools, growth_of);

  // Where each pending pod lands once the pools have grown.
  std::map<std::string, const autoscaler::Landing*> landing_of;
  for (const autoscaler::Landing& l : *landed) landing_of[l.pod->key()] = &l;
  for (const CaPod& p : s.pending) {
    auto it = landing_of.find(p.pod.key());
    if (it == landing_of.end() || !it->second->group) continue;
    auto g = growth_of.find(s.groups[*it->second->group].name);
    if (g == growth_of.end()) continue;
    PoolGrowth& growth = out.growth[g->second];
    (mine.contains(p.pod.key()) ? growth.replicas : growth.other_pods).push_back(p.pod.key());
  }

  // The rest of the user's replicas, grouped by reason.
  std::vector<size_t> stuck;
  for (size_t i : waiting) {
    auto l = landing_of.find(replica(replicas.pod, i, "").key());
    if (l == landing_of.end() || !l->second->group) stuck.push_back(i);
  }
  if (stuck.empty()) return out;
  // The replicas differ only by name: one diagnosis per pool serves them all.
  std::vector<NodeTemplate> templates;
  std::vector<Verdict> verdicts;
  for (const auto& g : s.groups) {
    templates.push_back(autoscaler::group_template(s, g));
    auto v =
        diagnose(templates.back(), replica(replicas.pod, stuck.front(), ""), profile, s.objects);
    if (!v) return v.error();
    verdicts.push_back(std::move(*v));
  }
  std::map<std::string, const autoscaler::NoScaleUpRecord*> record_of;
  for (const auto& r : run->no_scale_up) {
    for (const std::string& key : r.pods) record_of[key] = &r;
  }
  std::map<std::pair<std::string, const autoscaler::NoScaleUpRecord*>, size_t> by_reason;
  for (size_t i : stuck) {
    const std::string key = replica(replicas.pod, i, "").key();
    auto l = landing_of.find(key);
    std::string reason;
    std::string fits_node;
    Actionable facts;
    const autoscaler::NoScaleUpRecord* record = nullptr;
    if (auto r = record_of.find(key); r != record_of.end()) record = r->second;
    if (replicas.pod.priority < s.options.expendable_pods_priority_cutoff) {
      reason = "priority " + std::to_string(replicas.pod.priority) +
               " is below cluster-autoscaler's expendable-pods cutoff " +
               std::to_string(s.options.expendable_pods_priority_cutoff) + ": no pool grows for it";
    } else if (l != landing_of.end()) {
      fits_node = l->second->node;
      reason = "cluster-autoscaler's filters let it fit node " + l->second->node +
               ", so no pool grows for it; the scheduling profile's filters reject it there";
    } else {
      facts = actionable_reason(ReasonInput{s, templates, verdicts, run->target_sizes,
                                            record ? &record->skipped : nullptr, run->loops});
      reason = facts.reason;
    }
    auto [it, added] = by_reason.try_emplace({reason, record}, out.unplaced.size());
    if (added) {
      Unplaced u;
      u.reason = reason;
      u.pools_at_max = facts.pools_at_max;
      u.unoffered = facts.unoffered;
      u.fits_node = fits_node;
      for (size_t g = 0; g < s.groups.size(); ++g) {
        if (verdicts[g].fails_only_on_volumes()) {
          u.only_volumes_fail.push_back(s.groups[g].name);
          if (run->target_sizes[g] < s.groups[g].max_size) {
            u.blocked_by_volumes.push_back(s.groups[g].name);
          }
        }
        PoolDetail d{s.groups[g].name, {}, verdicts[g].reasons};
        if (record) {
          if (auto rj = record->rejected.find(d.pool); rj != record->rejected.end()) {
            d.autoscaler = rj->second;
          }
          if (auto sk = record->skipped.find(d.pool); sk != record->skipped.end()) {
            d.autoscaler = sk->second;
          }
        }
        u.pools.push_back(std::move(d));
      }
      std::sort(u.pools.begin(), u.pools.end(),
                [](const PoolDetail& a, const PoolDetail& b) { return a.pool < b.pool; });
      out.unplaced.push_back(std::move(u));
    }
    out.unplaced[it->second].replicas.push_back(key);
  }
  if (!out.unplaced.empty() && run->last_result == "ScaleUpSuccessful") {
    out.notes.push_back("cluster-autoscaler was still adding nodes after " +
                        std::to_string(run->loops) + " loops; later loops may place more");
  }
  return out;
}

}  // namespace tightpack::pools
