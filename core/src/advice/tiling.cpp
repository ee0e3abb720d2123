#include "tightpack/advice/tiling.hpp"

#include <algorithm>

#include "tightpack/cluster.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/pod_resources.hpp"
#include "tightpack/simulate.hpp"

namespace tightpack::advice {
namespace {

constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;
// No node runs more pods than this (kubelet's --max-pods tops out at 250 on
// the clouds); a cap keeps an absurd allocatable from running away.
constexpr int64_t kMostCopies = 1000;

// One resource the pod asks for on the new node.
struct Row {
  std::string name;
  int64_t request = 0, free = 0, allocatable = 0;
  bool scalable = false;  // cpu, memory, ephemeral-storage: GPUs stay whole
};

Result<Cluster> one_node(const pools::PoolTemplate& t, const ApiObjects& objects) {
  return Cluster::build({t.node.node}, t.node.pods, objects);
}

std::vector<Row> rows(const Cluster& c, const PodUsage& u) {
  std::vector<Row> out;
  auto add = [&](std::string name, int64_t request, int64_t alloc, int64_t requested,
                 bool scalable) {
    if (request > 0)
      out.push_back(Row{std::move(name), request, alloc - requested, alloc, scalable});
  };
  add("cpu", u.cpu, c.alloc_cpu()[0], c.req_cpu()[0], true);
  add("memory", u.memory, c.alloc_memory()[0], c.req_memory()[0], true);
  add("ephemeral-storage", u.ephemeral, c.alloc_ephemeral()[0], c.req_ephemeral()[0], true);
  for (const auto& [index, amount] : u.scalars) {
    add(c.scalar_name(index), amount, c.alloc_scalar(index)[0], c.req_scalar(index)[0], false);
  }
  for (const auto& [name, amount] : u.unknown_scalars) add(name, amount, 0, 0, false);
  return out;
}

// Copies of `pod` the node of `t` takes, placed one by one.
Result<int64_t> copies_fitting(const pools::PoolTemplate& t, const ApiObjects& objects,
                               const Profile& profile, const Pod& pod, int64_t at_most) {
  auto c = one_node(t, objects);
  if (!c) return c.error();
  auto placed = simulate_replicas(*c, profile, pod, at_most);
  if (!placed) return placed.error();
  return static_cast<int64_t>(std::count_if(placed->replicas.begin(), placed->replicas.end(),
                                            [](const ReplicaPlacement& r) { return r.node; }));
}

// What rejects one more copy once `per_node` are there.
Result<std::string> binding_of(const pools::PoolTemplate& t, const ApiObjects& objects,
                               const Profile& profile, const Pod& pod, int64_t per_node,
                               const std::vector<Row>& rs, int64_t pod_room) {
  int64_t fewest = pod_room;
  std::string by = "pods";
  bool by_scalable = false;
  for (const Row& r : rs) {
    const int64_t cap = r.free < 0 ? 0 : r.free / r.request;
    // On a tie, a GPU binds before memory: no smaller shape gets past it.
    if (cap < fewest || (cap == fewest && by_scalable && !r.scalable)) {
      fewest = cap;
      by = r.name;
      by_scalable = r.scalable;
    }
  }
  if (fewest == per_node) return by;
  // Something else stops it first: name the filter.
  auto c = one_node(t, objects);
  if (!c) return c.error();
  if (per_node > 0) {
    auto placed = simulate_replicas(*c, profile, pod, per_node);
    if (!placed) return placed.error();
  }
  auto plan = PodPlan::make(*c, profile, pod);
  if (!plan) return plan.error();
  PlanScratch scratch;
  const Decision d = decide(*plan, *c, scratch);
  if (d.prefilter_rejected || d.statuses.empty()) return std::string("PreFilter");
  return std::string(plugin_name(d.statuses.front().plugin));
}

__int128 wide(int64_t v) {
  return static_cast<__int128>(v);
}

// The largest shape at or below the request with which `k` copies fit by
// the arithmetic of NodeResourcesFit: the resources that bind at k shrink by
// one factor (the request's proportions kept among them), the others stay.
std::optional<ResourceList> shape_for(const std::vector<Row>& rs, int64_t k) {
  const Row* tightest = nullptr;  // smallest free / (k × request)
  for (const Row& r : rs) {
    if (wide(k) * r.request <= r.free) continue;
    if (!r.scalable) return std::nullopt;  // a GPU is not split
    if (!tightest || wide(r.free) * tightest->request < wide(tightest->free) * r.request)
      tightest = &r;
  }
  if (!tightest || tightest->free <= 0) return std::nullopt;
  ResourceList out;
  for (const Row& r : rs) {
    int64_t v = r.request;
    if (wide(k) * r.request > r.free) {
      // r.request × free_t / (k × request_t), exact and rounded down.
      v = static_cast<int64_t>(wide(r.request) * tightest->free / (wide(k) * tightest->request));
      v = round_down(r.name, v);
    }
    if (v <= 0) return std::nullopt;
    set_resource(out, r.name, v);
  }
  return out;
}

Shares changes(const std::vector<Row>& rs, const ResourceList& to) {
  Shares out;
  for (const Row& r : rs) {
    const int64_t* v = find_resource(to, r.name);
    out.emplace_back(r.name, static_cast<double>(*v - r.request) / static_cast<double>(r.request));
  }
  return out;
}

double largest_cut(const Shares& change) {
  double cut = 0;
  for (const auto& [name, c] : change) cut = std::max(cut, -c);
  return cut;
}

Result<std::vector<Shape>> suggestions(const pools::PoolTemplate& t, const ApiObjects& objects,
                                       const Profile& profile, const Pod& pod,
                                       const PoolTiling& tiling, const std::vector<Row>& rs,
                                       const TilingOptions& options) {
  std::vector<Shape> out;
  for (int64_t k = tiling.per_node + 1; k <= kMostCopies && out.size() < options.max_suggestions;
       ++k) {
    auto requests = shape_for(rs, k);
    if (!requests) break;
    Shape s;
    s.per_node = k;
    s.change = changes(rs, *requests);
    if (largest_cut(s.change) > options.max_cut) break;
    auto smaller = resized(pod, *requests, &s.container);
    if (!smaller) break;
    // Placed again: exactly k copies, or the arithmetic missed a rule.
    auto fitting = copies_fitting(t, objects, profile, *smaller, k + 1);
    if (!fitting) return fitting.error();
    if (*fitting != k) continue;
    s.requests = std::move(*requests);
    for (const Container& c : smaller->containers) {
      if (c.name != s.container) continue;
      for (const Row& r : rs) {
        if (const int64_t* v = find_resource(c.requests, r.name))
          set_resource(s.container_requests, r.name, *v);
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

int64_t round_down(const std::string& resource, int64_t amount) {
  int64_t step = 1;
  if (resource == "cpu") {
    step = amount >= 1000 ? 10 : amount >= 100 ? 5 : 1;
  } else if (resource == "memory" || resource == "ephemeral-storage") {
    step = amount >= kGi ? 64 * kMi : amount >= kMi ? kMi : 1;
  }
  return amount / step * step;
}

std::optional<Pod> resized(const Pod& pod, const ResourceList& requests, std::string* container) {
  Pod out = pod;
  const ResourceList now = pod_requests(pod, false);
  // The new amounts are whole units: the int64 sums are PodRequests' again.
  out.go_requests = {};
  for (const auto& [name, want] : requests) {
    const int64_t* have = find_resource(now, name);
    const int64_t delta = (have ? *have : 0) - want;
    if (delta == 0) continue;
    if (const int64_t* level = find_resource(out.pod_requests, name)) {
      set_resource(out.pod_requests, name, *level - delta);
      continue;
    }
    Container* largest = nullptr;
    for (Container& c : out.containers.mut()) {
      const int64_t* v = find_resource(c.requests, name);
      if (!v) continue;
      if (!largest || *v > *find_resource(largest->requests, name)) largest = &c;
    }
    if (!largest) return std::nullopt;
    const int64_t old = *find_resource(largest->requests, name);
    if (old - delta <= 0) return std::nullopt;
    set_resource(largest->requests, name, old - delta);
    if (const int64_t* limit = find_resource(largest->limits, name); limit && *limit == old)
      set_resource(largest->limits, name, old - delta);
    if (container) *container = largest->name;
  }
  const ResourceList after = pod_requests(out, false);
  for (const auto& [name, want] : requests) {
    const int64_t* got = find_resource(after, name);
    if (!got || *got != want) return std::nullopt;
  }
  return out;
}

Result<std::optional<PoolTiling>> tile_pool(const pools::PoolTemplate& t, const ApiObjects& objects,
                                            const Profile& profile, const Pod& pod,
                                            const TilingOptions& options) {
  auto c = one_node(t, objects);
  if (!c) return c.error();
  auto plan = PodPlan::make(*c, profile, pod);
  if (!plan) return plan.error();
  PlanScratch scratch;
  const Decision first = decide(*plan, *c, scratch);
  if (!first.chosen) {
    // Only a node too small is worth sizing for.
    if (first.prefilter_rejected || first.statuses.empty() ||
        first.statuses.front().plugin != Plugin::NodeResourcesFit) {
      return std::optional<PoolTiling>();
    }
  }
  const std::vector<Row> rs = rows(*c, plan->usage());
  // A node without any of a resource the pod asks for (a GPU) is no size.
  if (std::any_of(rs.begin(), rs.end(), [](const Row& r) { return r.allocatable <= 0; }))
    return std::optional<PoolTiling>();
  const int64_t pod_room = std::max<int64_t>(0, c->allowed_pods()[0] - c->pod_count()[0]);

  PoolTiling tiling;
  tiling.pool = t.pool;
  tiling.allocatable = t.node.node.allocatable;
  for (const Row& r : rs) set_resource(tiling.free, r.name, r.free);
  auto per_node = first.chosen ? copies_fitting(t, objects, profile, pod,
                                                std::min(pod_room, kMostCopies - 1) + 1)
                               : Result<int64_t>(int64_t{0});
  if (!per_node) return per_node.error();
  tiling.per_node = *per_node;
  auto binding = binding_of(t, objects, profile, pod, tiling.per_node, rs, pod_room);
  if (!binding) return binding.error();
  tiling.binding = std::move(*binding);
  double binding_idle = 0;
  for (const Row& r : rs) {
    if (r.allocatable <= 0) continue;
    const double idle = static_cast<double>(r.free - tiling.per_node * r.request) /
                        static_cast<double>(r.allocatable);
    tiling.idle.emplace_back(r.name, idle);
    if (r.name == tiling.binding) binding_idle = idle;
  }
  const bool by_resource = std::any_of(
      rs.begin(), rs.end(), [&](const Row& r) { return r.name == tiling.binding && r.scalable; });
  if (by_resource) {
    auto shapes = suggestions(t, objects, profile, pod, tiling, rs, options);
    if (!shapes) return shapes.error();
    tiling.suggestions = std::move(*shapes);
  }
  tiling.worth_tiling = !tiling.suggestions.empty() && binding_idle > kWorthTiling;
  return std::optional<PoolTiling>(std::move(tiling));
}

Result<std::vector<PoolTiling>> tile(const std::vector<pools::PoolTemplate>& templates,
                                     const ApiObjects& objects, const Profile& profile,
                                     const Pod& pod, const TilingOptions& options,
                                     const std::vector<PoolIntent>* only) {
  std::vector<PoolTiling> out;
  for (const pools::PoolTemplate& t : templates) {
    if (only && !meant(*only, t.pool)) continue;
    auto one = tile_pool(t, objects, profile, pod, options);
    if (!one) return one.error();
    if (*one) out.push_back(std::move(**one));
  }
  return out;
}

}  // namespace tightpack::advice
