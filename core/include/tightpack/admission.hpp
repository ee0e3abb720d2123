// What the API server does to a pod between `kubectl apply` (or a client's
// create call) and kube-scheduler: the defaulting and mutating admission that
// change what scheduling reads. A pod read from the cluster has been through
// them already, and running them again changes nothing; a pod a user is about
// to create (a notebook profile, a Dask worker template) has not, so every
// what-if question admits its pod first.
//
//   1. Defaulting (pkg/apis/core/v1/defaults.go, SetDefaults_Pod): a
//      container or init container resource with a limit and no request gets
//      the limit as its request.
//   2. DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds),
//      on by default: tolerations of node.kubernetes.io/not-ready and
//      unreachable, NoExecute, for 300 s, unless the pod tolerates them.
//   3. ExtendedResourceToleration (plugin/pkg/admission/extendedresourcetoleration),
//      off by default and on in GKE: for each extended resource a container
//      requests, in sorted order, the toleration {key: <resource>, operator:
//      Exists, effect: NoSchedule}, added or updated as
//      helper.AddOrUpdateTolerationInPod does.
//
// Left out: pod-level resource defaulting (behind PodLevelResources), Priority
// (it needs the PriorityClass objects), LimitRanger, RuntimeClass overhead
// and webhooks.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <vector>

#include "tightpack/autoscaler/drain.hpp"
#include "tightpack/error.hpp"
#include "tightpack/json_path.hpp"
#include "tightpack/model.hpp"
#include "tightpack/objects.hpp"

namespace tightpack {

struct AdmissionOptions {
  bool extended_resource_toleration = false;
  bool default_toleration_seconds = true;
};

// One change admission made, as data for the sidebar to word.
struct AdmissionChange {
  // "defaulting", "DefaultTolerationSeconds" or "ExtendedResourceToleration".
  std::string by;
  // Defaulting: the container and the request it set from the limit.
  std::string container, resource, quantity;
  // The admission plugins: the toleration added (or updated).
  boost::json::object toleration;
};

struct AdmittedPod {
  boost::json::value pod;
  std::vector<AdmissionChange> changes;
};

// `pod` (a v1 Pod) as the API server would store it. An error names the
// field (under `path`) that admission cannot read.
Result<AdmittedPod> admit_pod(const boost::json::value& pod, const AdmissionOptions& options,
                              const JsonPath& path);

// `pod` admitted, then decoded: what every what-if question asks about (the
// WebAssembly requests, `tightpack predict`).
struct AdmittedRequestPod {
  Pod pod;
  std::vector<AdmissionChange> changes;
  // What cluster-autoscaler's scale-down would do with it on a node it removes.
  autoscaler::PodDrain drain;
};
Result<AdmittedRequestPod> decode_admitted_pod(const boost::json::value& pod,
                                               const AdmissionOptions& options,
                                               const JsonPath& path);

// [{"by": "defaulting", "container", "resource", "request"} |
//  {"by": <plugin>, "toleration": {...}}]
boost::json::array encode_admission_changes(const std::vector<AdmissionChange>& changes);

// DefaultStorageClass, as a claim's admission and as the PV controller's
// retroactive assignment (GA in v1.28) give it: every unbound claim with no
// class at all gets the default StorageClass (GetDefaultClass: among the
// classes marked default, the newest, then the first by name). None marked
// default: nothing changes.
void assign_default_storage_class(ApiObjects& objects);

}  // namespace tightpack
