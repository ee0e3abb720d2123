// ImageLocality: favours nodes that already hold the pod's images, scaled by
// how widely each image is spread over the cluster.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tightpack/cluster.hpp"

namespace tightpack::plugins {

// "busybox" → "busybox:latest"; names with a tag or digest stay.
std::string normalized_image_name(std::string_view image);

// The pod's container images, interned against
// the cluster: kNoStr for an image no node holds.
std::vector<StrId> pod_images(const Cluster& cluster, const Pod& pod);

int64_t image_locality_score(const Cluster& cluster, NodeIndex n, const std::vector<StrId>& images);

}  // namespace tightpack::plugins
