#include "tightpack/advice/fixes.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "tightpack/pools/scale_up_prediction.hpp"

namespace tightpack::advice {
namespace {

// A change decided again, with what it achieved.
struct Tried {
  Fix fix;
  Pod pod;
  Placement placement;
};

// What the owner adds so that copies may go to the pool's new node.
std::vector<Toleration> tolerations_for(const Pod& pod, const Node& node) {
  std::vector<Toleration> out;
  for (const Taint& t : node.taints) {
    if (t.effect != "NoSchedule" && t.effect != "NoExecute") continue;
    if (tolerations_tolerate(pod.tolerations, t)) continue;
    out.push_back(
        Toleration{t.key, t.value.empty() ? "Exists" : "Equal", t.value, t.effect, std::nullopt});
  }
  return out;
}

Pod with(const Pod& pod, const PodChange& change) {
  Pod out = pod;
  for (const Toleration& t : change.add_tolerations) out.tolerations.push_back(t);
  for (const auto& [k, v] : change.add_node_selector) {
    Labels& selector = out.node_selector.mut();
    auto it = std::lower_bound(selector.begin(), selector.end(), k,
                               [](const auto& l, const std::string& key) { return l.first < key; });
    selector.insert(it, {k, v});
  }
  return out;
}

double cost(const Fix& f) {
  double c = 1.0 * static_cast<double>(f.change.add_tolerations.size()) +
             0.75 * static_cast<double>(f.change.add_node_selector.size());
  if (f.change.shape) {
    double cut = 0;
    for (const auto& [name, change] : f.change.shape->change) cut = std::max(cut, -change);
    c += 0.25 + cut;
  }
  if (f.max_size) c += 2.0;
  return c;
}

std::string key_of(const Fix& f) {
  std::string k = f.max_size ? f.max_size->pool + ":" + std::to_string(f.max_size->to) : "";
  for (const Toleration& t : f.change.add_tolerations)
    k += "|t" + t.key + "=" + t.value + ":" + t.effect;
  for (const auto& [key, v] : f.change.add_node_selector) k += "|s" + key + "=" + v;
  if (f.change.shape) {
    for (const auto& [name, v] : f.change.shape->requests) k += "|r" + name + std::to_string(v);
  }
  if (f.change.replicas) k += "|n" + std::to_string(*f.change.replicas);
  return k;
}

class Search {
 public:
  Search(const FixesInput& in, Outcome as_is) : in_(in), as_is_(std::move(as_is)) {}

  // Decides `pod` again; keeps the change when it gains.
  Status attempt(const std::string& pool, PodChange change, const Pod& pod,
                 const WhatIfCluster::MaxSizes& max_sizes = {},
                 std::optional<MaxSizeChange> max_size = std::nullopt) {
    const int64_t replicas = change.replicas.value_or(in_.replicas);
    const bool raised = max_size.has_value();
    auto placed = in_.cluster.place(pod, replicas, in_.profile, max_sizes);
    if (!placed) return placed.error();
    Tried t{Fix{pool, std::move(change), std::move(max_size), outcome_of(*placed, in_.intent), 0},
            pod, std::move(*placed)};
    t.fix.gained = t.fix.outcome.meant() - as_is_.meant();
    const bool fewer = t.fix.change.replicas.has_value();
    const bool keep = t.fix.outcome.off_pool <= as_is_.off_pool &&
                      (fewer ? t.fix.outcome.never == 0 : t.fix.gained > 0);
    if (!raised) tried_.push_back(t);
    if (keep && seen_.insert(key_of(t.fix)).second) kept_.push_back(std::move(t));
    return Ok{};
  }

  // Each change decided so far, with its max sizes raised where it needs
  // them: a change that gains nothing alone (a selector that keeps copies off
  // the hub's pool) may be the best one with room to grow.
  Status raise_max_sizes_of_tried() {
    const std::vector<Tried> tried = tried_;
    for (const Tried& t : tried) {
      if (auto st = raise_max_sizes(t.fix.pool, t.fix.change, t.pod, t.placement); !st) return st;
    }
    return Ok{};
  }

  // Raises the max size of each meant pool the answer leaves at its max to
  // what the copies need, then decides again with that max size.
  Status raise_max_sizes(const std::string& pool, const PodChange& change, const Pod& pod,
                         const Placement& placement) {
    if (!placement.scale_up) return Ok{};
    const pools::ResolvedPools& resolved = placement.scale_up->resolved;
    std::vector<std::string> full;
    for (const auto& g : placement.scale_up->prediction.growth) {
      if (g.max_size_reached) full.push_back(g.pool);
    }
    for (const auto& u : placement.scale_up->prediction.unplaced) {
      for (const auto& [p, max] : u.pools_at_max) full.push_back(p);
    }
    std::sort(full.begin(), full.end());
    full.erase(std::unique(full.begin(), full.end()), full.end());
    for (const std::string& name : full) {
      if (!meant(in_.intent, name) || (!pool.empty() && name != pool)) continue;
      auto np = std::find_if(resolved.pools.begin(), resolved.pools.end(),
                             [&](const pools::NodePool& p) { return p.name == name; });
      // An inferred pool's max size is not known: there is nothing to raise.
      if (np == resolved.pools.end() || !np->max_size) continue;
      const auto size = static_cast<int64_t>(np->nodes.size());
      const int64_t room =
          std::min<int64_t>(kMostNodes, size + change.replicas.value_or(in_.replicas));
      if (room <= *np->max_size) continue;
      auto unbounded = in_.cluster.place(pod, change.replicas.value_or(in_.replicas), in_.profile,
                                         {{name, room}});
      if (!unbounded) return unbounded.error();
      int64_t added = 0;
      if (unbounded->scale_up) {
        for (const auto& g : unbounded->scale_up->prediction.growth) {
          if (g.pool == name) added += g.nodes_added;
        }
      }
      const int64_t needed = size + added;
      if (needed <= *np->max_size) continue;
      if (auto st = attempt(name, change, pod, {{name, needed}},
                            MaxSizeChange{name, *np->max_size, needed});
          !st)
        return st;
    }
    return Ok{};
  }

  std::vector<Fix> ranked() {
    auto rank = [](const Fix& f) {
      return std::make_tuple(f.change.replicas.has_value(), -f.gained, f.outcome.nodes_added,
                             cost(f), f.pool);
    };
    std::sort(kept_.begin(), kept_.end(),
              [&](const Tried& a, const Tried& b) { return rank(a.fix) < rank(b.fix); });
    std::vector<Fix> out;
    for (Tried& t : kept_) out.push_back(std::move(t.fix));
    return out;
  }

  static constexpr int64_t kMostNodes = 10000;  // the NodePools document's limit

 private:
  const FixesInput& in_;
  const Outcome as_is_;
  std::vector<Tried> kept_;
  std::vector<Tried> tried_;  // every change to the pod, kept or not
  std::set<std::string> seen_;
};

}  // namespace

Outcome outcome_of(const Placement& p, const std::vector<PoolIntent>& intent) {
  Outcome o;
  o.replicas = p.replicas;
  o.now = p.placed;
  std::map<std::string, int64_t> per_pool;
  for (const LandedNode& n : p.nodes) per_pool[n.pool.value_or("")] += n.replicas;
  o.nodes = static_cast<int64_t>(p.nodes.size());
  if (p.scale_up) {
    for (const pools::PoolGrowth& g : p.scale_up->prediction.growth) {
      if (g.replicas.empty()) continue;
      const auto n = static_cast<int64_t>(g.replicas.size());
      o.after_scale_up += n;
      per_pool[g.pool] += n;
      o.nodes_added += g.nodes_added;
      o.ready_in_seconds = std::max(o.ready_in_seconds, g.ready_in_seconds);
    }
  }
  o.nodes += o.nodes_added;
  o.never = o.replicas - o.now - o.after_scale_up;
  for (const auto& [pool, n] : per_pool) {
    if (!pool.empty() && !meant(intent, pool)) o.off_pool += n;
    o.pools.emplace_back(pool, n);
  }
  return o;
}

Result<std::vector<Fix>> find_fixes(const FixesInput& in) {
  const Outcome as_is = outcome_of(in.as_is, in.intent);
  if (!in.cluster.has_pools() || (as_is.never == 0 && as_is.off_pool == 0)) {
    return std::vector<Fix>{};
  }
  Search search(in, as_is);
  const pools::ResolvedPools& resolved = *in.cluster.resolved_pools();
  for (const pools::PoolTemplate& t : in.templates) {
    if (!meant(in.intent, t.pool)) continue;
    PodChange base;
    base.add_tolerations = tolerations_for(in.pod, t.node.node);
    const Pod tolerant = with(in.pod, base);
    if (!base.add_tolerations.empty()) {
      if (auto st = search.attempt(t.pool, base, tolerant); !st) return st.error();
    }
    // A selector keeps copies off the pools they are not meant for; one the
    // pod already sets is never changed.
    auto label = pools::selecting_label(resolved, t.pool, t.node.node);
    if (as_is.off_pool > 0 && label && !find_label(in.pod.node_selector, label->first)) {
      PodChange selected = base;
      selected.add_node_selector.push_back(*label);
      if (auto st = search.attempt(t.pool, selected, with(in.pod, selected)); !st)
        return st.error();
    }
    // The first shape only: the smallest cut that fits one more copy. Deeper
    // cuts fit more but change the work; the tiling shows them.
    auto tiling =
        tile_pool(t, in.cluster.snapshot().objects, in.profile, tolerant, TilingOptions{1, 0.5});
    if (!tiling) return tiling.error();
    if (!*tiling) continue;
    for (const Shape& shape : (*tiling)->suggestions) {
      auto smaller = resized(tolerant, shape.requests);
      if (!smaller) continue;
      PodChange sized = base;
      sized.shape = shape;
      if (auto st = search.attempt(t.pool, sized, *smaller); !st) return st.error();
    }
  }
  // What the operator could do: for the pod as it is, and for each change.
  if (auto st = search.raise_max_sizes("", PodChange{}, in.pod, in.as_is); !st) return st.error();
  if (auto st = search.raise_max_sizes_of_tried(); !st) return st.error();
  if (as_is.never > 0 && as_is.now + as_is.after_scale_up > 0) {
    PodChange fewer;
    fewer.replicas = as_is.now + as_is.after_scale_up;
    if (auto st = search.attempt("", fewer, in.pod); !st) return st.error();
  }
  return search.ranked();
}

}  // namespace tightpack::advice
