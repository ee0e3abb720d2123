// What /snapshot serves to the JupyterLab sidebar: the envelope its server
// extension reads (cluster, pools, schedulerConfiguration, profiles), with the
// cluster redacted. Every user of the hub can read it, so it names no pod,
// image, environment variable or label: each bound pod becomes an anonymous
// pod carrying only what placement and scale-down read; StorageClasses are
// published as the cluster's (storage_publish.hpp), claims and volumes are
// not (a user's own come from /home). Pods, namespaces and
// controllers get pseudonyms under a key drawn for each snapshot
// (pseudonyms.hpp), and pods are listed in the order of their pseudonyms, so
// that neither the names nor the order say which pod is whose, nor follow
// one from one snapshot to the next.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "daemon/cache.hpp"
#include "daemon/pseudonyms.hpp"
#include "daemon/published_profiles.hpp"

namespace tightpack::daemon {

// How the bound pods are written: each a Pod of the List, or (what the
// sidebar asks for, `/snapshot?pods=grouped`) pods that differ only by their
// pseudonyms and node as one PodGroup (core's visit_objects reads both). On a
// hub of 150,000 pods, 118 MB against 14 (bench/RESULTS.md).
enum class PodForm { kExpanded, kGrouped };

// What /snapshot publishes, drawn from the cache (under its lock) with the
// pseudonyms of `key`; written out as text after, without the lock.
class RedactedSnapshot {
 public:
  RedactedSnapshot(const ClusterCache& cache, const boost::json::value& scheduler_configuration,
                   const std::optional<boost::json::value>& pools, const Published& published,
                   const PseudonymKey& key);

  std::string text(PodForm form) const;

 private:
  class Redactor;

  // A bound pod: its pseudonyms (of its name, namespace and controller), its
  // node and the template it shares with every pod of the same spec (a
  // PodGroup's).
  struct AnonymousPod {
    uint64_t name = 0, ns = 0, owner = 0;
    uint32_t node = 0, shape = 0;
    bool kube_system = false;  // kept by name: cluster-autoscaler reads it
    bool owned = false;
  };

  boost::json::array objects_;           // nodes and storage classes
  std::vector<std::string> shapes_;      // the pods' distinct templates, as JSON text
  std::vector<std::string> node_names_;  // the nodes pods hold
  std::vector<AnonymousPod> pods_;
  boost::json::object rest_;  // the envelope's other keys
};

}  // namespace tightpack::daemon
