// What /snapshot serves to the JupyterLab sidebar: the envelope its server
// extension reads (cluster, pools, schedulerConfiguration, profiles), with the
// cluster redacted. Every user of the hub can read it, so it names no pod,
// image, environment variable or label: each bound pod becomes an anonymous
// pod carrying only what placement and scale-down read; StorageClasses are
// published as the cluster's (storage_publish.hpp), claims and volumes are
// not (a user's own come from /home). Pods, namespaces and
// controllers get pseudonyms drawn at random for each snapshot (from `seed`),
// and pods are listed in the order of their pseudonyms, so that neither the
// names nor the order say which pod is whose, nor follow one from one
// snapshot to the next.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>

#include "daemon/cache.hpp"
#include "daemon/published_profiles.hpp"

namespace tightpack::daemon {

boost::json::object redacted_snapshot(const ClusterCache& cache,
                                      const boost::json::value& scheduler_configuration,
                                      const std::optional<boost::json::value>& pools,
                                      const Published& published, uint64_t seed);

}  // namespace tightpack::daemon
