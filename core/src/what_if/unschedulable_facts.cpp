#include "tightpack/what_if/unschedulable_facts.hpp"

#include <algorithm>

#include "tightpack/pools/scale_up_prediction.hpp"

namespace tightpack {
namespace {

template <class T, class Key>
T& entry(std::vector<T>& list, const std::string& name, Key key) {
  auto it = std::find_if(list.begin(), list.end(), [&](const T& e) { return e.*key == name; });
  if (it != list.end()) return *it;
  list.push_back(T{});
  list.back().*key = name;
  return list.back();
}

void shortfall(UnschedulableFacts& f, const Cluster& c, NodeIndex n, const std::string* pool,
               const std::string& name, int64_t requested, int64_t free) {
  if (requested <= 0 || requested <= free) return;
  auto& s = entry(f.insufficient, name, &UnschedulableFacts::Shortfall::resource);
  s.requested = requested;
  if (s.node.empty() || free > s.largest_free) {
    s.largest_free = std::max<int64_t>(free, 0);
    s.node = c.name(n);
    s.pool = pool ? std::optional<std::string>(*pool) : std::nullopt;
  }
}

void add_taints(UnschedulableFacts& f, const Cluster& c, NodeIndex n, const Pod& pod,
                const std::string* pool) {
  for (const Taint& t : c.taints_of_set(c.taint_set(n))) {
    if (t.effect != "NoSchedule" && t.effect != "NoExecute") continue;
    if (tolerations_tolerate(pod.tolerations, t)) continue;
    auto& e = entry(f.untolerated_taints, pools::taint_text(t), &UnschedulableFacts::Taint::taint);
    ++e.nodes;
    if (pool && std::find(e.pools.begin(), e.pools.end(), *pool) == e.pools.end())
      e.pools.push_back(*pool);
  }
}

void add_shortfalls(UnschedulableFacts& f, const PodPlan& plan, const Cluster& c, NodeIndex n,
                    const std::string* pool) {
  const PodUsage& u = plan.usage();
  shortfall(f, c, n, pool, "cpu", u.cpu, c.alloc_cpu()[n] - c.req_cpu()[n]);
  shortfall(f, c, n, pool, "memory", u.memory, c.alloc_memory()[n] - c.req_memory()[n]);
  shortfall(f, c, n, pool, "ephemeral-storage", u.ephemeral,
            c.alloc_ephemeral()[n] - c.req_ephemeral()[n]);
  for (const auto& [index, amount] : u.scalars) {
    shortfall(f, c, n, pool, c.scalar_name(index), amount,
              c.alloc_scalar(index)[n] - c.req_scalar(index)[n]);
  }
}

void finish(UnschedulableFacts& f, const PodPlan& plan) {
  for (const auto& [name, amount] : plan.usage().unknown_scalars) {
    if (amount > 0) f.unoffered.push_back(name);
  }
  std::sort(f.untolerated_taints.begin(), f.untolerated_taints.end(),
            [](const auto& a, const auto& b) { return a.taint < b.taint; });
  for (auto& t : f.untolerated_taints) std::sort(t.pools.begin(), t.pools.end());
  std::sort(f.unoffered.begin(), f.unoffered.end());
  // fitsRequest's order: cpu, memory, ephemeral-storage, then scalars by name.
  auto rank = [](const std::string& r) {
    return r == "cpu" ? 0 : r == "memory" ? 1 : r == "ephemeral-storage" ? 2 : 3;
  };
  std::sort(f.insufficient.begin(), f.insufficient.end(), [&](const auto& a, const auto& b) {
    return std::pair(rank(a.resource), a.resource) < std::pair(rank(b.resource), b.resource);
  });
}

}  // namespace

UnschedulableFacts unschedulable_facts(
    const PodPlan& plan, const Cluster& c, const Decision& d, const Pod& pod,
    const std::function<const std::string*(NodeIndex)>& pool_of) {
  UnschedulableFacts f;
  for (size_t j = 0; j < d.filtered.size(); ++j) {
    const NodeStatus& s = d.statuses[j];
    const NodeIndex n = d.filtered[j];
    if (s.ok()) continue;
    if (s.plugin == Plugin::TaintToleration) add_taints(f, c, n, pod, pool_of(n));
    if (s.plugin == Plugin::NodeResourcesFit) add_shortfalls(f, plan, c, n, pool_of(n));
    if (s.plugin == Plugin::NodeAffinity) ++f.node_affinity_mismatch;
  }
  finish(f, plan);
  return f;
}

}  // namespace tightpack
