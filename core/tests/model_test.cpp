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

namespace tightpack {
namespace {

struct SizeHash {
  size_t operator()(const Labels& l) const { return l.size(); }  // collisions on purpose
};

TEST(Shared, CopiesShareUntilOneChanges) {
  Shared<Labels> a = Labels{{"app", "dask"}, {"tier", "worker"}};
  Shared<Labels> b = a;
  EXPECT_EQ(a.held(), b.held());
  b.emplace_back("zone", "a");  // b's own copy from now on
  EXPECT_NE(a.held(), b.held());
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(*find_label(b, "zone"), "a");  // reads as the value it holds
  b.mut().pop_back();
  EXPECT_EQ(a, b);  // equal by value, held apart
  Shared<Labels> none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.held(), nullptr);  // nothing allocated for an empty part
  none = Labels{};
  EXPECT_EQ(none.held(), nullptr);
  EXPECT_EQ(none, Shared<Labels>());
}

TEST(Interner, EqualValuesBecomeOneAndUnheldOnesGo) {
  Interner<Labels, SizeHash> interner;
  std::vector<Shared<Labels>> kept;
  for (int i = 0; i < 3000; ++i) {
    Shared<Labels> l = Labels{{"app", "dask"}, {"user", "u" + std::to_string(i % 3)}};
    interner.intern(l);
    kept.push_back(l);
  }
  // One value per user, whatever the hash collisions.
  EXPECT_EQ(kept[0].held(), kept[3].held());
  EXPECT_NE(kept[0].held(), kept[1].held());
  EXPECT_EQ(*find_label(kept[1], "user"), "u1");
  EXPECT_EQ(interner.size(), 3u);
  // Values nobody holds any more are let go at the next sweep.
  kept.clear();
  for (int i = 0; i < 2000; ++i) {
    Shared<Labels> l = Labels{{"pod", std::to_string(i)}};
    interner.intern(l);
  }
  interner.sweep();
  EXPECT_EQ(interner.size(), 0u);
}

}  // namespace
}  // namespace tightpack
