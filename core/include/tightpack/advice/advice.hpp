// Advice the engine proves: how copies of a pod tile a new node of each pool
// it is meant for (tiling.hpp), what a smaller shape saves at this scale, and
// the fixes for copies that never run (fixes.hpp). `tightpack advise`, the
// sidebar and a notebook's preview() all ask through advise() and encode its
// answer with encode_advice(), so every front end shows the same advice.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tightpack/advice/fixes.hpp"
#include "tightpack/advice/intent.hpp"
#include "tightpack/advice/tiling.hpp"
#include "tightpack/error.hpp"
#include "tightpack/what_if/what_if.hpp"

namespace tightpack::advice {

struct Advice {
  std::string scheduler_name;
  std::optional<int64_t> replicas;
  std::vector<PoolIntent> intent;  // every pool that can grow
  std::vector<PoolTiling> tiling;  // the pools meant for the pod that admit it
  // With replicas: the copies as the pod is, and for each pool worth tiling
  // (by its name) the same copies at that pool's first suggestion.
  std::optional<Outcome> as_is;
  std::vector<std::pair<std::string, Outcome>> at_first_suggestion;
  std::vector<Fix> fixes;
};

// Needs pools (a cluster loaded without any has nothing to tile). Without
// `replicas`, only the tiling.
Result<Advice> advise(WhatIfCluster& cluster, const Pod& pod, std::optional<int64_t> replicas,
                      const Profile& profile);

// {"schedulerName", "replicas"?, "pools": [tiling…], "notMeant": [{pool, why}],
//  "asIs"?, "fixes"?, "admission"}: what `tightpack advise --output json`
// prints and the WebAssembly module's advise() returns.
boost::json::object encode_advice(const Advice& advice,
                                  const std::vector<AdmissionChange>& admitted);

// The request of the WebAssembly module: a place request whose "replicas"
// may be left out. Text in, JSON text out, never a thrown error.
std::string advise_text(WhatIfCluster& cluster, std::string_view request_json);

}  // namespace tightpack::advice
