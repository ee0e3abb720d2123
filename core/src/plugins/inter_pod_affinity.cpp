#include "tightpack/plugins/inter_pod_affinity.hpp"

#include <algorithm>

#include "tightpack/labels.hpp"

namespace tightpack::plugins {

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
