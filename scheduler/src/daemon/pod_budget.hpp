// What the cache keeps of a pod it does not place is bounded, whatever a pod
// creator writes: kube-apiserver admits any number of labels, containers,
// affinity terms or volumes up to etcd's 1.5 MB an object, and the daemon
// keeps every pod of the cluster. A pod whose kept parts (after slim())
// weigh more than kMaxKeptPodBytes is kept as a stand-in, as a bound pod
// that cannot be read is (unreadable.hpp): its name, node and phase; while
// it holds a node, requests no node has room beside, so that nothing is
// placed next to a pod whose labels and terms the engine no longer sees, and
// no drain can move it; priority 2^31 - 1, so never a preemption victim.
// Real pods keep 1-5 KiB (bench/RESULTS.md); the budget is several times that.
#pragma once

#include <cstddef>

#include "tightpack/autoscaler/scenario.hpp"

namespace tightpack::daemon {

inline constexpr size_t kMaxKeptPodBytes = size_t{32} * 1024;

// What the pod's variable parts hold: strings, elements and the vectors'
// own bytes, not the allocator's overhead.
size_t kept_bytes(const Pod& pod);

// `pod` as its stand-in when it weighs more than the budget; true if so.
// `reduced_annotation` names the stand-in's reason (cache.hpp's).
bool keep_within_budget(autoscaler::CaPod& pod, const char* reduced_annotation);

}  // namespace tightpack::daemon
