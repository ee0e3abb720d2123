// ImageLocality: favours nodes that already hold the pod's images, scaled by
// how widely each image is spread over the cluster.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/framework/plugin.hpp"

namespace tightpack::plugins {

// "busybox" → "busybox:latest"; names with a tag or digest stay.
std::string normalized_image_name(std::string_view image);

// The images ImageLocality sums for the pod under `kube_minor`, interned
// against the cluster: kNoStr for an image no node holds. v1.35 and earlier
// sum the containers' images only; v1.36 adds image volumes.
std::vector<StrId> pod_images(const Cluster& cluster, const Pod& pod, int kube_minor);

// `threshold_images`: how many images the maximum threshold counts. v1.37
// counts every source (kubernetes#138951, fixing #138952); v1.36
// counts the containers only, image volumes adding to the sum alone.
int64_t image_locality_score(const Cluster& cluster, NodeIndex n, const std::vector<StrId>& images,
                             size_t threshold_images);

// The number of images the threshold counts for `pod` under `kube_minor`.
size_t threshold_image_count(const Pod& pod, int kube_minor);

struct ImageLocalityPlugin {
  static constexpr Plugin kId = Plugin::ImageLocality;
  struct State {
    // Per node (computed once per image set); empty in a first-fit plan or
    // when the profile does not score with the plugin.
    std::vector<int64_t> score;
  };
  static State prepare(const PlanContext& ctx);
  static int64_t score(const State& s, const Cluster&, NodeIndex n) {
    return s.score.empty() ? 0 : s.score[n];
  }
};

}  // namespace tightpack::plugins
