// The watch cache as cluster-autoscaler sees it, for the mover's plans
// (mover.hpp): a copy of its nodes, pods (an assumed pod on the node it
// holds; pending pods of every scheduler apart), disruption budgets and
// objects, taken under the cache's lock, then one node group per pool of the
// NodePools document, resolved without it.
#pragma once

#include "daemon/cache.hpp"
#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/pools/pools.hpp"

namespace tightpack::daemon {

pools::ClusterSnapshot cache_snapshot(const ClusterCache& cache);

autoscaler::AutoscaleScenario cache_scenario(pools::ClusterSnapshot snapshot,
                                             const pools::PoolsConfig& config);

}  // namespace tightpack::daemon
