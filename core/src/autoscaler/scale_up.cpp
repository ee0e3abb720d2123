// StaticAutoscaler.RunOnce, loop after loop: pods that fit existing or
// upcoming nodes are dropped, the rest become one expansion option per node
// group, the expanders choose one, and its increase is capped to the group's
// max size (one group grows per loop); then the scale-down planner.
#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "plans.hpp"
#include "run.hpp"
#include "tightpack/autoscaler/limits.hpp"
#include "tightpack/cluster.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/go_sort.hpp"

namespace tightpack::autoscaler {
namespace {

constexpr const char* kMaxSizeReached = "max node group size reached";

struct Snapshot {
  Cluster cluster;
  size_t real_nodes = 0;
  // The bound pods it was built from: the scenario's by pointer (the scenario
  // outlives every snapshot of it; copying 10,000 pods each loop was most of
  // a prediction's time), and the upcoming nodes' pods, which it owns.
  std::vector<const Pod*> pods;
  std::vector<Pod> upcoming_pods;
  // The pending pods filter-out-schedulable packed onto it, with their nodes.
  std::vector<std::pair<const Pod*, NodeIndex>> packed;

  // What a fork of it holds (run.hpp), for pods that read other nodes.
  SnapshotContents contents() const {
    SnapshotContents out;
    out.nodes.reserve(cluster.size());
    for (NodeIndex n = 0; n < cluster.size(); ++n) out.nodes.push_back(cluster.node(n));
    out.pods.reserve(pods.size() + packed.size());
    for (const Pod* p : pods) out.pods.push_back(*p);
    for (const auto& [p, n] : packed) {
      out.pods.push_back(*p);
      out.pods.back().node_name = cluster.name(n);
    }
    return out;
  }
};

// Whether a fork of `snap` must hold its contents for `pods`: some of them
// read other nodes, or some pod there has inter-pod terms that may reject them.
bool needs_contents(const Snapshot& snap, const std::vector<const Pod*>& pods) {
  if (snap.cluster.affinity_pods() > 0) return true;
  return std::any_of(pods.begin(), pods.end(), [](const Pod* p) { return reads_other_nodes(*p); });
}

// Real nodes and their pods, then for every group the nodes it asked for but
// that have not registered yet, as copies of its template.
Result<Snapshot> snapshot(const AutoscaleScenario& s, const std::vector<NodeTemplate>& templates,
                          const std::vector<int64_t>& targets) {
  std::vector<Node> nodes;
  std::vector<Pod> upcoming_pods;
  for (const CaNode& n : s.nodes) nodes.push_back(n.node);
  const size_t real = nodes.size();
  for (size_t g = 0; g < s.groups.size(); ++g) {
    const int64_t upcoming = targets[g] - static_cast<int64_t>(s.groups[g].nodes.size());
    for (int64_t i = 0; i < upcoming; ++i) {
      Node n =
          renamed_copy(templates[g].node, "upcoming-" + s.groups[g].name + "-" + std::to_string(i));
      for (const Pod& p : templates[g].pods) {
        Pod copy = p;
        copy.node_name = n.name;
        upcoming_pods.push_back(std::move(copy));
      }
      nodes.push_back(std::move(n));
    }
  }
  // The same order as before: the scenario's bound pods, then the upcoming
  // nodes' pods group by group (a node's pods are listed in this order).
  std::vector<const Pod*> pods;
  pods.reserve(s.pods.size() + upcoming_pods.size());
  for (const CaPod& p : s.pods) {
    if (!expendable(p.pod, s.options)) pods.push_back(&p.pod);
  }
  for (const Pod& p : upcoming_pods) pods.push_back(&p);
  auto c = Cluster::build_from(std::move(nodes), pods, s.objects);
  if (!c) return c.error();
  // Moving the vector keeps its elements where they are: the pointers hold.
  return Snapshot{std::move(*c), real, std::move(pods), std::move(upcoming_pods), {}};
}

// Pending pods in the order CA packs them: priority, highest first, by Go's
// sort.Slice (filterOutSchedulableByPacking), which is not stable: above 12
// pods, replicas of equal priority are not tried in listing order, and the
// engine must name the same ones. Expendable pods (below the cutoff) are
// nobody's concern.
std::vector<const Pod*> pods_to_help(const AutoscaleScenario& s) {
  std::vector<const Pod*> out;
  for (const CaPod& p : s.pending) {
    if (expendable(p.pod, s.options)) continue;
    out.push_back(&p.pod);
  }
  go_sort_slice(out, [](const Pod* a, const Pod* b) { return a->priority > b->priority; });
  return out;
}

// The pending pods' scheduling classes (plans.hpp), computed once per run.
using ClassOf = std::unordered_map<const Pod*, uint32_t>;

ClassOf class_map(const std::vector<const Pod*>& pods) {
  const std::vector<uint32_t> classes = scheduling_classes(pods);
  ClassOf out;
  for (size_t i = 0; i < pods.size(); ++i) out.emplace(pods[i], classes[i]);
  return out;
}

uint32_t class_of(const ClassOf& classes, const Pod* p) {
  auto it = classes.find(p);
  return it == classes.end() ? kOwnClass : it->second;
}

struct GroupVerdict {
  std::vector<const Pod*> passing;
  std::map<const Pod*, std::vector<std::string>> rejected;
};

// CheckPredicates of each pod on the template node (with its pods), added to
// a fork of the snapshot (SchedulablePodGroups); the fork holds the
// snapshot's contents when `fork` gives them, else the template alone.
Result<GroupVerdict> check_template(const NodeTemplate& t, const std::vector<const Pod*>& pods,
                                    const Profile& profile, const ClassOf& classes,
                                    const ForkInput& fork) {
  std::vector<Node> nodes;
  std::vector<Pod> node_pods;
  if (fork.contents) {
    nodes = fork.contents->nodes;
    node_pods = fork.contents->pods;
  }
  const NodeIndex at = static_cast<NodeIndex>(nodes.size());
  nodes.push_back(t.node);
  node_pods.insert(node_pods.end(), t.pods.begin(), t.pods.end());
  auto c = Cluster::build(std::move(nodes), node_pods, *fork.objects);
  if (!c) return c.error();
  Plans plans(*c, profile);
  GroupVerdict v;
  for (const Pod* p : pods) {
    auto found = plans.get(*p, class_of(classes, p));
    if (!found) return found.error();
    PlanWithScratch& planned = **found;
    const PodPlan* plan = &planned.plan;
    NodeStatus st = plan->prefilter_conflict() || !plan->in_prefilter_set(at)
                        ? NodeStatus{Code::UnschedulableAndUnresolvable, Plugin::NodeAffinity}
                        : plan->filter(planned.scratch, *c, at);
    if (st.ok()) {
      v.passing.push_back(p);
    } else {
      v.rejected[p] = plan->reasons(*c, at, st);
    }
  }
  return v;
}

OptionRecord record_of(const ExpansionOption& o) {
  OptionRecord r{o.group, o.node_count, {}, waste_of(o)};
  for (const Pod* p : o.pods) r.pods.push_back(p->key());
  std::sort(r.pods.begin(), r.pods.end());
  return r;
}

// Nodes asked for but not registered yet, over all groups.
int64_t upcoming_count(const AutoscaleScenario& s, const std::vector<int64_t>& targets) {
  int64_t n = 0;
  for (size_t g = 0; g < s.groups.size(); ++g) {
    n += std::max<int64_t>(0, targets[g] - static_cast<int64_t>(s.groups[g].nodes.size()));
  }
  return n;
}

int64_t ready_nodes(const AutoscaleScenario& s) {
  return std::count_if(s.nodes.begin(), s.nodes.end(), [](const CaNode& n) { return n.ready; });
}

void sort_by_group(std::vector<OptionRecord>& v) {
  std::sort(v.begin(), v.end(),
            [](const OptionRecord& a, const OptionRecord& b) { return a.group < b.group; });
}

// filterOutSchedulable: pending pods onto the snapshot's nodes in priority
// order, each first on the node its hint names (where it went last loop),
// else round-robin from CA's last match; each placement seen by the next.
// Returns the pods left; `placed` gets the ones that landed on real nodes.
Result<std::vector<const Pod*>> fit_existing(
    Snapshot& snap, const std::vector<const Pod*>& pending, const Profile& profile,
    const ClassOf& classes, CaState& state, std::vector<PlacedPod>& placed,
    std::vector<std::string>* fitted,
    std::vector<std::pair<const Pod*, NodeIndex>>* landed = nullptr) {
  Cluster& c = snap.cluster;
  Plans plans(c, profile);
  ClassRejections rejections;
  SimilarPods similar;
  std::vector<const Pod*> left;
  placed.clear();
  for (const Pod* p : pending) {
    const uint32_t cls = class_of(classes, p);
    auto found = plans.get(*p, cls);
    if (!found) return found.error();
    PlanWithScratch& planned = **found;
    const PodPlan* plan = &planned.plan;
    auto fits = [&](NodeIndex n) { return rejections.fits(cls, planned, c, n); };
    std::optional<NodeIndex> at;
    if (!plan->prefilter_conflict()) {
      // CA names a group's template afresh every loop (template-node-for-
      // <group>-<random>), so a hint to an upcoming node names no node later.
      if (const std::optional<NodeIndex> hint = state.pending_hints.get(p)) {
        if (*hint < snap.real_nodes && fits(*hint)) at = *hint;
      }
    }
    // trySchedule: skipped for a pod like one that found no node before.
    const bool tried = !at && !similar.unschedulable(*p, cls);
    if (tried && !plan->prefilter_conflict()) {
      const size_t from = state.round_robin.start(c.size());
      for (size_t i = 0; i < c.size() && !at; ++i) {
        const NodeIndex n = static_cast<NodeIndex>((from + i) % c.size());
        // FitsAnyNodeMatching skips unschedulable nodes whatever the pod tolerates.
        if (c.node(n).unschedulable || !fits(n)) continue;
        at = n;
        state.round_robin.matched(n);
      }
    }
    if (!at) {
      if (tried) similar.set_unschedulable(*p, cls);
      left.push_back(p);
      continue;
    }
    if (*at < snap.real_nodes) state.pending_hints.set(p, *at);
    c.place(*at, unreserved(plan->bound(p->key())));
    snap.packed.emplace_back(p, *at);
    if (fitted) fitted->push_back(p->key());
    if (landed) landed->emplace_back(p, *at);
    if (*at < snap.real_nodes) {
      placed.push_back(PlacedPod{p, c.name(*at)});
    }
  }
  state.pending_hints.drop_old();
  return left;
}

struct LoopOptions {
  std::vector<ExpansionOption> options;
  std::vector<size_t> option_group;  // per option, the group index
  Reasons skipped;
  std::map<const Pod*, Reasons> rejected;
  // Pods some group's template check passed (CA's PodGroup.Schedulable),
  // whether or not an estimate then packed them.
  std::set<const Pod*> schedulable;
};

// One expansion option per group that is neither skipped (max size, cluster
// limits) nor rejected for every pod by the template's filters.
Result<LoopOptions> expansion_options(const AutoscaleScenario& s,
                                      const std::vector<NodeTemplate>& templates,
                                      const std::vector<int64_t>& targets,
                                      const std::vector<const Pod*>& left,
                                      const ResourcesLeft& resources, const Profile& profile,
                                      const ClassOf& classes, NodeRoundRobin& rr,
                                      const Snapshot& snap) {
  LoopOptions out;
  const size_t listed = snap.cluster.size();
  // Every group's fork starts from the same snapshot: its contents, when the
  // pods need them, are read once.
  std::optional<SnapshotContents> contents;
  if (needs_contents(snap, left)) contents = snap.contents();
  const ForkInput check_fork{&s.objects, contents ? &*contents : nullptr};
  for (size_t g = 0; g < s.groups.size(); ++g) {
    const NodeGroupSpec& group = s.groups[g];
    if (targets[g] >= group.max_size) {
      out.skipped[group.name] = {kMaxSizeReached};
      continue;
    }
    if (std::string limit = limit_exceeded(resources, node_delta(templates[g].node));
        !limit.empty()) {
      out.skipped[group.name] = {limit};
      continue;
    }
    auto verdict = check_template(templates[g], left, profile, classes, check_fork);
    if (!verdict) return verdict.error();
    for (auto& [p, reasons] : verdict->rejected) out.rejected[p][group.name] = reasons;
    out.schedulable.insert(verdict->passing.begin(), verdict->passing.end());
    if (verdict->passing.empty()) continue;
    std::vector<uint32_t> passing_classes;
    for (const Pod* p : verdict->passing) passing_classes.push_back(class_of(classes, p));
    const int64_t limit =
        estimation_limit(group.max_size, targets[g], s.options.max_nodes_total,
                         static_cast<int64_t>(s.nodes.size()) + upcoming_count(s, targets));
    const ForkInput fork{&s.objects,
                         contents && needs_contents(snap, verdict->passing) ? &*contents : nullptr};
    auto e = estimate_in_snapshot(templates[g], verdict->passing, profile, limit, passing_classes,
                                  rr, listed, fork);
    if (!e) return e.error();
    if (e->node_count == 0 || e->scheduled.empty()) continue;
    ExpansionOption o{group.name, e->node_count, {}, &templates[g].node};
    for (size_t i : e->scheduled) o.pods.push_back(verdict->passing[i]);
    out.options.push_back(std::move(o));
    out.option_group.push_back(g);
  }
  return out;
}

// The pods no scale-up of this loop can help, grouped by why: CA's
// PodsRemainUnschedulable (GetRemainingPods), the pods whose template check
// no group passed. A pod some group passed is not among them, though the
// chosen option may not hold it (another group's, or one its estimate left
// out, as a spread constraint can).
void record_unhelped(RunRecord& run, const std::vector<const Pod*>& left,
                     const std::set<const Pod*>& helped, LoopOptions& lo) {
  run.unhelped.clear();
  run.no_scale_up.clear();
  std::map<std::pair<Reasons, Reasons>, std::vector<std::string>> by_reasons;
  for (const Pod* p : left) {
    if (helped.contains(p) || lo.schedulable.contains(p)) continue;
    run.unhelped.push_back(p->key());
    by_reasons[{lo.rejected[p], lo.skipped}].push_back(p->key());
  }
  for (auto& [reasons, pods] : by_reasons) {
    std::sort(pods.begin(), pods.end());
    run.no_scale_up.push_back(NoScaleUpRecord{pods, reasons.first, reasons.second});
  }
  std::sort(run.no_scale_up.begin(), run.no_scale_up.end(),
            [](const NoScaleUpRecord& a, const NoScaleUpRecord& b) { return a.pods < b.pods; });
}

}  // namespace

Result<std::vector<Landing>> land_pending(const AutoscaleScenario& s, const Profile& profile,
                                          const std::vector<int64_t>& targets, CaState state) {
  std::vector<NodeTemplate> templates;
  for (const NodeGroupSpec& g : s.groups) templates.push_back(group_template(s, g));
  auto snap = snapshot(s, templates, targets);
  if (!snap) return snap.error();
  // snapshot() appends each group's upcoming nodes after the real ones, group by group.
  std::vector<size_t> group_of;
  for (size_t g = 0; g < s.groups.size(); ++g) {
    const int64_t upcoming = targets[g] - static_cast<int64_t>(s.groups[g].nodes.size());
    for (int64_t i = 0; i < upcoming; ++i) group_of.push_back(g);
  }
  std::vector<PlacedPod> placed;
  std::vector<std::pair<const Pod*, NodeIndex>> landed;
  const std::vector<const Pod*> pending = pods_to_help(s);
  auto left =
      fit_existing(*snap, pending, profile, class_map(pending), state, placed, nullptr, &landed);
  if (!left) return left.error();
  std::vector<Landing> out;
  for (const auto& [pod, n] : landed) {
    Landing l{pod, snap->cluster.name(n), std::nullopt};
    if (n >= snap->real_nodes) l.group = group_of[n - snap->real_nodes];
    out.push_back(std::move(l));
  }
  return out;
}

Result<RunRecord> run_loops(const AutoscaleScenario& s, const Profile& profile) {
  RunRecord run;
  std::vector<NodeTemplate> templates;
  for (const NodeGroupSpec& g : s.groups) {
    templates.push_back(group_template(s, g));
    run.target_sizes.push_back(g.target_size.value_or(static_cast<int64_t>(g.nodes.size())));
  }
  const std::vector<const Pod*> pending = pods_to_help(s);
  const ClassOf classes = class_map(pending);
  std::vector<const CaPod*> bound;
  bound.reserve(s.pods.size());
  for (const CaPod& p : s.pods) bound.push_back(&p);
  for (int64_t loop = 1; loop <= s.options.max_loops; ++loop) {
    run.loops = loop;
    auto snap = snapshot(s, templates, run.target_sizes);
    if (!snap) return snap.error();
    auto left = fit_existing(*snap, pending, profile, classes, run.state, run.placed_pending,
                             loop == 1 ? &run.fits_existing : nullptr);
    if (!left) return left.error();
    const size_t upcoming = snap->cluster.size() - snap->real_nodes;
    // The loop's last step, after any scale-up: the planner, on the real
    // nodes and the pending pods packed there, the groups at their new sizes.
    auto plan = [&]() -> Status {
      auto down = plan_scale_down(s, bound, run.placed_pending, run.target_sizes, upcoming, loop,
                                  profile, run.state);
      if (!down) return down.error();
      if (s.scale_down) run.scale_down = std::move(*down);
      return Ok{};
    };
    if (left->empty()) {
      run.unhelped.clear();
      run.last_result = "ScaleUpNotNeeded";
      if (auto st = plan(); !st) return st.error();
      break;
    }

    // RunOnce skips scale-up once the cluster holds --max-nodes-total ready nodes.
    const bool at_max_nodes =
        s.options.max_nodes_total > 0 && ready_nodes(s) >= s.options.max_nodes_total;
    const ResourcesLeft resources = resources_left(s, templates, run.target_sizes);
    LoopOptions lo;
    if (!at_max_nodes) {
      auto found = expansion_options(s, templates, run.target_sizes, *left, resources, profile,
                                     classes, run.state.round_robin, *snap);
      if (!found) return found.error();
      lo = std::move(*found);
    }
    const std::vector<ExpansionOption>& options = lo.options;
    if (loop == 1) {
      for (const ExpansionOption& o : options) run.options.push_back(record_of(o));
      sort_by_group(run.options);
    }

    std::set<const Pod*> helped;
    std::optional<Choice> choice;
    if (!options.empty()) choice = choose_option(options, s.expanders, s.priorities, s.prices);
    int64_t allowed = choice ? options[choice->chosen].node_count : 0;
    if (choice && s.options.max_nodes_total > 0) {
      // Capping to the cluster's total size; nothing at all when none is left.
      const int64_t room = s.options.max_nodes_total - static_cast<int64_t>(s.nodes.size()) -
                           upcoming_count(s, run.target_sizes);
      allowed = std::min(allowed, room);
      if (allowed < 1) choice.reset();
    }
    if (choice) {
      const ExpansionOption& best = options[choice->chosen];
      const size_t g = lo.option_group[choice->chosen];
      ScaleUpRecord r;
      r.loop = loop;
      r.group = best.group;
      r.estimated = best.node_count;
      allowed = apply_resource_limits(allowed, resources, node_delta(templates[g].node));
      r.delta = capped_delta(allowed, run.target_sizes[g], s.groups[g].max_size);
      for (const Pod* p : best.pods) {
        r.pods.push_back(p->key());
        helped.insert(p);
      }
      std::sort(r.pods.begin(), r.pods.end());
      for (size_t i : choice->tied) r.tied.push_back(options[i].group);
      std::sort(r.tied.begin(), r.tied.end());
      for (const ExpansionOption& o : options) r.considered.push_back(record_of(o));
      sort_by_group(r.considered);
      run.target_sizes[g] += r.delta;
      run.scale_ups.push_back(std::move(r));
    }
    record_unhelped(run, *left, helped, lo);
    if (auto st = plan(); !st) return st.error();
    if (!choice) {
      run.last_result = "ScaleUpNoOptionsAvailable";
      break;
    }
    run.last_result = "ScaleUpSuccessful";
  }
  std::sort(run.unhelped.begin(), run.unhelped.end());
  return run;
}

}  // namespace tightpack::autoscaler
