#include "tightpack/affinity_terms.hpp"

#include <algorithm>

namespace tightpack {
namespace {

constexpr const char* kMetadataNameLabel = "kubernetes.io/metadata.name";

// newAffinityTerm: the namespaces are the term's own list, or the holder's
// namespace when neither the list nor a namespace selector is given.
AffinityTerm compile(const Pod& holder, const PodAffinityTerm& t) {
  AffinityTerm out;
  out.selector = Selector::of(t.label_selector);
  if (t.namespaces.empty() && !t.namespace_selector) {
    out.namespaces.push_back(holder.ns);
  } else {
    out.namespaces = t.namespaces;
    std::sort(out.namespaces.begin(), out.namespaces.end());
    out.namespaces.erase(std::unique(out.namespaces.begin(), out.namespaces.end()),
                         out.namespaces.end());
  }
  out.namespace_selector = Selector::of(t.namespace_selector);
  out.topology_key = t.topology_key;
  out.weight = t.weight;
  return out;
}

}  // namespace

bool AffinityTerm::matches(const PodMeta& pod, const Labels& namespace_labels) const {
  const bool in_namespace = std::binary_search(namespaces.begin(), namespaces.end(), pod.ns) ||
                            namespace_selector.matches(namespace_labels);
  return in_namespace && selector.matches(pod.labels);
}

std::shared_ptr<const AffinityTerms> affinity_terms(const Pod& pod) {
  if (pod.pod_affinity_terms.empty()) return nullptr;
  auto out = std::make_shared<AffinityTerms>();
  for (const PodAffinityTerm& t : pod.pod_affinity_terms) {
    std::vector<AffinityTerm>& list =
        t.required ? (t.anti ? out->required_anti_affinity : out->required_affinity)
                   : (t.anti ? out->preferred_anti_affinity : out->preferred_affinity);
    list.push_back(compile(pod, t));
  }
  return out;
}

Labels namespace_labels(const ApiObjects& objects, const std::string& ns) {
  for (const Namespace& n : objects.namespaces) {
    if (n.name == ns) return n.labels;
  }
  return Labels{{kMetadataNameLabel, ns}};
}

bool reads_namespace_labels(const AffinityTerms& terms) {
  for (const auto* list : {&terms.required_affinity, &terms.required_anti_affinity,
                           &terms.preferred_affinity, &terms.preferred_anti_affinity}) {
    for (const AffinityTerm& t : *list) {
      for (const auto& r : t.namespace_selector.requirements()) {
        if (r.key != kMetadataNameLabel) return true;
      }
    }
  }
  return false;
}

}  // namespace tightpack
