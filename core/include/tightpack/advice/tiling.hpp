// How copies of one pod fill a new node of each pool, and the largest shapes
// at or below its requests that fit more copies per node.
//
// A new node is the one cluster-autoscaler would add (pools::pool_templates):
// its allocatable, taints and labels, with the DaemonSet pods it starts with.
// Copies are counted by placing them on that node alone with kube-scheduler's
// own filters, not by dividing, so whatever stops the next copy (a resource,
// the node's pod count, a host port) stops it here; the arithmetic below only
// proposes shapes, and each is placed again before it is kept.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tightpack/advice/intent.hpp"
#include "tightpack/error.hpp"
#include "tightpack/model.hpp"
#include "tightpack/objects.hpp"
#include "tightpack/pools/pools.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::advice {

// A share per resource the pod asks for, in fitsRequest's order (cpu,
// memory, ephemeral-storage, then extended resources by name).
using Shares = std::vector<std::pair<std::string, double>>;

// The pod at a smaller shape.
struct Shape {
  int64_t per_node = 0;  // copies a new node takes at this shape
  // The pod's whole request per resource it asks for (cpu in millicores,
  // the rest in bytes or counts), as kube-scheduler sums it.
  ResourceList requests;
  // The container that gives up the difference, and its new requests.
  std::string container;
  ResourceList container_requests;
  Shares change;  // (new − old) / old: −0.0125 for 4 cpus → 3950m
};

struct PoolTiling {
  std::string pool;
  int64_t per_node = 0;  // copies a new node takes
  // What stops copy per_node + 1: a resource the pod asks for ("cpu",
  // "memory", "nvidia.com/gpu"), "pods" (the node's pod count), or the filter
  // plugin that rejects it ("NodePorts", "PodTopologySpread").
  std::string binding;
  ResourceList allocatable;        // of the new node
  ResourceList free;               // allocatable less what its DaemonSet pods request
  Shares idle;                     // share of allocatable left unrequested with per_node copies
  std::vector<Shape> suggestions;  // more copies per node, fewest first
  // The binding resource is more than kWorthTiling idle and a smaller shape
  // fits more copies: worth telling the user.
  bool worth_tiling = false;
};

// A node the workers fill is worth a word when more than this share of its
// binding resource stays idle.
inline constexpr double kWorthTiling = 0.10;

struct TilingOptions {
  size_t max_suggestions = 3;
  double max_cut = 0.5;  // no suggestion asks for less than half of any resource
};

// For each pool whose new node admits the pod but for its size (taints,
// selectors, affinity and ports pass; a node too small has per_node 0), in
// the order of `templates`; with `only`, of the pools it says are meant for
// the pod. Errors only when the pod needs what the engine does not model.
Result<std::vector<PoolTiling>> tile(const std::vector<pools::PoolTemplate>& templates,
                                     const ApiObjects& objects, const Profile& profile,
                                     const Pod& pod, const TilingOptions& options = {},
                                     const std::vector<PoolIntent>* only = nullptr);

// The same for one pool; nullopt when its new node rejects the pod for
// anything but its size.
Result<std::optional<PoolTiling>> tile_pool(const pools::PoolTemplate& t, const ApiObjects& objects,
                                            const Profile& profile, const Pod& pod,
                                            const TilingOptions& options = {});

// `pod` asking for `requests` in all (the resources it names; the others as
// they are): pod-level requests where it sets them, else the app container
// that asks most of each resource gives up the difference, its limit
// following where it equalled the request. nullopt when no container can
// (an init container's request dominates, or the container would ask for
// nothing).
std::optional<Pod> resized(const Pod& pod, const ResourceList& requests,
                           std::string* container = nullptr);

// The amount rounded down to a step a person would type: 10m from 1 cpu,
// 5m from 100m; 64Mi from 1Gi and 1Mi from 1Mi for bytes.
int64_t round_down(const std::string& resource, int64_t amount);

}  // namespace tightpack::advice
