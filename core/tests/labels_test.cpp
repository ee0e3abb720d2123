#include "tightpack/labels.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace tightpack {
namespace {

using testing::json_of;
using testing::labels;

const JsonPath kRoot;
const JsonPath kSpec = kRoot.field("spec");
const JsonPath kSelector = kSpec.field("selector");

LabelSelector selector(std::string_view json) {
  LabelSelector s;
  auto fail = decode_label_selector(json_of(json), kSelector, s);
  EXPECT_FALSE(fail) << fail->what();
  return s;
}

std::string problem(std::string_view json) {
  auto e = validate_label_selector(selector(json), kSelector);
  return e ? e->what() : "";
}

TEST(ValidateLabelSelector, NamesTheFieldAndTheValue) {
  EXPECT_EQ(problem(R"({"matchLabels": {"app": "dask"}})"), "");
  EXPECT_EQ(problem(R"({"matchExpressions": [{"key": "a", "operator": "Exists"}]})"), "");
  EXPECT_EQ(problem(R"({"matchExpressions": [{"key": "a", "operator": "in", "values": ["x"]}]})"),
            "$.spec.selector.matchExpressions[0].operator: \"in\" is not a valid selector operator "
            "(In, NotIn, "
            "Exists, DoesNotExist)");
  EXPECT_EQ(problem(R"({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]})"),
            "$.spec.selector.matchExpressions[0].values: must be specified when `operator` is 'In' "
            "or 'NotIn'");
  EXPECT_EQ(
      problem(R"({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]})"),
      "$.spec.selector.matchExpressions[0].values: may not be specified when `operator` is "
      "'Exists' or "
      "'DoesNotExist'");
  EXPECT_NE(problem(R"({"matchLabels": {"-bad": "x"}})").find("label key \"-bad\""),
            std::string::npos);
  EXPECT_NE(problem(R"({"matchLabels": {"a": "has space"}})")
                .find("$.spec.selector.matchLabels.a: label value"),
            std::string::npos);
  EXPECT_NE(
      problem(R"({"matchExpressions": [{"key": "a", "operator": "In", "values": ["ok", "-no"]}]})")
          .find("matchExpressions[0].values[1]"),
      std::string::npos);
}

TEST(Selector, NilSelectsNothingAndEmptySelectsEverything) {
  EXPECT_FALSE(Selector::of(std::nullopt).matches({}));
  EXPECT_FALSE(Selector::of(std::nullopt).empty());
  EXPECT_TRUE(Selector::of(LabelSelector{}).matches(labels({{"a", "b"}})));
  EXPECT_TRUE(Selector::of(LabelSelector{}).empty());
}

TEST(Selector, MatchesAsLabelSelectorAsSelector) {
  const Selector s = Selector::of(selector(R"({"matchLabels": {"app": "dask"},
      "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["db"]},
                           {"key": "gone", "operator": "DoesNotExist"}]})"));
  EXPECT_TRUE(s.matches(labels({{"app", "dask"}})));
  EXPECT_TRUE(s.matches(labels({{"app", "dask"}, {"tier", "web"}})));
  EXPECT_FALSE(s.matches(labels({{"app", "dask"}, {"tier", "db"}})));
  EXPECT_FALSE(s.matches(labels({{"app", "dask"}, {"gone", ""}})));
  EXPECT_FALSE(s.matches(labels({{"app", "other"}})));
  for (const auto& l : {labels({{"app", "dask"}}), labels({{"app", "dask"}, {"tier", "db"}})}) {
    EXPECT_EQ(s.matches(l), label_selector_matches(selector(R"({"matchLabels": {"app": "dask"},
      "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["db"]},
                           {"key": "gone", "operator": "DoesNotExist"}]})"),
                                                   l));
  }
}

TEST(Selector, AddKeepsNothingAndIgnoresNothing) {
  Selector set = Selector::of_set(labels({{"app", "dask"}}));
  set.add(Selector::nothing());  // Requirements() of Nothing() is not ok: nothing added
  EXPECT_TRUE(set.matches(labels({{"app", "dask"}})));
  Selector nothing = Selector::nothing();
  nothing.add(set);
  EXPECT_FALSE(nothing.matches(labels({{"app", "dask"}})));
  Selector both = Selector::of_set(labels({{"app", "dask"}}));
  both.add(Selector::of(
      selector(R"({"matchExpressions": [{"key": "c", "operator": "In", "values": ["w"]}]})")));
  EXPECT_FALSE(both.matches(labels({{"app", "dask"}})));
  EXPECT_TRUE(both.matches(labels({{"app", "dask"}, {"c", "w"}})));
  EXPECT_EQ(both.requirements().size(), 2u);
}

}  // namespace
}  // namespace tightpack
