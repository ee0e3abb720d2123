// GET /dask/v1/nodes?namespace=NS&cluster=NAME: for the nodes where the Dask
// cluster's workers run, how many and whether anything else keeps each node
// (tightpack/dask_nodes.hpp). tightpack-dask's scheduler preload reads it to
// retire workers so that nodes empty; a node a move is emptying (mover.hpp)
// says `"emptying": true`, and `&drained=a,b` tells the mover which of those
// the preload has drained. The caller must be allowed to list pods
// in NS (a SubjectAccessReview, the Dask scheduler's service account): who may
// list those pods may learn where they run, and the answer says nothing else
// about other pods than one "kept" bit per such node. Who may list them may
// also say the cluster's workers drained: at worst its own cluster shrinks
// back earlier, by Dask's graceful retirement.
#pragma once

#include "daemon/delegated_auth.hpp"
#include "daemon/http_server.hpp"
#include "daemon/scheduler.hpp"

namespace tightpack::daemon {

HttpAnswer dask_nodes_answer(const HttpRequest& request, DelegatedAuth& auth, Scheduler& scheduler);

}  // namespace tightpack::daemon
