// Which pools a pod's copies are meant for. Advice never steers a pod to a
// pool it is not meant for: a GPU pool for a pod that asks for no GPU, a
// pool reserved for JupyterHub's own pods (the hub's core pool), a pool
// whose taint reserves it for another kind of pod (Dask workers, users'
// notebook servers), or a pool the pod's node selector or required node
// affinity excludes. A pool the pod's copies land on today counts the same:
// workers there are not where their owner meant them to be.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tightpack/model.hpp"
#include "tightpack/pools/pools.hpp"

namespace tightpack::advice {

enum class NotMeant : uint8_t {
  kMeant,
  kGpu,       // the pool's nodes offer GPUs; the pod asks for none
  kHubCore,   // hub.jupyter.org/node-purpose=core, or the hub's own pods run there
  kReserved,  // a taint it does not tolerate reserves it for another kind of pod
  kSelector,  // the pod's node selector / required node affinity excludes its nodes
};

struct PoolIntent {
  std::string pool;
  NotMeant why = NotMeant::kMeant;
  bool meant() const { return why == NotMeant::kMeant; }
};

// One per pool of `templates`, in their order.
std::vector<PoolIntent> pool_intent(const Pod& pod,
                                    const std::vector<pools::PoolTemplate>& templates,
                                    const pools::ClusterSnapshot& snapshot,
                                    const pools::ResolvedPools& pools);

// Whether `pool` is meant for the pod; a pool not listed (a node without a
// pool, a pool that cannot grow) counts as meant: nothing says otherwise.
bool meant(const std::vector<PoolIntent>& intent, std::string_view pool);

// An extended resource that is a GPU: nvidia.com/*, amd.com/gpu,
// gpu.intel.com/*, anything named *gpu*.
bool is_gpu_resource(std::string_view name);

// The kinds of pod the conventions of DaskHub tell apart: a Dask worker (the
// dask-kubernetes operator's dask.org/component=worker, dask-gateway's
// app.kubernetes.io/component=dask-worker), a user's notebook server
// (KubeSpawner's component=singleuser-server), anything else.
enum class PodKind : uint8_t { kOther, kDaskWorker, kNotebook };
PodKind pod_kind(const Pod& pod);

// The kind of pod a taint reserves a node for: dask=worker and
// k8s.dask.org/dedicated=worker (DaskHub's worker pools) for Dask workers,
// hub.jupyter.org/dedicated=user for notebook servers; kOther for any other.
PodKind reserved_for(const Taint& taint);

// JupyterHub's own pods: the hub, the proxy, autohttps and the
// user-scheduler, by zero-to-jupyterhub's labels (component, with app or
// app.kubernetes.io/name jupyterhub).
bool is_hub_core_pod(const Pod& pod);

}  // namespace tightpack::advice
