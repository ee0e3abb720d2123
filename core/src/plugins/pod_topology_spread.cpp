#include "tightpack/plugins/pod_topology_spread.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "tightpack/go_math.hpp"
#include "tightpack/plugins/normalize.hpp"
#include "tightpack/plugins/taint_toleration.hpp"

namespace tightpack::plugins {
namespace {

constexpr const char* kHostnameKey = "kubernetes.io/hostname";

// schema.ParseGroupVersion + WithKind, compared with the three kinds
// DefaultSelector knows.
bool is_kind(const OwnerReference& o, std::string_view group, std::string_view kind) {
  std::string_view gv = o.api_version;
  std::string_view g, v;
  const size_t slash = gv.find('/');
  if (slash == std::string_view::npos) {
    v = gv;
  } else {
    if (gv.find('/', slash + 1) != std::string_view::npos) return false;  // not a group/version
    g = gv.substr(0, slash);
    v = gv.substr(slash + 1);
  }
  return g == group && v == "v1" && o.kind == kind;
}

// labels.Merge: later sets win on shared keys.
void merge(Labels& into, const Labels& other) {
  for (const auto& [k, v] : other) {
    auto it = std::lower_bound(into.begin(), into.end(), k,
                               [](const auto& e, const std::string& key) { return e.first < key; });
    if (it != into.end() && it->first == k) {
      it->second = v;
    } else {
      into.insert(it, {k, v});
    }
  }
}

// systemDefaultConstraints.
const std::vector<TopologySpreadConstraint>& system_default_spread() {
  static const std::vector<TopologySpreadConstraint> constraints = [] {
    std::vector<TopologySpreadConstraint> c(2);
    c[0].topology_key = kHostnameKey;
    c[0].when_unsatisfiable = "ScheduleAnyway";
    c[0].max_skew = 3;
    c[1].topology_key = "topology.kubernetes.io/zone";
    c[1].when_unsatisfiable = "ScheduleAnyway";
    c[1].max_skew = 5;
    return c;
  }();
  return constraints;
}

}  // namespace

Selector default_selector(const Pod& pod, const ApiObjects& objects, const OwnerIndex& owners) {
  Labels set;
  for (const auto& s : objects.services) {
    // A Service without a selector selects nothing, not everything.
    if (s.ns != pod.ns || !s.selector) continue;
    if (Selector::of_set(*s.selector).matches(pod.labels)) merge(set, *s.selector);
  }
  Selector selector = Selector::of_set(set);
  if (!pod.controller) return selector;
  const OwnerReference& owner = *pod.controller;
  if (is_kind(owner, "", "ReplicationController")) {
    const MapSelectorObject* rc = owners.replication_controller(objects, pod.ns, owner.name);
    if (!rc) return selector;
    if (rc->selector) merge(set, *rc->selector);
    return Selector::of_set(set);
  }
  const SelectorObject* o = nullptr;
  if (is_kind(owner, "apps", "ReplicaSet")) o = owners.replica_set(objects, pod.ns, owner.name);
  if (is_kind(owner, "apps", "StatefulSet")) o = owners.stateful_set(objects, pod.ns, owner.name);
  if (o) selector.add(Selector::of(o->selector));
  return selector;
}

std::vector<SpreadConstraint> spread_constraints(const Pod& pod, const SpreadArgs& args,
                                                 const ApiObjects& objects,
                                                 const OwnerIndex& owners, bool hard) {
  const std::string_view action = hard ? "DoNotSchedule" : "ScheduleAnyway";
  const bool own = !pod.topology_spread.empty();
  const std::vector<TopologySpreadConstraint>& source =
      own ? pod.topology_spread
          : (args.system_defaulting ? system_default_spread() : args.default_constraints);
  std::vector<SpreadConstraint> out;
  for (const auto& c : source) {
    if (c.when_unsatisfiable != action) continue;
    SpreadConstraint sc;
    sc.max_skew = c.max_skew;
    sc.topology_key = c.topology_key;
    sc.selector = Selector::of(c.label_selector);
    if (!c.match_label_keys.empty()) {
      // mergeLabelSetWithSelector: the pod's values of those keys, then the
      // selector's requirements; a nil selector stays Nothing().
      Labels set;
      for (const auto& key : c.match_label_keys) {
        if (const std::string* v = find_label(pod.labels, key)) merge(set, {{key, *v}});
      }
      if (!set.empty() && !sc.selector.is_nothing()) {
        Selector merged = Selector::of_set(set);
        merged.add(sc.selector);
        sc.selector = std::move(merged);
      }
    }
    sc.min_domains = c.min_domains.value_or(1);
    sc.honor_node_affinity = c.node_affinity_policy != "Ignore";
    sc.honor_node_taints = c.node_taints_policy == "Honor";
    out.push_back(std::move(sc));
  }
  if (own || out.empty()) return out;
  const Selector selector = default_selector(pod, objects, owners);
  if (selector.empty()) return {};
  for (auto& sc : out) sc.selector = selector;
  return out;
}

double spread_topology_weight(size_t size) {
  return go_log(static_cast<double>(size + 2));
}

double spread_score_for_count(int64_t count, int32_t max_skew, double topology_weight) {
  return static_cast<double>(count) * topology_weight + static_cast<double>(max_skew - 1);
}

void normalize_spread_scores(std::vector<int64_t>& scores) {
  int64_t min_score = std::numeric_limits<int64_t>::max(), max_score = 0;
  for (int64_t s : scores) {
    if (s == SpreadCounts::kNotScored) continue;
    min_score = std::min(min_score, s);
    max_score = std::max(max_score, s);
  }
  for (int64_t& s : scores) {
    if (s == SpreadCounts::kNotScored) {
      s = 0;
    } else if (max_score == 0) {
      s = kMaxNodeScore;
    } else {
      s = kMaxNodeScore * (max_score + min_score - s) / max_score;
    }
  }
}

SpreadCounts::SpreadCounts(const Cluster& c, const SpreadState& s)
    : ns_(s.ns),
      pod_labels_(s.labels),
      tolerations_(s.tolerations),
      require_all_soft_(s.require_all_soft) {
  const size_t n = c.size();
  // nodeLabelsMatchSpreadConstraints, for the soft constraints.
  has_all_soft_keys_.assign(n, 1);
  for (const auto& sc : s.soft) {
    const std::vector<StrId>* column = c.label_column(sc.topology_key);
    for (NodeIndex i = 0; i < n; ++i) {
      if (!column || (*column)[i] == kNoStr) has_all_soft_keys_[i] = 0;
    }
  }
  // The state's copy was bound to the cluster the plan was made for.
  RequiredNodeAffinity required = s.required ? *s.required : RequiredNodeAffinity(Pod{});
  required.bind(c);
  build(c, s.hard, true, true, required, hard_);
  build(c, s.soft, false, s.require_all_soft, required, soft_);
  generation_.assign(n, UINT32_MAX);
  for (auto& m : matchers_) m.per_node.assign(n, 0);
  sync(c);
}

size_t SpreadCounts::matcher_for(const Selector& s) {
  for (size_t i = 0; i < matchers_.size(); ++i) {
    if (matchers_[i].selector == s) return i;
  }
  matchers_.push_back(Matcher{s, {}, {}});
  return matchers_.size() - 1;
}

void SpreadCounts::build(const Cluster& c, const std::vector<SpreadConstraint>& list, bool hard,
                         bool require_all, const RequiredNodeAffinity& required,
                         std::vector<Domains>& out) {
  const size_t n = c.size();
  // Nodes that have every topology key of the list (hard constraints count
  // only there; soft ones when require_all).
  std::vector<uint8_t> all_keys(n, 1);
  for (const auto& sc : list) {
    const std::vector<StrId>* column = c.label_column(sc.topology_key);
    for (NodeIndex i = 0; i < n; ++i) {
      if (!column || (*column)[i] == kNoStr) all_keys[i] = 0;
    }
  }
  for (const auto& sc : list) {
    Domains d;
    d.selector = matcher_for(sc.selector);
    d.hostname = !hard && sc.topology_key == kHostnameKey;
    d.self_match = sc.selector.matches(pod_labels_);
    const Cluster::Domains& domains = c.domains(sc.topology_key);
    d.domain = domains.of_node;  // kNoDomain where the node lacks the key
    d.counted.assign(n, 0);
    d.total.assign(domains.count, 0);
    d.listed.assign(domains.count, 0);
    for (NodeIndex i = 0; i < n; ++i) {
      if (require_all && !all_keys[i]) continue;
      // matchNodeInclusionPolicies.
      if (sc.honor_node_affinity && !required.matches(c, i)) continue;
      if (sc.honor_node_taints &&
          first_untolerated_taint(c.taints_of_set(c.taint_set(i)), tolerations_) >= 0) {
        continue;
      }
      if (d.domain[i] == kNoDomain) continue;  // soft, system defaults: the "" domain, never read
      d.counted[i] = 1;
      if (!d.listed[d.domain[i]]) {
        d.listed[d.domain[i]] = 1;
        ++d.listed_count;
      }
    }
    d.constraint = sc;
    out.push_back(std::move(d));
  }
}

bool SpreadCounts::matches(const Matcher& m, const BoundPod& p) const {
  // countPodsMatchSelector: pods of the incoming pod's namespace, not
  // terminating; an empty selector counts nothing.
  if (m.selector.empty() || !p.meta || p.meta->terminating || p.meta->ns != ns_) return false;
  auto [found, fresh] = m.memo.find_or_add(p.meta);
  if (fresh) *found = m.selector.matches(p.meta->labels) ? 2 : 1;
  return *found == 2;
}

int64_t SpreadCounts::count(const Matcher& m, const std::vector<BoundPod>& pods) const {
  int64_t k = 0;
  for (const auto& p : pods) k += matches(m, p) ? 1 : 0;
  return k;
}

void SpreadCounts::sync(const Cluster& c) {
  if (instance_ == c.instance() && epoch_ == c.epoch()) return;
  const bool fresh = instance_ != c.instance();
  instance_ = c.instance();
  epoch_ = c.epoch();
  if (fresh) {
    generation_.assign(c.size(), UINT32_MAX);
    for (auto& m : matchers_) m.per_node.assign(c.size(), 0);
    for (auto* list : {&hard_, &soft_}) {
      for (auto& d : *list) std::fill(d.total.begin(), d.total.end(), 0);
    }
    // Only nodes with a pod some selector can match count anything: the
    // others are counted (zero) without looking at their pods.
    std::vector<uint8_t> candidate(c.size(), 0);
    bool anywhere = false;
    for (const auto& m : matchers_)
      anywhere = anywhere || !c.mark_selector_candidates(m.selector, candidate);
    if (!anywhere) {
      for (NodeIndex i = 0; i < c.size(); ++i) {
        if (!candidate[i]) generation_[i] = c.generation(i);
      }
    }
  }
  for (NodeIndex i = 0; i < c.size(); ++i) {
    if (generation_[i] != c.generation(i)) recount(c, i);
  }
  for (auto& d : hard_) update_min(d);
}

void SpreadCounts::recount(const Cluster& c, NodeIndex i) {
  generation_[i] = c.generation(i);
  for (size_t s = 0; s < matchers_.size(); ++s) {
    const int64_t now = count(matchers_[s], c.pods_on(i));
    const int64_t delta = now - matchers_[s].per_node[i];
    if (delta == 0) continue;
    matchers_[s].per_node[i] = now;
    for (auto* list : {&hard_, &soft_}) {
      for (auto& d : *list) {
        if (d.selector == s && d.counted[i]) d.total[d.domain[i]] += delta;
      }
    }
  }
}

void SpreadCounts::update_min(Domains& d) const {
  d.min_total = std::numeric_limits<int64_t>::max();
  for (size_t v = 0; v < d.total.size(); ++v) {
    if (d.listed[v]) d.min_total = std::min(d.min_total, d.total[v]);
  }
}

void SpreadCounts::sync_node(const Cluster& c, NodeIndex n) {
  if (instance_ != c.instance()) {
    sync(c);
    return;
  }
  if (generation_[n] != c.generation(n)) {
    recount(c, n);
    for (auto& d : hard_) update_min(d);
  }
  // Every other node is as counted: the cluster's state is this one's.
  epoch_ = c.epoch();
}

void SpreadCounts::signature(NodeIndex n, int64_t* out) const {
  size_t k = 0;
  for (const auto& d : hard_) {
    const int32_t v = d.domain[n];
    if (v == kNoDomain) {
      out[k++] = kNoDomain;
    } else if (d.constraint.topology_key == kHostnameKey) {
      out[k++] = d.listed[v] ? d.total[v] : 0;
    } else {
      out[k++] = v;
    }
  }
  for (const auto& d : soft_) {
    const int32_t v = d.domain[n];
    out[k++] = v == kNoDomain ? kNoDomain : d.hostname ? matchers_[d.selector].per_node[n] : v;
  }
  out[k] = require_all_soft_ && !has_all_soft_keys_[n] ? 1 : 0;
}

void SpreadCounts::signature_dependents(NodeIndex n, std::vector<NodeIndex>& out) const {
  out.assign(1, n);
  if (nodes_of_domain_.empty()) {
    nodes_of_domain_.resize(hard_.size());
    for (size_t k = 0; k < hard_.size(); ++k) {
      if (hard_[k].constraint.topology_key != kHostnameKey) continue;
      nodes_of_domain_[k].resize(hard_[k].total.size());
      for (NodeIndex i = 0; i < hard_[k].domain.size(); ++i) {
        if (hard_[k].domain[i] != kNoDomain) nodes_of_domain_[k][hard_[k].domain[i]].push_back(i);
      }
    }
  }
  for (size_t k = 0; k < hard_.size(); ++k) {
    if (nodes_of_domain_[k].empty() || hard_[k].domain[n] == kNoDomain) continue;
    for (NodeIndex i : nodes_of_domain_[k][hard_[k].domain[n]]) {
      if (std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
    }
  }
}

bool SpreadCounts::admits_signature(const int64_t* signature, uint8_t& detail) const {
  for (size_t k = 0; k < hard_.size(); ++k) {
    const Domains& d = hard_[k];
    if (signature[k] == kNoDomain) {
      detail = kSpreadMissingLabel;
      return false;
    }
    const int64_t match = d.constraint.topology_key == kHostnameKey
                              ? signature[k]
                              : (d.listed[signature[k]] ? d.total[signature[k]] : 0);
    const int64_t min =
        d.listed_count < static_cast<size_t>(d.constraint.min_domains) ? 0 : d.min_total;
    if (match + (d.self_match ? 1 : 0) - min > d.constraint.max_skew) {
      detail = kSpreadSkew;
      return false;
    }
  }
  return true;
}

std::vector<double> SpreadCounts::topology_weights(const std::vector<const int64_t*>& signatures,
                                                   const std::vector<size_t>& nodes) const {
  std::vector<double> out(soft_.size());
  const size_t scored_at = hard_.size() + soft_.size();
  for (size_t k = 0; k < soft_.size(); ++k) {
    size_t size = 0;
    if (soft_[k].hostname) {
      for (size_t g = 0; g < signatures.size(); ++g)
        size += signatures[g][scored_at] ? 0 : nodes[g];
    } else {
      std::vector<int64_t> seen;
      for (const int64_t* s : signatures) {
        if (s[scored_at]) continue;
        const int64_t v = s[hard_.size() + k];
        if (std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
      }
      size = seen.size();
    }
    out[k] = spread_topology_weight(size);
  }
  return out;
}

int64_t SpreadCounts::raw_score(const int64_t* signature,
                                const std::vector<double>& weights) const {
  double score = 0;
  for (size_t k = 0; k < soft_.size(); ++k) {
    const Domains& d = soft_[k];
    const int64_t v = signature[hard_.size() + k];
    if (v == kNoDomain) continue;
    const int64_t cnt = d.hostname ? v : d.total[v];
    score += spread_score_for_count(cnt, d.constraint.max_skew, weights[k]);
  }
  return static_cast<int64_t>(go_round(score));
}

bool SpreadCounts::admits(const Cluster& c, NodeIndex n, const Relief* relief,
                          uint8_t& detail) const {
  for (const auto& d : hard_) {
    const int32_t v = d.domain[n];
    if (v == kNoDomain) {
      detail = kSpreadMissingLabel;
      return false;
    }
    int64_t match = d.listed[v] ? d.total[v] : 0;
    int64_t min = d.min_total;
    if (relief && d.counted[n]) {
      // RemovePod for each victim: its domain loses the matching ones, and
      // the critical path follows a domain that drops below it. updateWithPod
      // matches as countPodsMatchSelector does not: a terminating pod, never
      // counted, is taken off all the same, and an empty selector matches
      // every pod of the namespace.
      int64_t removed = 0;
      const auto& pods = c.pods_on(n);
      for (size_t pos : relief->positions) {
        const BoundPod& p = pods[pos];
        removed +=
            p.meta && p.meta->ns == ns_ && matchers_[d.selector].selector.matches(p.meta->labels)
                ? 1
                : 0;
      }
      match -= removed;
      min = std::min(min, match);
    }
    if (d.listed_count < static_cast<size_t>(d.constraint.min_domains)) min = 0;
    const int64_t skew = match + (d.self_match ? 1 : 0) - min;
    if (skew > d.constraint.max_skew) {
      detail = kSpreadSkew;
      return false;
    }
  }
  return true;
}

void SpreadCounts::raw_scores(const Cluster& c, const std::vector<NodeIndex>& feasible,
                              std::vector<int64_t>& out) const {
  out.assign(feasible.size(), 0);
  std::vector<uint8_t> ignored(feasible.size(), 0);
  size_t scored = feasible.size();
  if (require_all_soft_) {
    for (size_t j = 0; j < feasible.size(); ++j) {
      if (!has_all_soft_keys_[feasible[j]]) {
        ignored[j] = 1;
        --scored;
      }
    }
  }
  // initPreScoreState: the domains among the scored nodes (a node without the
  // key, possible only under the system defaults, is the domain "").
  std::vector<double> weight(soft_.size());
  for (size_t k = 0; k < soft_.size(); ++k) {
    const Domains& d = soft_[k];
    size_t size = scored;
    if (!d.hostname) {
      std::vector<uint8_t> seen(d.total.size() + 1, 0);
      size = 0;
      for (size_t j = 0; j < feasible.size(); ++j) {
        if (ignored[j]) continue;
        const int32_t v = d.domain[feasible[j]];
        uint8_t& s = seen[v == kNoDomain ? d.total.size() : static_cast<size_t>(v)];
        if (!s) {
          s = 1;
          ++size;
        }
      }
    }
    weight[k] = spread_topology_weight(size);
  }
  for (size_t j = 0; j < feasible.size(); ++j) {
    if (ignored[j]) {
      out[j] = kNotScored;
      continue;
    }
    const NodeIndex i = feasible[j];
    double score = 0;
    for (size_t k = 0; k < soft_.size(); ++k) {
      const Domains& d = soft_[k];
      const int32_t v = d.domain[i];
      if (v == kNoDomain) continue;
      const int64_t cnt = d.hostname ? matchers_[d.selector].per_node[i] : d.total[v];
      score += spread_score_for_count(cnt, d.constraint.max_skew, weight[k]);
    }
    out[j] = static_cast<int64_t>(go_round(score));
  }
}

PodTopologySpreadPlugin::State PodTopologySpreadPlugin::prepare(const PlanContext& ctx) {
  State s;
  const Profile& profile = ctx.profile;
  const Cluster& c = ctx.cluster;
  if (profile.filter_enabled(kId))
    s.hard = spread_constraints(ctx.pod, profile.spread, c.objects(), c.owners(), true);
  if (profile.score_weight(kId) > 0)
    s.soft = spread_constraints(ctx.pod, profile.spread, c.objects(), c.owners(), false);
  if (s.hard.empty() && s.soft.empty()) return s;
  // Only the system defaults score nodes without every topology key.
  s.require_all_soft = !ctx.pod.topology_spread.empty() || !profile.spread.system_defaulting;
  s.ns = ctx.pod.ns;
  s.labels = ctx.pod.labels;
  s.tolerations = ctx.pod.tolerations;
  s.required = ctx.required;
  return s;
}

std::optional<NodeStatus> PodTopologySpreadPlugin::domain_filter(const State&, Counts& counts,
                                                                 const Cluster& c, NodeIndex n,
                                                                 const Relief* relief) {
  uint8_t detail = 0;
  if (counts.admits(c, n, relief, detail)) return std::nullopt;
  // A node without the topology key does not get it by preemption.
  const bool missing_label = detail == kSpreadMissingLabel;
  return NodeStatus{missing_label ? Code::UnschedulableAndUnresolvable : Code::Unschedulable, kId,
                    -1, detail};
}

void PodTopologySpreadPlugin::domain_scores(const State& s, Counts& counts, const Cluster& c,
                                            const std::vector<NodeIndex>& feasible,
                                            std::vector<int64_t>& out) {
  if (!scores(s)) return;
  counts.raw_scores(c, feasible, out);
  normalize_spread_scores(out);
}

}  // namespace tightpack::plugins
