// InterPodAffinity, the part the engine decides exactly today: whether the
// (anti-)affinity terms of bound pods can select an incoming pod at all. When
// none can, kube-scheduler's InterPodAffinity filter passes every node and its
// score is 0 everywhere (no topology score, so NormalizeScore leaves zeros),
// which is what the engine computes without modelling the plugin.
#pragma once

#include <string>

#include "tightpack/model.hpp"

namespace tightpack::plugins {

// Whether `term`, held by a pod in namespace `owner_namespace`, may select
// `pod`. Conservative where the snapshot cannot tell (a non-empty
// namespaceSelector needs namespace labels; matchLabelKeys needs the owner's
// labels at admission): then it answers yes.
bool term_may_select(const PodAffinityTerm& term, const std::string& owner_namespace, const Pod& pod);

}  // namespace tightpack::plugins
