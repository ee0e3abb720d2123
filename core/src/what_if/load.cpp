#include <boost/json.hpp>

#include "tightpack/decode.hpp"
#include "tightpack/what_if/what_if.hpp"

namespace tightpack {

namespace {

Error in_document(const std::string& document, const Error& e) {
  return Error{"", document + ": " + e.what()};
}

}  // namespace

Result<WhatIfCluster> load_what_if_cluster(const WhatIfInputs& inputs) {
  auto cluster = WhatIfCluster::load(inputs.snapshot.doc, JsonPath());
  if (!cluster) return in_document(inputs.snapshot.name, cluster.error());
  if (inputs.scheduler_config) {
    auto decoded = decode_scheduler_configuration(inputs.scheduler_config->doc, JsonPath());
    if (!decoded) return in_document(inputs.scheduler_config->name, decoded.error());
    cluster->use_scheduler_configuration(std::move(*decoded));
  }
  if (inputs.pools) {
    auto decoded = pools::decode_pools_config(inputs.pools->doc, JsonPath());
    if (!decoded) return in_document(inputs.pools->name, decoded.error());
    cluster->use_pools(std::move(*decoded));
  } else if (inputs.infer_pools) {
    cluster->use_pools(pools::PoolsConfig{});
  }
  return cluster;
}

}  // namespace tightpack
