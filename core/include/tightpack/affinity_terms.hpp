// The inter-pod (anti-)affinity terms of a pod as kube-scheduler holds them
// (fwk.AffinityTerm, framework.PodInfo's term lists): selectors built once,
// namespaces resolved against the pod that holds the term. A bound pod keeps
// its terms (BoundPod::affinity) for InterPodAffinity to read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tightpack/labels.hpp"
#include "tightpack/model.hpp"
#include "tightpack/objects.hpp"

namespace tightpack {

// fwk.AffinityTerm: one term with its selectors built and its namespaces
// resolved against the pod that holds it.
struct AffinityTerm {
  Selector selector;  // labels.Nothing() for a nil labelSelector
  std::vector<std::string>
      namespaces;  // sorted; the holder's own when neither list nor selector is given
  Selector namespace_selector = Selector::nothing();
  std::string topology_key;
  int32_t weight = 0;  // preferred terms

  // AffinityTerm.Matches: the pod's namespace is listed or its labels
  // (`namespace_labels`) are selected, and the pod's labels are selected.
  bool matches(const PodMeta& pod, const Labels& namespace_labels) const;

  bool operator==(const AffinityTerm&) const = default;
};

// framework.PodInfo's four lists of a pod's terms.
struct AffinityTerms {
  std::vector<AffinityTerm> required_affinity;
  std::vector<AffinityTerm> required_anti_affinity;
  std::vector<AffinityTerm> preferred_affinity;
  std::vector<AffinityTerm> preferred_anti_affinity;

  bool operator==(const AffinityTerms&) const = default;
};

// The pod's terms (framework.NewPodInfo), or null when it has none.
// matchLabelKeys and mismatchLabelKeys are not read: kube-apiserver merges
// them into the label selector when it stores the pod, and kube-scheduler
// reads the stored selector.
std::shared_ptr<const AffinityTerms> affinity_terms(const Pod& pod);

// The labels of namespace `ns` as the namespace lister has them: the listed
// Namespace's, or, for a namespace that is not listed (every namespace a pod
// is in exists), only kubernetes.io/metadata.name, which kube-apiserver sets
// on every namespace.
Labels namespace_labels(const ApiObjects& objects, const std::string& ns);

// Whether some term's namespace selector reads a namespace label other than
// kubernetes.io/metadata.name: without the cluster's Namespace objects it
// cannot be judged.
bool reads_namespace_labels(const AffinityTerms& terms);

}  // namespace tightpack
