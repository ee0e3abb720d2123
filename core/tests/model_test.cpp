#include "tightpack/model.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace tightpack {
namespace {

using testing::labels;
using testing::resources;

TEST(ResourceList, SetKeepsNamesSorted) {
  ResourceList r;
  set_resource(r, "memory", 5);
  set_resource(r, "cpu", 1);
  set_resource(r, "nvidia.com/gpu", 2);
  set_resource(r, "ephemeral-storage", 3);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].first, "cpu");
  EXPECT_EQ(r[1].first, "ephemeral-storage");
  EXPECT_EQ(r[2].first, "memory");
  EXPECT_EQ(r[3].first, "nvidia.com/gpu");
  set_resource(r, "memory", 7);
  EXPECT_EQ(r.size(), 4u);
  EXPECT_EQ(*find_resource(r, "memory"), 7);
}

TEST(ResourceList, FindDistinguishesZeroFromAbsent) {
  ResourceList r = resources({{"cpu", 0}});
  ASSERT_NE(find_resource(r, "cpu"), nullptr);
  EXPECT_EQ(*find_resource(r, "cpu"), 0);
  EXPECT_EQ(find_resource(r, "memory"), nullptr);
  EXPECT_EQ(find_resource({}, "cpu"), nullptr);
}

TEST(ResourceList, AddAndMax) {
  ResourceList a = resources({{"cpu", 100}, {"memory", 10}});
  add_resources(a, resources({{"cpu", 50}, {"pods", 1}}));
  EXPECT_EQ(a, resources({{"cpu", 150}, {"memory", 10}, {"pods", 1}}));
  max_resources(a, resources({{"cpu", 120}, {"memory", 20}, {"example.com/x", 0}}));
  EXPECT_EQ(a, resources({{"cpu", 150}, {"example.com/x", 0}, {"memory", 20}, {"pods", 1}}));
}

TEST(Labels, Find) {
  Labels l = labels({{"zone", "a"}, {"disk", "ssd"}, {"empty", ""}});
  ASSERT_NE(find_label(l, "zone"), nullptr);
  EXPECT_EQ(*find_label(l, "zone"), "a");
  EXPECT_EQ(*find_label(l, "empty"), "");
  EXPECT_EQ(find_label(l, "gpu"), nullptr);
  EXPECT_EQ(find_label(l, "zon"), nullptr);
}

TEST(Tolerations, AnyTolerationSuffices) {
  Taint t{"k", "v", "NoSchedule"};
  EXPECT_FALSE(tolerations_tolerate({}, t));
  EXPECT_TRUE(tolerations_tolerate({Toleration{"x", "Exists", "", "", std::nullopt},
                                    Toleration{"k", "Equal", "v", "NoSchedule", std::nullopt}},
                                   t));
}

TEST(PodKey, NamespaceAndName) {
  Pod p;
  p.name = "web";
  EXPECT_EQ(p.key(), "default/web");
  p.ns = "shop";
  EXPECT_EQ(p.key(), "shop/web");
}

}  // namespace
}  // namespace tightpack
