#include "tightpack/plugins/inter_pod_affinity.hpp"

#include <algorithm>

namespace tightpack::plugins {

bool label_selector_matches(const LabelSelector& selector, const Labels& labels) {
  for (const auto& [k, v] : selector.match_labels) {
    const std::string* have = find_label(labels, k);
    if (!have || *have != v) return false;
  }
  for (const auto& r : selector.match_expressions) {
    const std::string* have = find_label(labels, r.key);
    bool in = have && std::find(r.values.begin(), r.values.end(), *have) != r.values.end();
    if (r.op == "In") {
      if (r.values.empty() || !in) return false;
    } else if (r.op == "NotIn") {
      if (r.values.empty() || in) return false;
    } else if (r.op == "Exists") {
      if (!r.values.empty() || !have) return false;
    } else if (r.op == "DoesNotExist") {
      if (!r.values.empty() || have) return false;
    } else {
      return false;
    }
  }
  return true;
}

bool term_may_select(const PodAffinityTerm& term, const std::string& owner_namespace, const Pod& pod) {
  if (term.uses_label_keys) return true;
  if (!term.label_selector) return false;  // a nil selector selects no pod
  bool namespace_ok;
  if (term.namespace_selector) {
    // {} selects every namespace; a non-empty selector needs namespace labels,
    // which the snapshot does not carry: assume it may match.
    namespace_ok = true;
  } else if (term.namespaces.empty()) {
    namespace_ok = pod.ns == owner_namespace;
  } else {
    namespace_ok = std::find(term.namespaces.begin(), term.namespaces.end(), pod.ns) != term.namespaces.end();
  }
  return namespace_ok && label_selector_matches(*term.label_selector, pod.labels);
}

}  // namespace tightpack::plugins
