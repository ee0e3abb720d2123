// What /snapshot may say about the operator's profiles (--publish). Every user
// of the hub reads /snapshot, and a KubeSpawner profile_list entry is written
// for the hub, not for them: its kubespawner_override can carry environment
// values, secret-bearing sidecars, commands and volume sources. So an entry
// goes out with only what the sidebar turns into a pod
// (labextension/jupyterlab_tightpack/profiles.py, KubeSpawner's make_pod) and
// kube-scheduler reads from it: names and descriptions, the default choice of
// each profile option, resources, placement and images. Everything else stays
// home; the operator is told, by path, what was left out.
#pragma once

#include <boost/json/array.hpp>
#include <string>
#include <vector>

namespace tightpack::daemon {

struct PublishedProfiles {
  boost::json::array profiles;
  std::vector<std::string> withheld;  // JSON paths left out, e.g. "$.profiles[0].kubespawner_override.environment"
};

// `entries` is the --publish document's list of profile_list entries; an entry
// that is not an object is withheld whole.
PublishedProfiles publishable_profiles(const boost::json::array& entries);

}  // namespace tightpack::daemon
