// `tightpack predict --pools FILE`: the replicas that fit nowhere today,
// through cluster-autoscaler's scale-up over the node pools, printed below
// the placement table (or as "scaleUp" in the JSON output).
#pragma once

#include <boost/json/value.hpp>
#include <iosfwd>
#include <string>

#include "tightpack/cluster.hpp"
#include "tightpack/error.hpp"
#include "tightpack/model.hpp"
#include "tightpack/pools.hpp"
#include "tightpack/scale_up_prediction.hpp"
#include "tightpack/simulate.hpp"

namespace tightpack::cli {

struct PoolsAnswer {
  pools::PoolsConfig config;
  pools::ResolvedPools resolved;
  pools::ScaleUpPrediction prediction;
};

// Decodes the NodePools document and the cluster a second time as the
// autoscaler sees it, and predicts the scale-up for the replicas `result`
// left unplaced on `cluster`. Errors name the file, the field and the value.
Result<PoolsAnswer> predict_pools(const boost::json::value& pools_doc,
                                  const std::string& pools_file,
                                  const boost::json::value& cluster_doc,
                                  const std::string& cluster_file, const Pod& pod,
                                  const SimulationResult& result, const Cluster& cluster);

void print_scale_up(std::ostream& out, const PoolsAnswer& answer);
boost::json::value scale_up_json(const PoolsAnswer& answer);

// "~3 min", "~45 s".
std::string wait_text(int64_t seconds);

}  // namespace tightpack::cli
