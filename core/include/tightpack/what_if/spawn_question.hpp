// The hub's question before a spawn: for one user, the pod KubeSpawner would
// make for each profile and option choice of the spawn page (its own
// make_pod with the hub's settings) and the home claims it would make
// (make_pvc), asked of a cluster. The answer is each pod's outlook
// (outlook.hpp) and nothing else: no node, no other pod, no other user's
// claim, so whoever may ask learns what a pod of theirs would do and no more.
//
//   {"namespace": "jhub", "user": "alice",
//    "claims": [<v1 PersistentVolumeClaim>, …],          (optional)
//    "pods": [{"id": "gpu/t4", "pod": <v1 Pod>}, …]}
//
// Pods and claims are in `namespace` (KubeSpawner's manifests name none).
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <vector>

#include "tightpack/error.hpp"
#include "tightpack/pools/pools.hpp"

namespace tightpack {

class WhatIfCluster;

struct SpawnQuestion {
  std::string ns;
  std::string user;
  boost::json::array claims;  // each in `ns`
  struct Choice {
    std::string id;
    boost::json::value pod;  // in `ns`, decoded when answered: one bad pod spoils no other
  };
  std::vector<Choice> choices;
};

inline constexpr size_t kMaxSpawnChoices = 64;
inline constexpr size_t kMaxSpawnClaims = 16;

// Errors name the field and value; unknown fields are errors.
Result<SpawnQuestion> decode_spawn_question(const boost::json::value& doc);

// The question's claims that `snapshot` has no claim of (a first spawn's home
// claim, which KubeSpawner makes just before the pod), added as the API
// server would admit them: a claim without a class gets the default one when
// the cluster is loaded.
Status add_new_claims(pools::ClusterSnapshot& snapshot, const SpawnQuestion& question);

// {"answers": [{"id", "outlook": {…}} or {"id", "error"}, …]}, in the
// question's order. Each pod is admitted as the API server would admit it
// and placed alone under the profile its schedulerName names.
boost::json::object answer_spawn_question(WhatIfCluster& cluster, const SpawnQuestion& question);

}  // namespace tightpack
