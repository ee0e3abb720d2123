#include "tightpack/plugins/inter_pod_affinity.hpp"

#include <algorithm>
#include <limits>

#include "tightpack/kube_release.hpp"
#include "tightpack/plugins/normalize.hpp"

namespace tightpack::plugins {
namespace {

// Adds `amount` to the pair's entry (topologyToMatchedTermCountList.recordMatch,
// merged as mergeWithList merges).
void add(std::vector<std::pair<uint64_t, int64_t>>& into, uint64_t pair, int64_t amount) {
  for (auto& [p, a] : into) {
    if (p == pair) {
      a += amount;
      return;
    }
  }
  into.emplace_back(pair, amount);
}

std::vector<uint8_t> each_match(const std::vector<AffinityTerm>& terms, const PodMeta& pod,
                                const Labels& namespace_labels) {
  std::vector<uint8_t> out(terms.size());
  for (size_t i = 0; i < terms.size(); ++i)
    out[i] = terms[i].matches(pod, namespace_labels) ? 1 : 0;
  return out;
}

}  // namespace

int64_t& AffinityCounts::Counts::operator[](uint64_t key) {
  if ((size_ + 1) * 2 > slots_.size()) grow();
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
    if (slots_[i].first == key) return slots_[i].second;
    if (slots_[i].first == kEmpty) {
      ++size_;
      slots_[i] = {key, 0};
      return slots_[i].second;
    }
  }
}

const int64_t* AffinityCounts::Counts::find(uint64_t key) const {
  if (slots_.empty()) return nullptr;
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
    if (slots_[i].first == key) return &slots_[i].second;
    if (slots_[i].first == kEmpty) return nullptr;
  }
}

void AffinityCounts::Counts::erase(uint64_t key) {
  if (slots_.empty()) return;
  const size_t mask = slots_.size() - 1;
  size_t i = hash(key) & mask;
  while (slots_[i].first != key) {
    if (slots_[i].first == kEmpty) return;
    i = (i + 1) & mask;
  }
  // Backward-shift deletion: pull later entries of the probe run into the
  // hole, so that no lookup stops early at it.
  for (size_t j = (i + 1) & mask; slots_[j].first != kEmpty; j = (j + 1) & mask) {
    const size_t home = hash(slots_[j].first) & mask;
    // Entry j may move to i when its home is not in the cyclic range (i, j].
    if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i] = {kEmpty, 0};
  --size_;
}

void AffinityCounts::Counts::clear() {
  slots_.clear();
  size_ = 0;
}

void AffinityCounts::Counts::grow() {
  std::vector<std::pair<uint64_t, int64_t>> old = std::move(slots_);
  slots_.assign(old.empty() ? 64 : old.size() * 2, {kEmpty, 0});
  size_ = 0;
  for (const auto& [k, v] : old) {
    if (k != kEmpty) (*this)[k] = v;
  }
}

AffinityCounts::AffinityCounts(const Cluster& c, const InterPodAffinityState& s)
    : cluster_(&c),
      own_(s.own),
      meta_(s.meta),
      args_(s.args),
      filters_(s.filters),
      scores_(s.scores),
      legacy_namespace_selectors_(kube_release::legacy_namespace_selectors(s.kube_minor)) {
  namespace_labels_ = namespace_labels(c.objects(), meta_->ns);
  if (own_) {
    has_preferred_ = !own_->preferred_affinity.empty() || !own_->preferred_anti_affinity.empty();
    auto keys = [&](const std::vector<AffinityTerm>& terms, std::vector<uint32_t>& out) {
      for (const auto& t : terms) out.push_back(key_id(t.topology_key));
    };
    keys(own_->required_affinity, required_affinity_keys_);
    keys(own_->required_anti_affinity, required_anti_keys_);
    keys(own_->preferred_affinity, preferred_affinity_keys_);
    keys(own_->preferred_anti_affinity, preferred_anti_keys_);
    // satisfiesSelfAffinityCheck: the incoming pod's terms have their
    // namespace selectors merged into namespace lists from the namespaces
    // that exist, its own among them.
    self_match_ = own_terms_all_match(own_->required_affinity, *meta_, namespace_labels_);
    for (const auto* terms : {&own_->required_affinity, &own_->required_anti_affinity,
                              &own_->preferred_affinity, &own_->preferred_anti_affinity}) {
      for (const AffinityTerm& t : *terms) {
        own_reads_namespaces_ = own_reads_namespaces_ || !t.namespace_selector.is_nothing();
      }
    }
  }
  // scores_ is false already where PreScore always skips (the state's
  // prepare says when).
  sync(c);
}

// Before v1.37 (kubernetes#138198) mergeAffinityTermNamespacesIfNotEmpty took
// the incoming pod's term by value: the namespaces its selector selects were
// added to the term (a shared set), but the selector was not set to
// Nothing(), and every caller matches with no namespace labels, so a
// selector that selects an empty label set (NotIn, DoesNotExist only) takes
// in every namespace.
bool AffinityCounts::own_term_matches(const AffinityTerm& t, const PodMeta& pod,
                                      const Labels& namespace_labels) const {
  if (t.matches(pod, namespace_labels)) return true;
  static const Labels none;
  return legacy_namespace_selectors_ && t.namespace_selector.matches(none) &&
         t.selector.matches(pod.labels);
}

bool AffinityCounts::own_terms_all_match(const std::vector<AffinityTerm>& terms, const PodMeta& pod,
                                         const Labels& namespace_labels) const {
  if (terms.empty()) return false;  // podMatchesAllAffinityTerms
  for (const auto& t : terms) {
    if (!own_term_matches(t, pod, namespace_labels)) return false;
  }
  return true;
}

uint32_t AffinityCounts::key_id(const std::string& key) const {
  for (uint32_t k = 0; k < keys_.size(); ++k) {
    if (keys_[k] == key) return k;
  }
  keys_.push_back(key);
  columns_.push_back(cluster_->label_column(key));
  return static_cast<uint32_t>(keys_.size() - 1);
}

const Labels& AffinityCounts::labels_of_namespace(const std::string& ns) const {
  for (const auto& [name, labels] : namespace_labels_memo_) {
    if (name == ns) return labels;
  }
  return namespace_labels_memo_.emplace_back(ns, namespace_labels(cluster_->objects(), ns)).second;
}

AffinityCounts::OwnMatches AffinityCounts::own_matches(
    const std::shared_ptr<const PodMeta>& meta) const {
  auto [found, fresh] = own_memo_.find_or_add(meta);
  if (fresh) *found = match_own(*meta);
  return *found;
}

AffinityCounts::OwnMatches AffinityCounts::match_own(const PodMeta& meta) const {
  // The bound pod's namespace labels, for terms whose namespace selector was
  // merged into the namespaces it selects.
  static const Labels none;
  const Labels& labels = own_reads_namespaces_ ? labels_of_namespace(meta.ns) : none;
  OwnMatches m;
  m.all_required_affinity = own_terms_all_match(own_->required_affinity, meta, labels);
  m.bits = static_cast<uint32_t>(own_bits_.size());
  for (const auto* terms :
       {&own_->required_anti_affinity, &own_->preferred_affinity, &own_->preferred_anti_affinity}) {
    for (const AffinityTerm& t : *terms)
      own_bits_.push_back(own_term_matches(t, meta, labels) ? 1 : 0);
  }
  return m;
}

const AffinityCounts::TheirMatches& AffinityCounts::their_matches(
    const std::shared_ptr<const AffinityTerms>& terms) const {
  auto [it, fresh] = their_memo_.try_emplace(terms.get());
  TheirMatches& m = it->second;
  if (!fresh) return m;
  m.keep = terms;
  auto list = [&](const std::vector<AffinityTerm>& from, std::vector<uint8_t>& matches,
                  std::vector<uint32_t>& keys) {
    matches = each_match(from, *meta_, namespace_labels_);
    for (const auto& t : from) keys.push_back(key_id(t.topology_key));
  };
  list(terms->required_affinity, m.required_affinity, m.required_affinity_keys);
  list(terms->required_anti_affinity, m.required_anti_affinity, m.required_anti_keys);
  list(terms->preferred_affinity, m.preferred_affinity, m.preferred_affinity_keys);
  list(terms->preferred_anti_affinity, m.preferred_anti_affinity, m.preferred_anti_keys);
  return m;
}

void AffinityCounts::filter_contribution(NodeIndex n, const BoundPod& p, Contribution& affinity,
                                         Contribution& anti_affinity,
                                         Contribution& existing) const {
  if (own_ && p.meta) own_filter(n, own_matches(p.meta), affinity, anti_affinity);
  their_filter(n, p, existing);
}

void AffinityCounts::own_filter(NodeIndex n, const OwnMatches& m, Contribution& affinity,
                                Contribution& anti_affinity) const {
  // getIncomingAffinityAntiAffinityCounts.
  if (m.all_required_affinity) {
    for (uint32_t k : required_affinity_keys_) {
      if (const StrId v = value(k, n); v != kNoStr) add(affinity, pair(k, v), 1);
    }
  }
  for (size_t i = 0; i < required_anti_keys_.size(); ++i) {
    if (!own_bits_[m.bits + i]) continue;
    if (const StrId v = value(required_anti_keys_[i], n); v != kNoStr) {
      add(anti_affinity, pair(required_anti_keys_[i], v), 1);
    }
  }
}

void AffinityCounts::their_filter(NodeIndex n, const BoundPod& p, Contribution& existing) const {
  if (!p.affinity || p.affinity->required_anti_affinity.empty()) return;
  // getExistingAntiAffinityCounts.
  const TheirMatches& m = their_matches(p.affinity);
  for (size_t i = 0; i < m.required_anti_keys.size(); ++i) {
    if (!m.required_anti_affinity[i]) continue;
    if (const StrId v = value(m.required_anti_keys[i], n); v != kNoStr) {
      add(existing, pair(m.required_anti_keys[i], v), 1);
    }
  }
}

namespace {

// processExistingPod: each term that matches, on a node with its topology
// key, adds its weight to the node's domain.
template <class Value>
void process_terms(const uint8_t* matches, const std::vector<uint32_t>& keys,
                   const std::vector<AffinityTerm>& terms, int64_t weight_or_zero, int64_t sign,
                   Value&& value, std::vector<std::pair<uint64_t, int64_t>>& score, int64_t& hits) {
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!matches[i]) continue;
    const StrId v = value(keys[i]);
    if (v == kNoStr) continue;
    const int64_t weight = weight_or_zero ? weight_or_zero : terms[i].weight;
    add(score, (uint64_t{keys[i]} << 32) | v, sign * weight);
    ++hits;
  }
}

}  // namespace

void AffinityCounts::own_score(NodeIndex n, const OwnMatches& m, NodeState& out) const {
  if (!has_preferred_) return;
  auto at = [&](uint32_t k) { return value(k, n); };
  const uint8_t* bits = own_bits_.data() + m.bits + required_anti_keys_.size();
  process_terms(bits, preferred_affinity_keys_, own_->preferred_affinity, 0, 1, at, out.score,
                out.score_hits);
  process_terms(bits + preferred_affinity_keys_.size(), preferred_anti_keys_,
                own_->preferred_anti_affinity, 0, -1, at, out.score, out.score_hits);
}

void AffinityCounts::their_score(NodeIndex n, const BoundPod& p, NodeState& out) const {
  if (!p.affinity) return;
  auto at = [&](uint32_t k) { return value(k, n); };
  const TheirMatches& m = their_matches(p.affinity);
  if (args_.hard_pod_affinity_weight > 0) {
    process_terms(m.required_affinity.data(), m.required_affinity_keys,
                  p.affinity->required_affinity, args_.hard_pod_affinity_weight, 1, at, out.score,
                  out.score_hits);
  }
  process_terms(m.preferred_affinity.data(), m.preferred_affinity_keys,
                p.affinity->preferred_affinity, 0, 1, at, out.score, out.score_hits);
  process_terms(m.preferred_anti_affinity.data(), m.preferred_anti_keys,
                p.affinity->preferred_anti_affinity, 0, -1, at, out.score, out.score_hits);
}

void AffinityCounts::count_own(NodeIndex n, const OwnMatches& m, NodeState& s) const {
  if (filters_) own_filter(n, m, s.affinity, s.anti_affinity);
  if (scores_) own_score(n, m, s);
}

void AffinityCounts::count_pods_with_terms(const Cluster& c, NodeIndex n, NodeState& s) const {
  const std::vector<BoundPod>& pods = c.pods_on(n);
  for (uint32_t pos : c.affinity_positions(n)) {
    if (filters_) their_filter(n, pods[pos], s.existing);
    if (scores_) their_score(n, pods[pos], s);
  }
}

AffinityCounts::NodeState AffinityCounts::count_node(const Cluster& c, NodeIndex n) const {
  NodeState s;
  if (!own_ && c.affinity_pods_on(n) == 0) return s;
  // A node without labels has no topology pair; processExistingPod returns
  // at once for it.
  if (c.node(n).labels.empty()) return s;
  if (own_) {
    for (const BoundPod& p : c.pods_on(n)) {
      if (p.meta) count_own(n, own_matches(p.meta), s);
    }
  }
  count_pods_with_terms(c, n, s);
  return s;
}

void AffinityCounts::apply(Counts& counts, size_t& nonzero, const Contribution& contribution,
                           int64_t sign) {
  for (const auto& [p, amount] : contribution) {
    if (amount == 0) continue;
    int64_t& v = counts[p];
    const bool was = v != 0;
    v += sign * amount;
    if (was && v == 0) {
      --nonzero;
      counts.erase(p);
    } else if (!was && v != 0) {
      ++nonzero;
    }
  }
}

void AffinityCounts::apply(const NodeState& s, int64_t sign) {
  apply(affinity_, affinity_nonzero_, s.affinity, sign);
  apply(anti_affinity_, anti_nonzero_, s.anti_affinity, sign);
  apply(existing_, existing_nonzero_, s.existing, sign);
  score_hits_ += sign * s.score_hits;
  // The score map keeps pairs that sum to zero: they were matched, which is
  // what decides whether PreScore skips, and they add nothing.
  for (const auto& [p, amount] : s.score) score_[p] += sign * amount;
}

void AffinityCounts::skip_nodes_without_candidates(const Cluster& c) {
  // A node counts something only if one of the pod's selectors can match
  // one of its pods, or one of its pods has terms: the others are counted
  // (nothing) without looking at their pods.
  std::vector<uint8_t> candidate(c.size(), 0);
  auto mark_all = [&](const std::vector<AffinityTerm>& terms) {
    for (const auto& t : terms) {
      if (!c.mark_selector_candidates(t.selector, candidate)) return false;
    }
    return true;
  };
  // Required affinity counts pods matching every term: one term's candidates do.
  bool bounded = own_->required_affinity.empty();
  for (const auto& t : own_->required_affinity)
    bounded = bounded || c.mark_selector_candidates(t.selector, candidate);
  bounded = bounded && mark_all(own_->required_anti_affinity);
  if (has_preferred_ && scores_) {
    bounded =
        bounded && mark_all(own_->preferred_affinity) && mark_all(own_->preferred_anti_affinity);
  }
  if (!bounded) return;
  for (NodeIndex n = 0; n < c.size(); ++n) {
    if (!candidate[n] && c.affinity_pods_on(n) == 0) generation_[n] = c.generation(n);
  }
}

void AffinityCounts::sync(const Cluster& c) {
  const bool fresh = instance_ != c.instance() || generation_.size() != c.size();
  const uint64_t epoch = own_ ? c.epoch() : c.affinity_epoch();
  if (!fresh && epoch_ == epoch) return;
  // Neither this pod nor any bound one has terms: every node would count
  // nothing (kube-scheduler's PreFilter skips). Cluster-autoscaler's drain
  // simulation makes a plan per moved pod, and visiting every node for each
  // was most of this plugin's cost there. generation_ is left empty, so the
  // first sync after a pod with terms arrives counts every node afresh.
  const bool nothing_to_count = !own_ && c.affinity_pods() == 0;
  if (fresh || nothing_to_count) {
    cluster_ = &c;
    for (size_t k = 0; k < keys_.size(); ++k) columns_[k] = c.label_column(keys_[k]);
    generation_.assign(nothing_to_count ? 0 : c.size(), UINT32_MAX);
    counted_.clear();
    affinity_.clear(), anti_affinity_.clear(), existing_.clear(), score_.clear();
    affinity_nonzero_ = anti_nonzero_ = existing_nonzero_ = 0;
    score_hits_ = 0;
  }
  instance_ = c.instance();
  epoch_ = epoch;
  if (nothing_to_count) return;
  if (fresh && own_ && !count_from_label_index(c)) skip_nodes_without_candidates(c);
  for (NodeIndex n = 0; n < c.size(); ++n) {
    const uint32_t generation = own_ ? c.generation(n) : c.affinity_generation(n);
    if (generation_[n] == generation) continue;
    generation_[n] = generation;
    if (!counted_.empty()) {
      if (auto it = counted_.find(n); it != counted_.end()) {
        apply(it->second, -1);
        counted_.erase(it);
      }
    }
    record(n, count_node(c, n));
  }
}

void AffinityCounts::record(NodeIndex n, NodeState s) {
  if (s.empty()) return;
  apply(s, +1);
  for (const auto& [p, amount] : s.existing) {
    if (key_in_existing_.size() <= key_of(p)) key_in_existing_.resize(keys_.size(), 0);
    key_in_existing_[key_of(p)] = 1;
  }
  for (const auto& [p, amount] : s.score) {
    if (key_in_score_.size() <= key_of(p)) key_in_score_.resize(keys_.size(), 0);
    key_in_score_[key_of(p)] = 1;
  }
  counted_.emplace(n, std::move(s));
}

bool AffinityCounts::count_from_label_index(const Cluster& c) {
  // The key: one every term that can select anything requires In, with the
  // fewest pods listed under the values the terms allow.
  std::vector<const AffinityTerm*> terms;
  for (const auto* list : {&own_->required_affinity, &own_->required_anti_affinity,
                           &own_->preferred_affinity, &own_->preferred_anti_affinity}) {
    for (const AffinityTerm& t : *list) {
      if (!t.selector.is_nothing()) terms.push_back(&t);
    }
  }
  const std::string* best_key = nullptr;
  std::vector<std::string> best_values;
  size_t best_size = 0;
  if (!terms.empty()) {
    for (const auto& first : terms.front()->selector.requirements()) {
      if (first.op != Selector::Op::kIn) continue;
      std::vector<std::string> values;
      bool every_term = true;
      for (const AffinityTerm* t : terms) {
        const auto& rs = t->selector.requirements();
        auto r = std::find_if(rs.begin(), rs.end(), [&](const auto& q) {
          return q.op == Selector::Op::kIn && q.key == first.key;
        });
        if (r == rs.end()) {
          every_term = false;
          break;
        }
        values.insert(values.end(), r->values.begin(), r->values.end());
      }
      if (!every_term) continue;
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      size_t size = 0;
      for (const auto& v : values) size += c.pods_with_label(first.key, v).size();
      if (!best_key || size < best_size) {
        best_key = &first.key;
        best_values = std::move(values);
        best_size = size;
      }
    }
    if (!best_key) return false;
  }
  // A pod has one value for the key: listed under at most one of them.
  std::vector<Cluster::LabelledPod> selectable;
  selectable.reserve(best_size);
  for (const auto& v : best_values) {
    const auto& listed = c.pods_with_label(*best_key, v);
    selectable.insert(selectable.end(), listed.begin(), listed.end());
  }
  std::sort(selectable.begin(), selectable.end(),
            [&c](const Cluster::LabelledPod& a, const Cluster::LabelledPod& b) {
              return c.node_of(a) < c.node_of(b);
            });
  size_t next = 0;
  for (NodeIndex n = 0; n < c.size(); ++n) {
    const size_t begin = next;
    while (next < selectable.size() && c.node_of(selectable[next]) == n) ++next;
    generation_[n] = c.generation(n);
    if ((begin == next && c.affinity_pods_on(n) == 0) || c.node(n).labels.empty()) continue;
    NodeState s;
    for (size_t i = begin; i < next; ++i) {
      // No memo: each pod is looked at once here, and the memo keeps a
      // reference to what it remembers, which a raw pointer cannot give.
      count_own(n, match_own(*selectable[i].meta), s);
    }
    count_pods_with_terms(c, n, s);
    record(n, std::move(s));
  }
  return true;
}

bool AffinityCounts::admits(const Cluster& c, NodeIndex n, const Relief* relief,
                            uint8_t& detail) const {
  if (!filters_) return true;
  // RemovePod for each victim: what it added to the maps leaves them.
  Contribution gone_affinity, gone_anti, gone_existing;
  if (relief && !c.node(n).labels.empty()) {
    const auto& pods = c.pods_on(n);
    for (size_t pos : relief->positions)
      filter_contribution(n, pods[pos], gone_affinity, gone_anti, gone_existing);
  }
  auto count = [](const Counts& counts, const Contribution& gone, uint64_t p) {
    const int64_t* found = counts.find(p);
    int64_t v = found ? *found : 0;
    for (const auto& [q, amount] : gone) {
      if (q == p) v -= amount;
    }
    return v;
  };
  if (own_ && !own_->required_affinity.empty()) {
    // nodeTopologyMatchesAffinity.
    bool pods_exist = true;
    for (uint32_t k : required_affinity_keys_) {
      const StrId v = value(k, n);
      if (v == kNoStr) {  // every topology key must be on the node, also for self-affinity
        detail = kAffinityNotMatched;
        return false;
      }
      if (count(affinity_, gone_affinity, pair(k, v)) <= 0) pods_exist = false;
    }
    if (!pods_exist) {
      // No pod anywhere matches all the terms (the map is empty) and the pod
      // matches them itself: it may be the first of its group.
      size_t nonzero = affinity_nonzero_;
      for (const auto& [p, amount] : gone_affinity) {
        const int64_t* found = affinity_.find(p);
        if (amount != 0 && found && *found == amount) --nonzero;
      }
      if (nonzero != 0 || !self_match_) {
        detail = kAffinityNotMatched;
        return false;
      }
    }
  }
  if (own_ && anti_nonzero_ > 0) {
    // satisfyPodAntiAffinity.
    for (uint32_t k : required_anti_keys_) {
      const StrId v = value(k, n);
      if (v != kNoStr && count(anti_affinity_, gone_anti, pair(k, v)) > 0) {
        detail = kAntiAffinityNotMatched;
        return false;
      }
    }
  }
  if (existing_nonzero_ > 0) {
    // satisfyExistingPodsAntiAffinity.
    for (uint32_t k = 0; k < key_in_existing_.size(); ++k) {
      if (!key_in_existing_[k]) continue;
      const StrId v = value(k, n);
      if (v != kNoStr && count(existing_, gone_existing, pair(k, v)) > 0) {
        detail = kExistingAntiAffinityNotMatched;
        return false;
      }
    }
  }
  return true;
}

void AffinityCounts::normalised_scores(const std::vector<NodeIndex>& feasible,
                                       std::vector<int64_t>& out) const {
  out.assign(feasible.size(), 0);
  if (score_skipped()) return;
  int64_t min_count = std::numeric_limits<int64_t>::max(),
          max_count = std::numeric_limits<int64_t>::min();
  for (size_t j = 0; j < feasible.size(); ++j) {
    int64_t score = 0;
    for (uint32_t k = 0; k < key_in_score_.size(); ++k) {
      if (!key_in_score_[k]) continue;
      const StrId v = value(k, feasible[j]);
      if (v == kNoStr) continue;
      if (const int64_t* found = score_.find(pair(k, v))) score += *found;
    }
    out[j] = score;
    min_count = std::min(min_count, score);
    max_count = std::max(max_count, score);
  }
  // NormalizeScore, in float64 as upstream.
  const int64_t diff = max_count - min_count;
  for (int64_t& s : out) {
    double f = 0;
    if (diff > 0)
      f = static_cast<double>(kMaxNodeScore) *
          (static_cast<double>(s - min_count) / static_cast<double>(diff));
    s = static_cast<int64_t>(f);
  }
}

std::optional<std::string> InterPodAffinityPlugin::unmodelled_input(const Cluster& c,
                                                                    const Profile& profile,
                                                                    const Pod&,
                                                                    const AffinityTerms* terms) {
  if (!profile.filter_enabled(kId) && profile.score_weight(kId) <= 0) return std::nullopt;
  if (c.objects().namespaces_listed) return std::nullopt;
  if ((terms && reads_namespace_labels(*terms)) || c.namespace_label_readers() > 0) {
    return "an inter-pod affinity term's namespaceSelector on namespace labels when the "
           "cluster's namespaces are not given (InterPodAffinity)";
  }
  return std::nullopt;
}

InterPodAffinityPlugin::State InterPodAffinityPlugin::prepare(const PlanContext& ctx) {
  State s;
  const Profile& profile = ctx.profile;
  s.filters = profile.filter_enabled(kId);
  const bool weighted = profile.score_weight(kId) > 0;
  if (!s.filters && !weighted) return s;
  s.own = ctx.affinity_terms;
  s.meta = std::make_shared<const PodMeta>(PodMeta{ctx.pod.ns, ctx.pod.labels, false});
  s.args = profile.inter_pod_affinity;
  const bool has_preferred =
      s.own && (!s.own->preferred_affinity.empty() || !s.own->preferred_anti_affinity.empty());
  s.scores = weighted && (has_preferred || !s.args.ignore_preferred_terms_of_existing_pods);
  s.kube_minor = profile.kube_minor;
  return s;
}

std::optional<NodeStatus> InterPodAffinityPlugin::domain_filter(const State&, Counts& counts,
                                                                const Cluster& c, NodeIndex n,
                                                                const Relief* relief) {
  uint8_t detail = 0;
  if (counts.admits(c, n, relief, detail)) return std::nullopt;
  // Evicting pods never brings a pod the affinity terms need.
  const bool unmatched = detail == kAffinityNotMatched;
  return NodeStatus{unmatched ? Code::UnschedulableAndUnresolvable : Code::Unschedulable, kId, -1,
                    detail};
}

}  // namespace tightpack::plugins
