// What the four volume plugins share before anything is prepared: a pod
// that mounts claims the input does not give (no claims, volumes or
// classes listed) is refused, named for the first of them the profile runs
// (framework/plugin.hpp's unmodelled_input).
#pragma once

#include <optional>
#include <string>

#include "tightpack/cluster.hpp"
#include "tightpack/model.hpp"
#include "tightpack/plugins/registry.hpp"
#include "tightpack/profile.hpp"
#include "tightpack/storage_state.hpp"

namespace tightpack {

struct AffinityTerms;

namespace plugins {

template <Plugin P>
struct ReadsPodClaims {
  static std::optional<std::string> unmodelled_input(const Cluster& c, const Profile& profile,
                                                     const Pod& pod, const AffinityTerms*) {
    if (!profile.filter_enabled(P)) return std::nullopt;
    return unlisted_claims(c.objects(), pod, plugin_name(P));
  }
};

}  // namespace plugins
}  // namespace tightpack
