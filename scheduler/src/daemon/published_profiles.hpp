// What /snapshot may say about the operator's profiles (--publish). Every user
// of the hub reads /snapshot, and a KubeSpawner profile_list entry is written
// for the hub, not for them: its kubespawner_override can carry environment
// values, secret-bearing sidecars, commands and volume sources. So an entry
// goes out with only what the sidebar turns into a pod
// (labextension/jupyterlab_tightpack/profiles.py, KubeSpawner's make_pod) and
// kube-scheduler reads from it: names and descriptions, the default choice of
// each profile option, resources, placement and images. Everything else stays
// home; the operator is told, by path, what was left out. The same holds for
// dask-gateway's server-side worker settings.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <vector>

#include "tightpack/error.hpp"

namespace tightpack::daemon {

struct PublishedProfiles {
  boost::json::array profiles;
  std::vector<std::string>
      withheld;  // JSON paths left out, e.g. "$.profiles[0].kubespawner_override.environment"
};

// `entries` is the --publish document's list of profile_list entries; an entry
// that is not an object is withheld whole.
PublishedProfiles publishable_profiles(const boost::json::array& entries);

// dask-gateway's server-side settings of its workers, which no client can see
// (the dask-gateway chart's gateway.backend.worker.extraPodConfig and
// extraContainerConfig, merged into every worker pod by its controller's
// make_pod): {"worker": {"extraPodConfig": ..., "extraContainerConfig": ...}},
// kept to what kube-scheduler reads, as a profile's extra_pod_config and
// extra_container_config are.
struct PublishedSettings {
  boost::json::value settings;  // null when nothing is left
  std::vector<std::string>
      withheld;  // e.g. "$.daskGateway.worker.extraPodConfig.serviceAccountName"
};
PublishedSettings publishable_dask_gateway(const boost::json::value& settings);

// The hub's own KubeSpawner settings for every user pod (what
// zero-to-jupyterhub's values become: the user tolerations, the node-purpose
// affinity, the memory guarantee, the scheduler name), under which each
// profile's kubespawner_override applies: kept as an override is.
PublishedSettings publishable_kubespawner_defaults(const boost::json::value& settings);

// What the operator publishes for the sidebar, kept to what the sidebar reads.
struct Published {
  boost::json::value profiles = boost::json::array();
  boost::json::value dask_gateway;          // null: not published
  boost::json::value kubespawner_defaults;  // null: not published
};

// The whole --publish document, {"profiles": [...], "kubespawnerDefaults":
// {...}, "daskGateway": {...}} (every key optional), checked and kept: an
// error names the field; `withheld` every path left out.
struct PublishedDocument {
  Published published;
  std::vector<std::string> withheld;
};
Result<PublishedDocument> publishable(const boost::json::value& document);

}  // namespace tightpack::daemon
