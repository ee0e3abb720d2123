// BinpackingNodeEstimator (estimator/binpacking_estimator.go): how many new
// nodes of a group the pending pods need, first-fit decreasing with CA's
// round-robin over the nodes opened.
#include "tightpack/autoscaler/estimator.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <set>
#include <utility>

#include "ca_state.hpp"
#include "plans.hpp"
#include "run.hpp"
#include "tightpack/autoscaler/node_template.hpp"
#include "tightpack/cluster.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/go_int.hpp"
#include "tightpack/pod_resources.hpp"

namespace tightpack::autoscaler {
namespace {

int64_t container_sum(const Pod& pod, std::string_view resource) {
  int64_t sum = 0;
  for (const Container& c : pod.containers) {
    if (const int64_t* v = find_resource(c.requests, resource)) sum = go_add(sum, *v);
  }
  return sum;
}

// The nodes the pods' cpu and memory requests fill, at least: where the
// first batch of template copies starts.
double nodes_by_requests(const Node& n, const std::vector<const Pod*>& pods) {
  double need = 0;
  for (const char* resource : {"cpu", "memory"}) {
    const int64_t* alloc = find_resource(n.allocatable, resource);
    if (!alloc || *alloc <= 0) continue;
    double sum = 0;
    for (const Pod* p : pods) sum += static_cast<double>(container_sum(*p, resource));
    need = std::max(need, sum / static_cast<double>(*alloc));
  }
  return need;
}

// BinpackingNodeEstimator.Estimate onto `count` copies of the template,
// opened one by one, equivalence group by equivalence group (a run of pods of
// one class in `order`; a pod of no class is a group of its own):
// tryToScheduleOnExistingNodes places the group's pods on the nodes opened so
// far, round-robin from the last match (`rr`; the snapshot lists `listed`
// nodes before the new ones), until one fits none; tryToScheduleOnNewNodes
// puts the rest on the last node opened, opening another when it is full. A
// pod that an empty last node does not take ends the group, as does one a new
// node does not take. When a pod needs a copy beyond `count`: with `final`
// unset, `ran_out` and stop (the caller retries with more copies); with
// `final` set the limiter has refused the node, and later groups only try the
// nodes already opened.
// Longer than .clang-tidy allows: binpacking_estimator.go's Estimate, step for step.
// NOLINTNEXTLINE(readability-function-size)
Result<Estimate> pack(const NodeTemplate& t, const std::vector<const Pod*>& pods,
                      const std::vector<size_t>& order, const std::vector<uint32_t>& classes,
                      const Profile& profile, size_t count, bool final, NodeRoundRobin& rr,
                      size_t listed, const ForkInput& fork, bool& ran_out) {
  Estimate e;
  std::vector<Node> nodes;
  std::vector<Pod> node_pods;
  // With the snapshot's contents the new nodes follow its `listed` nodes, as
  // in CA's fork; without, they are the cluster's only nodes.
  const size_t base = fork.contents ? listed : 0;
  if (fork.contents) {
    nodes = fork.contents->nodes;
    node_pods = fork.contents->pods;
  }
  // A new node not opened yet is not in CA's fork. The batch's copies are
  // invisible to every filter but PodTopologySpread, which counts any node
  // with its topology keys as a domain: when some pod has spread
  // constraints, the copies wait without labels, and opening one builds the
  // cluster again with its labels and the pods placed so far.
  const bool spread = std::any_of(pods.begin(), pods.end(),
                                  [](const Pod* p) { return !p->topology_spread.empty(); });
  nodes.reserve(base + count);
  std::vector<Labels> labels_of;  // per copy, when they wait without them
  for (size_t i = 0; i < count; ++i) {
    Node n = renamed_copy(t.node, t.node.name + "-" + std::to_string(i));
    for (const Pod& p : t.pods) {
      Pod copy = p;
      copy.node_name = n.name;
      node_pods.push_back(std::move(copy));
    }
    if (spread) labels_of.push_back(std::exchange(n.labels, {}));
    nodes.push_back(std::move(n));
  }
  const ApiObjects no_objects;
  const ApiObjects& objects = fork.objects ? *fork.objects : no_objects;
  auto cluster = Cluster::build(nodes, node_pods, objects);
  if (!cluster) return cluster.error();
  Cluster& c = *cluster;
  std::optional<Plans> plans(std::in_place, c, profile);
  std::vector<uint8_t> has_pods(count, 0);  // per new node
  ClassRejections rejections;
  // Opens the k-th copy where copies wait without labels.
  auto open_labelled = [&](size_t k) -> Status {
    nodes[base + k].labels = labels_of[k];
    auto rebuilt = Cluster::build(nodes, node_pods, objects);
    if (!rebuilt) return rebuilt.error();
    c = std::move(*rebuilt);
    plans.emplace(c, profile);
    rejections = ClassRejections();
    return Ok{};
  };
  bool refused = false;  // newNodesAvailable is false
  NodeIndex opened = 0;  // new nodes opened; the k-th is the cluster's node base + k
  auto at_new = [&](size_t k) { return static_cast<NodeIndex>(base + k); };
  std::set<NodeIndex> other_nodes_with_pods;  // of the snapshot's, by the hostname fallback
  enum class Step { kExisting, kNew, kDone } step = Step::kDone;
  std::optional<uint32_t> group;
  for (size_t idx : order) {
    const Pod& pod = *pods[idx];
    const uint32_t cls = classes.empty() ? kOwnClass : classes[idx];
    if (!group || *group != cls || cls == kOwnClass) {
      group = cls;
      step = Step::kExisting;
    }
    if (step == Step::kDone) continue;
    auto found = plans->get(pod, cls);
    if (!found) return found.error();
    PlanWithScratch* planned = *found;
    const bool uses_hostname = std::any_of(pod.topology_spread.begin(), pod.topology_spread.end(),
                                           [](const TopologySpreadConstraint& t) {
                                             return t.topology_key == "kubernetes.io/hostname";
                                           });
    // Whether the k-th new node passes (PreFilter's node set included).
    auto fits = [&](size_t k) { return rejections.fits(cls, *planned, c, at_new(k)); };
    // tryToScheduleOnNewNodes: a pod with a spread constraint on
    // kubernetes.io/hostname that the last new node rejects for the
    // constraints' skew (PodTopologySpread first to fail, with
    // ErrReasonConstraintsNotMatch) is tried on every other node of the
    // fork, round-robin: real, upcoming and new alike. CA counts the node it
    // lands on among the new nodes with pods, a real one too.
    auto hostname_fallback = [&](size_t last) -> std::optional<NodeIndex> {
      const PodPlan* plan = &planned->plan;
      if (!uses_hostname || plan->prefilter_conflict()) return std::nullopt;
      const NodeIndex ln = at_new(last);
      if (!plan->in_prefilter_set(ln)) return std::nullopt;
      const NodeStatus st = plan->filter(planned->scratch, c, ln);
      if (st.plugin != Plugin::PodTopologySpread || st.detail != plugins::kSpreadSkew)
        return std::nullopt;
      const size_t list = listed + opened;
      const size_t from = rr.start(list);
      for (size_t i = 0; i < list; ++i) {
        const size_t position = (from + i) % list;
        if (position == listed + last) continue;
        // Without the snapshot's contents the fork holds the new nodes alone.
        if (position < listed && base == 0) continue;
        const NodeIndex n =
            static_cast<NodeIndex>(position < listed ? position : base + (position - listed));
        if (c.node(n).unschedulable || !plan->in_prefilter_set(n) ||
            !plan->filter(planned->scratch, c, n).ok())
          continue;
        rr.matched(position);
        return n;
      }
      return std::nullopt;
    };
    std::optional<size_t> at;  // a new node
    if (step == Step::kExisting) {
      if (!planned->plan.prefilter_conflict() && opened > 0) {
        const size_t list = listed + opened;
        const size_t from = rr.start(list);
        for (size_t i = 0; i < list && !at; ++i) {
          const size_t position = (from + i) % list;
          if (position < listed) continue;
          if (fits(position - listed)) {
            at = position - listed;
            rr.matched(position);
          }
        }
      }
      if (!at) step = refused ? Step::kDone : Step::kNew;
    }
    std::optional<NodeIndex> elsewhere;  // the hostname fallback's node, any of the fork's
    if (!at && step == Step::kNew) {
      if (opened > 0 && fits(opened - 1)) {
        at = opened - 1;
      } else if (opened > 0 && (elsewhere = hostname_fallback(opened - 1))) {
        // placed below
      } else if (opened > 0 && !has_pods[opened - 1]) {
        // An empty last node that did not take the pod means a fresh one won't.
        step = Step::kDone;
      } else if (opened >= count) {  // the limiter refuses another node
        if (!final) {
          ran_out = true;
          break;
        }
        refused = true;
        step = Step::kDone;
      } else {
        const size_t k = opened++;
        if (spread) {
          if (auto st = open_labelled(k); !st) return st.error();
          auto again = plans->get(pod, cls);  // the plan of the cluster built again
          if (!again) return again.error();
          planned = *again;
        }
        if (fits(k)) {
          at = k;
        } else {
          step = Step::kDone;
        }
      }
    }
    auto keep = [&](NodeIndex n) {
      if (!spread) return;
      node_pods.push_back(pod);
      node_pods.back().node_name = c.name(n);
    };
    if (elsewhere) {
      keep(*elsewhere);
      c.place(*elsewhere, unreserved(planned->plan.bound(pod.key())));
      if (*elsewhere >= base) {
        has_pods[*elsewhere - base] = 1;
      } else {
        other_nodes_with_pods.insert(*elsewhere);
      }
      e.scheduled.push_back(idx);
      continue;
    }
    if (!at) continue;
    keep(at_new(*at));
    c.place(at_new(*at), unreserved(planned->plan.bound(pod.key())));
    has_pods[*at] = 1;
    e.scheduled.push_back(idx);
  }
  // len(newNodesWithPods): the new nodes that got pods, and any other node
  // the hostname fallback put one on.
  e.node_count = std::count(has_pods.begin(), has_pods.end(), 1) +
                 static_cast<int64_t>(other_nodes_with_pods.size());
  return e;
}

}  // namespace

double estimator_score(const Pod& pod, const Node& template_node) {
  // calculatePodScore (decreasing_pod_orderer.go) over podutils.PodRequests,
  // resourcehelper.PodRequests: init containers, sidecars, pod-level requests
  // and overhead count. float64(cpu milli) / float64(allocatable milli) +
  // float64(bytes) / float64(bytes).
  const ResourceList requests = pod_requests(pod, false);
  auto request = [&](std::string_view resource) {
    const int64_t* v = find_resource(requests, resource);
    return static_cast<double>(v ? *v : 0);
  };
  double score = 0;
  const int64_t* cpu = find_resource(template_node.allocatable, "cpu");
  if (cpu && *cpu > 0) score += request("cpu") / static_cast<double>(*cpu);
  const int64_t* mem = find_resource(template_node.allocatable, "memory");
  if (mem && *mem > 0) score += request("memory") / static_cast<double>(*mem);
  return score;
}

Result<Estimate> estimate(const NodeTemplate& t, const std::vector<const Pod*>& pods,
                          const Profile& profile, int64_t max_nodes,
                          const std::vector<uint32_t>& classes) {
  NodeRoundRobin fresh;
  return estimate_in_snapshot(t, pods, profile, max_nodes, classes, fresh, 0);
}

Result<Estimate> estimate_in_snapshot(const NodeTemplate& t, const std::vector<const Pod*>& pods,
                                      const Profile& profile, int64_t max_nodes,
                                      const std::vector<uint32_t>& classes, NodeRoundRobin& rr,
                                      size_t listed, const ForkInput& fork) {
  if (pods.empty()) return Estimate{};
  std::vector<double> score(pods.size());
  for (size_t i = 0; i < pods.size(); ++i) score[i] = estimator_score(*pods[i], t.node);
  std::vector<size_t> order(pods.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return score[a] > score[b]; });

  // Every pod needs at most one new node, but most estimates need far fewer
  // than one per pod: pack onto a batch of template copies and, only when the
  // batch runs out before the limiter's count, start over with twice as many.
  // Nodes not opened yet change nothing, so the answer is the same.
  const size_t capacity =
      std::min(pods.size(), static_cast<size_t>(std::max<int64_t>(max_nodes, 0)));
  size_t first = 32;
  if (const double need = nodes_by_requests(t.node, pods); need < static_cast<double>(capacity)) {
    first = std::max(first, static_cast<size_t>(need * 1.25) + 8);  // packing is rarely perfect
  } else {
    first = capacity;
  }
  for (size_t batch = std::min(capacity, first);; batch = std::min(capacity, 2 * batch)) {
    bool ran_out = false;
    NodeRoundRobin trial = rr;
    auto e = pack(t, pods, order, classes, profile, batch, batch == capacity, trial, listed, fork,
                  ran_out);
    if (!e || !ran_out) {
      if (e) rr = trial;
      return e;
    }
  }
}

int64_t estimation_limit(int64_t max_size, int64_t target_size, int64_t max_nodes_total,
                         int64_t current_nodes) {
  // getMinLimit: a negative threshold wins, zero means none, else the smallest.
  auto min_limit = [](int64_t base, int64_t next) -> int64_t {
    if (base < 0 || next < 0) return -1;
    if ((base == 0 || base > next) && next > 0) return next;
    return base;
  };
  int64_t limit = min_limit(0, kMaxNodesPerScaleUp);
  const int64_t room = max_size - target_size;
  limit = min_limit(limit, room > 0 ? room : -1);
  if (max_nodes_total != 0) {
    limit = min_limit(limit, max_nodes_total < 0 || max_nodes_total <= current_nodes
                                 ? -1
                                 : max_nodes_total - current_nodes);
  }
  return limit;
}

}  // namespace tightpack::autoscaler
