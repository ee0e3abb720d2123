// BinpackingNodeEstimator (estimator/binpacking_estimator.go): how many new
// nodes of a group the pending pods need, first-fit decreasing.
#include <algorithm>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "plans.hpp"
#include "tightpack/autoscaler.hpp"
#include "tightpack/cluster.hpp"
#include "tightpack/framework.hpp"
#include "tightpack/go_int.hpp"

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

// First fit decreasing onto `count` copies of the template, opened one by
// one. When a pod needs a copy beyond them: with `final` unset, `ran_out` and
// stop (the caller retries with more copies); with `final` set the limiter has
// refused the node, and as BinpackingNodeEstimator then gives up on the rest
// of that pod's equivalence group and lets later groups try only the nodes
// already opened (tryToScheduleOnExistingNodes, stopping a group at its first
// pod that fits none).
Result<Estimate> pack(const NodeTemplate& t, const std::vector<const Pod*>& pods,
                      const std::vector<size_t>& order, const std::vector<uint32_t>& classes,
                      const Profile& profile, size_t count, bool final, bool& ran_out) {
  Estimate e;
  std::vector<Node> nodes;
  std::vector<Pod> node_pods;
  nodes.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    Node n = renamed_copy(t.node, t.node.name + "-" + std::to_string(i));
    for (const Pod& p : t.pods) {
      Pod copy = p;
      copy.node_name = n.name;
      node_pods.push_back(std::move(copy));
    }
    nodes.push_back(std::move(n));
  }
  auto cluster = Cluster::build(std::move(nodes), node_pods);
  if (!cluster) return cluster.error();
  Cluster& c = *cluster;
  Plans plans(c, profile);
  std::vector<uint8_t> has_pods(c.size(), 0);
  // Nodes only gain pods here, so a node that rejected a pod rejects every
  // later pod of its class: each class resumes its first-fit scan where the
  // last one stopped.
  std::unordered_map<uint32_t, NodeIndex> first_candidate;
  std::unordered_set<uint32_t> given_up;  // classes no longer tried, once the limiter refused
  bool refused = false;
  NodeIndex opened = 0;
  for (size_t idx : order) {
    const Pod& pod = *pods[idx];
    const uint32_t cls = classes.empty() ? kOwnClass : classes[idx];
    if (refused && cls != kOwnClass && given_up.contains(cls)) continue;
    auto found = plans.get(pod, cls);
    if (!found) return found.error();
    const PodPlan* plan = *found;
    NodeIndex& from = first_candidate[cls];
    if (cls == kOwnClass) from = 0;
    std::optional<NodeIndex> at;
    for (NodeIndex n = from; n < opened && !at; ++n) {
      if (plan->in_prefilter_set(n) && !plan->prefilter_conflict() && plan->filter(c, n).ok())
        at = n;
    }
    from = at.value_or(opened);
    if (!at && refused) {
      given_up.insert(cls);
      continue;
    }
    if (!at) {
      // An empty last node that did not take the pod means a fresh one won't.
      if (opened > 0 && !has_pods[opened - 1]) continue;
      if (opened >= c.size()) {  // the limiter refuses another node
        if (!final) {
          ran_out = true;
          break;
        }
        refused = true;
        given_up.insert(cls);
        continue;
      }
      NodeIndex n = opened++;
      if (plan->in_prefilter_set(n) && !plan->prefilter_conflict() && plan->filter(c, n).ok())
        at = n;
    }
    if (!at) continue;
    c.place(*at, plan->bound(pod.key()));
    has_pods[*at] = 1;
    e.scheduled.push_back(idx);
  }
  e.node_count = std::count(has_pods.begin(), has_pods.end(), 1);
  return e;
}

}  // namespace

double estimator_score(const Pod& pod, const Node& template_node) {
  // float64(cpu milli) / float64(allocatable milli) + float64(bytes) / float64(bytes).
  double score = 0;
  const int64_t* cpu = find_resource(template_node.allocatable, "cpu");
  if (cpu && *cpu > 0)
    score += static_cast<double>(container_sum(pod, "cpu")) / static_cast<double>(*cpu);
  const int64_t* mem = find_resource(template_node.allocatable, "memory");
  if (mem && *mem > 0)
    score += static_cast<double>(container_sum(pod, "memory")) / static_cast<double>(*mem);
  return score;
}

Result<Estimate> estimate(const NodeTemplate& t, const std::vector<const Pod*>& pods,
                          const Profile& profile, int64_t max_nodes,
                          const std::vector<uint32_t>& classes) {
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
    auto e = pack(t, pods, order, classes, profile, batch, batch == capacity, ran_out);
    if (!e || !ran_out) return e;
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
