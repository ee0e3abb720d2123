// The one decoder of Kubernetes JSON, used by the native and the wasm build.
// Unknown fields are ignored (as the API's own clients do); a wrong type or a
// malformed quantity is an error carrying its JSON path.
#pragma once

#include <boost/json/value.hpp>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "tightpack/error.hpp"
#include "tightpack/json_path.hpp"
#include "tightpack/model.hpp"
#include "tightpack/objects.hpp"

namespace tightpack {

// Parses JSON text; the error names the line and column.
Result<boost::json::value> parse_json(std::string_view text);

Result<Node> decode_node(const boost::json::value& v, const JsonPath& path);
Result<Pod> decode_pod(const boost::json::value& v, const JsonPath& path);
// The same into a default-constructed Pod that already sits where it belongs:
// a Pod is a large object, and decoders of 150,000 pods should not move each
// one three times.
Status decode_pod_into(const boost::json::value& v, const JsonPath& path, Pod& pod);

// A metav1.LabelSelector, decoded as it is written (validate_label_selector
// in labels.hpp checks it); the error carries the JSON path.
std::optional<Error> decode_label_selector(const boost::json::value& v, const JsonPath& path,
                                           LabelSelector& out);

// spec.topologySpreadConstraints of a pod (`for_pod`) or
// PodTopologySpreadArgs.defaultConstraints, validated as the API server
// validates a pod's, or kube-scheduler its arguments.
std::optional<Error> decode_topology_spread(const boost::json::value& v, const JsonPath& path,
                                            bool for_pod,
                                            std::vector<TopologySpreadConstraint>& out);

// The cluster objects beyond nodes and pods (objects.hpp: ApiObjects).
Result<Namespace> decode_namespace(const boost::json::value& v, const JsonPath& path);
Result<MapSelectorObject> decode_map_selector_object(const boost::json::value& v,
                                                     const JsonPath& path);  // Service, RC
Result<SelectorObject> decode_selector_object(const boost::json::value& v,
                                              const JsonPath& path);  // RS, StatefulSet
// The storage objects (storage_decode.cpp).
Result<PersistentVolumeClaim> decode_persistent_volume_claim(const boost::json::value& v,
                                                             const JsonPath& path);
Result<PersistentVolume> decode_persistent_volume(const boost::json::value& v,
                                                  const JsonPath& path);
Result<StorageClass> decode_storage_class(const boost::json::value& v, const JsonPath& path);
Result<CsiNode> decode_csi_node(const boost::json::value& v, const JsonPath& path);
Result<CsiDriver> decode_csi_driver(const boost::json::value& v, const JsonPath& path);
Result<CsiStorageCapacity> decode_csi_storage_capacity(const boost::json::value& v,
                                                       const JsonPath& path);
// Decodes an object of one of those kinds into `out`; `known` is false for
// any other kind (nothing decoded).
Status decode_api_object(std::string_view kind, const boost::json::value& v, const JsonPath& path,
                         ApiObjects& out, bool& known);

struct ClusterObjects {
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  ApiObjects objects;
};

// Calls `visit` with each Kubernetes object of a v1 List (or any *List), a
// single object, or {"nodes": [...], "pods": [...]}, with its kind and path;
// the first error stops the walk. A List item of kind PodGroup (apiVersion
// tightpack.io/v1, what the in-cluster scheduler's /snapshot publishes:
// {"template": Pod, "pods": [[name, namespace, nodeName, owner name], ...]},
// the owner name only when the template has an owner) is visited as its pods.
using ObjectVisitor = std::function<Status(std::string_view kind, const boost::json::value& object,
                                           const JsonPath& path)>;
Status visit_objects(const boost::json::value& v, const JsonPath& path, const ObjectVisitor& visit);

// Accepts a v1 List (as `kubectl get nodes,pods -A -o json` prints it), a
// NodeList or PodList, a single Node or Pod, or {"nodes": [...], "pods": [...]}.
// Namespaces, Services, ReplicaSets, StatefulSets, ReplicationControllers and
// the storage objects in a List are decoded too; objects of other kinds are skipped.
Status decode_objects(const boost::json::value& v, const JsonPath& path, ClusterObjects& out);

// Resource amount in the scheduler's unit for that resource: millicores for
// cpu, the plain value for everything else.
// `whole`, when given, says whether the amount is a whole number of units of
// at most 2^53 (Quantity::whole_in): int64 sums of such amounts are
// PodRequests' sums.
Result<int64_t> resource_amount(std::string_view resource, const boost::json::value& quantity,
                                bool* whole = nullptr);
// The Quantity a resource amount is written as (a string, or a bare number).
Result<Quantity> resource_quantity(const boost::json::value& quantity);

}  // namespace tightpack
