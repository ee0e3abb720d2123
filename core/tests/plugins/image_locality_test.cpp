#include "tightpack/plugins/image_locality.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace tightpack::plugins {
namespace {

using tightpack::testing::build_cluster;
using tightpack::testing::make_node;
using tightpack::testing::make_pod;

constexpr int64_t kMB = int64_t{1024} * 1024;

Node node_with_images(std::string name, std::vector<ContainerImage> images) {
  Node n = make_node(std::move(name), 4000, 8LL << 30);
  n.images = std::move(images);
  return n;
}

Pod pod_with_images(std::vector<std::string> images) {
  Pod p = make_pod("p", std::vector<ResourceList>(images.size()));
  for (size_t i = 0; i < images.size(); ++i) p.containers.mut()[i].image = images[i];
  return p;
}

int64_t score_on(const Cluster& c, NodeIndex n, const Pod& p, int kube_minor = 37) {
  return image_locality_score(c, n, pod_images(c, p, kube_minor),
                              threshold_image_count(p, kube_minor));
}

TEST(ImageLocality, NormalizedImageName) {
  EXPECT_EQ(normalized_image_name("busybox"), "busybox:latest");
  EXPECT_EQ(normalized_image_name("busybox:1.36"), "busybox:1.36");
  EXPECT_EQ(normalized_image_name("gcr.io/project/app"), "gcr.io/project/app:latest");
  EXPECT_EQ(normalized_image_name("localhost:5000/app"), "localhost:5000/app:latest");
  EXPECT_EQ(normalized_image_name("localhost:5000/app:v2"), "localhost:5000/app:v2");
  EXPECT_EQ(normalized_image_name("app@sha256:abcd"), "app@sha256:abcd");
}

TEST(ImageLocality, ScaledBySpread) {
  Cluster c = build_cluster({node_with_images("a", {{{"gcr.io/250:latest"}, 250 * kMB}}),
                             node_with_images("b", {{{"gcr.io/40:latest"}, 40 * kMB}})});
  Pod p = pod_with_images({"gcr.io/250"});
  // 250 MB on 1 of 2 nodes: 125 MB; 100 × (125 − 23) / (1000 − 23) = 10.4.
  EXPECT_EQ(score_on(c, 0, p), 10);
  EXPECT_EQ(score_on(c, 1, p), 0);
}

TEST(ImageLocality, ImageOnEveryNodeCountsFully) {
  Cluster c = build_cluster({node_with_images("a", {{{"app:v1"}, 500 * kMB}}),
                             node_with_images("b", {{{"app:v1"}, 500 * kMB}})});
  // 100 × (500 − 23) / 977 = 48.8.
  EXPECT_EQ(score_on(c, 0, pod_with_images({"app:v1"})), 48);
  EXPECT_EQ(score_on(c, 1, pod_with_images({"app:v1"})), 48);
}

TEST(ImageLocality, SmallAndHugeImagesClamp) {
  Cluster c =
      build_cluster({node_with_images("a", {{{"tiny:1"}, 10 * kMB}, {{"huge:1"}, 5000 * kMB}})});
  EXPECT_EQ(score_on(c, 0, pod_with_images({"tiny:1"})), 0);    // below 23 MB
  EXPECT_EQ(score_on(c, 0, pod_with_images({"huge:1"})), 100);  // above 1000 MB per container
  // Two containers double the ceiling: (5000 clamped to 2000 − 23) / (2000 − 23).
  EXPECT_EQ(score_on(c, 0, pod_with_images({"huge:1", "other:1"})), 100);
  // 10 + 5000 MB over two containers, capped at 2000 MB.
  EXPECT_EQ(score_on(c, 0, pod_with_images({"tiny:1", "huge:1"})), 100);
}

TEST(ImageLocality, TwoContainersShareTheCeiling) {
  Cluster c = build_cluster({node_with_images("a", {{{"x:1"}, 500 * kMB}})});
  // 100 × (500 − 23) / (2000 − 23) = 24.1.
  EXPECT_EQ(score_on(c, 0, pod_with_images({"x:1", "y:1"})), 24);
}

TEST(ImageLocality, UntaggedImagesMeanLatest) {
  Cluster c = build_cluster({node_with_images("a", {{{"busybox:latest"}, 500 * kMB}})});
  EXPECT_EQ(score_on(c, 0, pod_with_images({"busybox"})), 48);
  EXPECT_EQ(score_on(c, 0, pod_with_images({"busybox:1.36"})), 0);
}

TEST(ImageLocality, SizeComesFromTheFirstNodeListingTheImage) {
  Cluster c = build_cluster({node_with_images("a", {{{"app:v1"}, 300 * kMB}}),
                             node_with_images("b", {{{"app:v1"}, 900 * kMB}})});
  const ImageState* s = c.image_state(c.strings().find("app:v1"));
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->size, 300 * kMB);
  EXPECT_EQ(s->num_nodes, 2);
  // 100 × (300 − 23) / 977 = 28.4 on both nodes.
  EXPECT_EQ(score_on(c, 1, pod_with_images({"app:v1"})), 28);
}

TEST(ImageLocality, SeveralNamesOfOneImage) {
  Cluster c =
      build_cluster({node_with_images("a", {{{"docker.io/library/app:v1", "app:v1"}, 500 * kMB}}),
                     make_node("b", 1, 1)});
  const ImageState* s = c.image_state(c.strings().find("app:v1"));
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->num_nodes, 1);
  // 500 MB on half the nodes: 250; 100 × 227 / 977 = 23.2.
  EXPECT_EQ(score_on(c, 0, pod_with_images({"app:v1"})), 23);
  EXPECT_EQ(score_on(c, 1, pod_with_images({"app:v1"})), 0);
}

TEST(ImageLocality, UnknownImages) {
  Cluster c = build_cluster({node_with_images("a", {{{"app:v1"}, 500 * kMB}})});
  Pod p = pod_with_images({"nowhere:1"});
  auto images = pod_images(c, p, 37);
  ASSERT_EQ(images.size(), 1u);
  EXPECT_EQ(images[0], kNoStr);
  EXPECT_EQ(image_locality_score(c, 0, images, 1), 0);
}

// An image volume adds to the sum from v1.36; v1.37 also raises the
// threshold by one image (kubernetes#138951), v1.36 does not; v1.35 and
// v1.30 ignore image volumes.
TEST(ImageLocality, ImageVolumesInTheSumSinceV136AndTheThresholdSinceV137) {
  Cluster c =
      build_cluster({node_with_images("a", {{{"app:v1"}, 500 * kMB}, {{"data:v1"}, 500 * kMB}})});
  Pod p = pod_with_images({"app:v1"});
  p.image_volumes = {"data:v1"};
  // sum 1000 MB (one node of one: no spread scaling); thresholds 23 MB..2000 or ..1000 MB.
  EXPECT_EQ(score_on(c, 0, p, 37), 100 * (1000 - 23) / (2000 - 23));
  EXPECT_EQ(score_on(c, 0, p, 36), 100);
  // sum 500 MB of a 1000 MB threshold.
  EXPECT_EQ(score_on(c, 0, p, 35), 100 * (500 - 23) / (1000 - 23));
  EXPECT_EQ(score_on(c, 0, p, 30), 100 * (500 - 23) / (1000 - 23));
}

TEST(ImageLocality, InitContainerImagesAreCounted) {
  // kube-scheduler v1.37 (sumImageScores) counts init containers, sidecars
  // among them, in the sum and in the threshold; the 1.26 corpus scored the
  // app containers only (docs/conformance.md traces the change).
  Cluster c = build_cluster({node_with_images("a", {{{"init:1"}, 500 * kMB}})});
  Pod p = pod_with_images({"app:1"});
  p.init_containers.push_back(testing::make_container({}, "init"));
  p.init_containers.mut()[0].image = "init:1";
  EXPECT_EQ(pod_images(c, p, 37).size(), 2u);
  // 100 × (500 − 23) / (2 × 1000 − 23) = 24.1.
  EXPECT_EQ(score_on(c, 0, p), 24);
  // A sidecar (restartPolicy: Always) counts the same.
  p.init_containers.mut()[0].restart_always = true;
  EXPECT_EQ(score_on(c, 0, p), 24);
  // An init image missing from the node still raises the threshold.
  Pod q = pod_with_images({"init:1"});
  EXPECT_EQ(score_on(c, 0, q), 48);  // 100 × 477 / 977
  q.init_containers.push_back(testing::make_container({}, "init"));
  q.init_containers.mut()[0].image = "elsewhere:1";
  EXPECT_EQ(score_on(c, 0, q), 24);
}

TEST(ImageLocality, ImageVolumesAreCounted) {
  // spec.volumes[].image.reference is one more image source for
  // sumImageScores, in the sum and in the threshold, normalised like a
  // container's image.
  Cluster c =
      build_cluster({node_with_images("a", {{{"data:1"}, 500 * kMB}, {{"init:1"}, 500 * kMB}}),
                     node_with_images("b", {})});
  Pod p = pod_with_images({"app:1"});
  p.image_volumes = {"data:1"};
  EXPECT_EQ(pod_images(c, p, 37).size(), 2u);
  // 500 MB on one node of two: 250; 100 × (250 − 23) / (2000 − 23) = 11.5.
  EXPECT_EQ(score_on(c, 0, p), 11);
  EXPECT_EQ(score_on(c, 1, p), 0);
  // Init container, app container and image volume: 100 × (500 − 23) / (3000 − 23) = 16.
  p.init_containers.push_back(testing::make_container({}, "init"));
  p.init_containers.mut()[0].image = "init:1";
  EXPECT_EQ(pod_images(c, p, 37).size(), 3u);
  EXPECT_EQ(score_on(c, 0, p), 16);

  // An untagged reference means :latest.
  Cluster latest = build_cluster({node_with_images("a", {{{"data:latest"}, 500 * kMB}})});
  Pod q = pod_with_images({"app:1"});
  q.image_volumes = {"data"};
  EXPECT_EQ(score_on(latest, 0, q), 24);
}

}  // namespace
}  // namespace tightpack::plugins
