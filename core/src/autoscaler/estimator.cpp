// BinpackingNodeEstimator (estimator/binpacking_estimator.go): how many new
// nodes of a group the pending pods need, first-fit decreasing.
#include <algorithm>
#include <numeric>

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
                          const Profile& profile, int64_t max_nodes) {
  Estimate e;
  if (pods.empty()) return e;
  std::vector<double> score(pods.size());
  for (size_t i = 0; i < pods.size(); ++i) score[i] = estimator_score(*pods[i], t.node);
  std::vector<size_t> order(pods.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return score[a] > score[b]; });

  // Every pod needs at most one new node: build them all up front and open
  // them one by one, which is what adding a node to the snapshot amounts to.
  std::vector<Node> nodes;
  std::vector<Pod> node_pods;
  const size_t capacity =
      std::min(pods.size(), static_cast<size_t>(std::max<int64_t>(max_nodes, 0)));
  nodes.reserve(capacity);
  for (size_t i = 0; i < capacity; ++i) {
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
  std::vector<uint8_t> has_pods(c.size(), 0);
  NodeIndex opened = 0;
  for (size_t idx : order) {
    const Pod& pod = *pods[idx];
    auto plan = PodPlan::make(c, profile, pod);
    if (!plan) return plan.error();
    std::optional<NodeIndex> at;
    for (NodeIndex n = 0; n < opened && !at; ++n) {
      if (plan->in_prefilter_set(n) && !plan->prefilter_conflict() && plan->filter(c, n).ok())
        at = n;
    }
    if (!at) {
      // An empty last node that did not take the pod means a fresh one won't.
      if (opened > 0 && !has_pods[opened - 1]) continue;
      if (opened >= c.size()) break;  // the limiter refuses another node
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

}  // namespace tightpack::autoscaler
