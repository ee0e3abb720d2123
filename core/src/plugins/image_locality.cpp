#include "tightpack/plugins/image_locality.hpp"

#include <algorithm>

#include "tightpack/go_int.hpp"
#include "tightpack/kube_release.hpp"
#include "tightpack/plugins/normalize.hpp"

namespace tightpack::plugins {
namespace {

constexpr int64_t kMb = int64_t{1024} * 1024;
constexpr int64_t kMinThreshold = 23 * kMb;
constexpr int64_t kMaxContainerThreshold = 1000 * kMb;

}  // namespace

std::string normalized_image_name(std::string_view image) {
  auto colon = image.rfind(':');
  auto slash = image.rfind('/');
  bool has_tag =
      colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash);
  return has_tag ? std::string(image) : std::string(image) + ":latest";
}

// sumImageScores' sources: init containers (sidecars among them), app
// containers, and from v1.36 image volumes. The 1.26 corpus counted the app
// containers only (the change is traced in docs/conformance.md).
std::vector<StrId> pod_images(const Cluster& cluster, const Pod& pod, int kube_minor) {
  std::vector<StrId> out;
  out.reserve(pod.init_containers.size() + pod.containers.size() + pod.image_volumes.size());
  for (const auto& c : pod.init_containers)
    out.push_back(cluster.strings().find(normalized_image_name(c.image)));
  for (const auto& c : pod.containers)
    out.push_back(cluster.strings().find(normalized_image_name(c.image)));
  if (kube_release::image_volumes_in_sum(kube_minor)) {
    for (const auto& ref : pod.image_volumes)
      out.push_back(cluster.strings().find(normalized_image_name(ref)));
  }
  return out;
}

size_t threshold_image_count(const Pod& pod, int kube_minor) {
  const size_t containers = pod.init_containers.size() + pod.containers.size();
  return kube_release::image_volumes_in_threshold(kube_minor)
             ? containers + pod.image_volumes.size()
             : containers;
}

int64_t image_locality_score(const Cluster& cluster, NodeIndex n, const std::vector<StrId>& images,
                             size_t threshold_images) {
  const auto& held = cluster.images(n);
  const auto total_nodes = static_cast<double>(cluster.size());
  int64_t sum = 0;
  for (StrId image : images) {
    if (image == kNoStr || !std::binary_search(held.begin(), held.end(), image)) continue;
    const ImageState* state = cluster.image_state(image);
    // scaledImageScore computes in float64; the same IEEE operations here.
    double spread = static_cast<double>(state->num_nodes) / total_nodes;
    // A size near 2^63 times a spread of 1 leaves int64's range: Go's
    // conversion result, then its wrapping sum, not UB.
    sum = go_add(sum, go_int64(static_cast<double>(state->size) * spread));
  }
  int64_t max_threshold = kMaxContainerThreshold * static_cast<int64_t>(threshold_images);
  sum = std::clamp(sum, kMinThreshold, std::max(max_threshold, kMinThreshold));
  if (max_threshold <= kMinThreshold) return 0;
  return kMaxNodeScore * (sum - kMinThreshold) / (max_threshold - kMinThreshold);
}

ImageLocalityPlugin::State ImageLocalityPlugin::prepare(const PlanContext& ctx) {
  State s;
  if (ctx.first_fit || ctx.profile.score_weight(kId) <= 0) return s;
  const Cluster& c = ctx.cluster;
  const std::vector<StrId> images = pod_images(c, ctx.pod, ctx.profile.kube_minor);
  const size_t threshold_images = threshold_image_count(ctx.pod, ctx.profile.kube_minor);
  std::vector<int64_t> by_set(c.image_set_count(), -1);
  s.score.resize(c.size());
  for (NodeIndex i = 0; i < c.size(); ++i) {
    int64_t& score = by_set[c.image_set(i)];
    if (score < 0) score = image_locality_score(c, i, images, threshold_images);
    s.score[i] = score;
  }
  return s;
}

}  // namespace tightpack::plugins
