// What the decoders of decode.cpp and storage_decode.cpp share: pieces of the
// Kubernetes object schema that several kinds use.
#pragma once

#include <optional>
#include <string>

#include "json_read.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/model.hpp"

namespace tightpack::decode_detail {

using json_read::Fail;

// A v1.NodeSelectorTerm, as written (node affinity of pods and volumes).
Fail read_node_selector_term(const boost::json::value& v, const JsonPath& path,
                             NodeSelectorTerm& term);
// The checks the API server's validation makes of a NodeSelectorTerm that is
// not a pod's (a PersistentVolume's node affinity): operators, value counts,
// Gt/Lt integers, matchFields on metadata.name only.
Fail validate_node_selector_term(const NodeSelectorTerm& term, const JsonPath& path);
// metadata.ownerReferences: the first reference with controller: true.
Fail read_controller(const boost::json::object& meta, const JsonPath& path,
                     std::optional<OwnerReference>& out);
// One entry of a pod's spec.volumes; `out.source` stays kOther for sources no
// scheduling plugin reads.
Fail read_pod_volume(const boost::json::object& volume, const JsonPath& path, PodVolume& out);
// A storage amount (resources.requests.storage, capacity.storage): bytes,
// rounded up; errors name the field.
Fail read_storage_amount(const boost::json::value& v, const JsonPath& path, int64_t& out);

// Calls `visit` with each pod of a PodGroup (apiVersion tightpack.io/v1): its
// template with each member's [name, namespace, nodeName, owner name] put in,
// at the member's path.
Fail visit_pod_group(const boost::json::object& group, const JsonPath& path,
                     const ObjectVisitor& visit);

}  // namespace tightpack::decode_detail
