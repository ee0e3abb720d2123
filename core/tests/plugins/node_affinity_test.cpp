#include "tightpack/plugins/node_affinity.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace tightpack::plugins {
namespace {

using tightpack::testing::labels;

NodeSelectorRequirement req(std::string key, std::string op, std::vector<std::string> values = {}) {
  return NodeSelectorRequirement{std::move(key), std::move(op), std::move(values)};
}

NodeSelectorTerm term(std::vector<NodeSelectorRequirement> exprs,
                      std::vector<NodeSelectorRequirement> fields = {}) {
  return NodeSelectorTerm{std::move(exprs), std::move(fields)};
}

Node node(std::string name, Labels l) {
  Node n;
  n.name = std::move(name);
  n.labels = std::move(l);
  return n;
}

Pod pod_with_required(std::vector<NodeSelectorTerm> terms) {
  Pod p;
  p.name = "p";
  p.node_affinity.required = std::move(terms);
  return p;
}

bool matches(const NodeSelectorTerm& t, const Node& n) {
  return NodeSelectorTermMatcher(t).matches(n);
}

bool matches_expr(const NodeSelectorRequirement& r, const Labels& l) {
  return NodeSelectorTermMatcher(term({r})).matches(node("n", l));
}

TEST(NodeSelectorTerm, In) {
  EXPECT_TRUE(matches_expr(req("foo", "In", {"bar", "value2"}), labels({{"foo", "bar"}})));
  EXPECT_FALSE(matches_expr(req("foo", "In", {"value1", "value2"}), labels({{"foo", "bar"}})));
  EXPECT_FALSE(matches_expr(req("foo", "In", {"bar"}), labels({})));
  EXPECT_FALSE(matches_expr(req("foo", "In", {"bar"}),
                            labels({{"Foo", "bar"}})));  // keys are case sensitive
}

TEST(NodeSelectorTerm, NotInMatchesNodesWithoutTheLabel) {
  EXPECT_TRUE(
      matches_expr(req("mem-type", "NotIn", {"DDR", "DDR2"}), labels({{"mem-type", "DDR3"}})));
  EXPECT_FALSE(
      matches_expr(req("mem-type", "NotIn", {"DDR", "DDR2"}), labels({{"mem-type", "DDR2"}})));
  EXPECT_TRUE(matches_expr(req("mem-type", "NotIn", {"DDR"}), labels({})));
}

TEST(NodeSelectorTerm, ExistsAndDoesNotExist) {
  EXPECT_TRUE(matches_expr(req("GPU", "Exists"), labels({{"GPU", "NVIDIA-GRID-K1"}})));
  EXPECT_TRUE(matches_expr(req("GPU", "Exists"), labels({{"GPU", ""}})));
  EXPECT_FALSE(matches_expr(req("GPU", "Exists"), labels({{"gpu", "x"}})));
  EXPECT_TRUE(matches_expr(req("GPU", "DoesNotExist"), labels({{"gpu", "x"}})));
  EXPECT_FALSE(matches_expr(req("GPU", "DoesNotExist"), labels({{"GPU", ""}})));
}

TEST(NodeSelectorTerm, GtAndLtCompareIntegers) {
  // kube-scheduler's "Gt operator that matches": 0206 > 0204 as integers.
  EXPECT_TRUE(
      matches_expr(req("kernel-version", "Gt", {"0204"}), labels({{"kernel-version", "0206"}})));
  EXPECT_FALSE(
      matches_expr(req("kernel-version", "Gt", {"0206"}), labels({{"kernel-version", "0206"}})));
  EXPECT_TRUE(
      matches_expr(req("gen", "Gt", {"9"}), labels({{"gen", "10"}})));  // not a string comparison
  EXPECT_TRUE(matches_expr(req("gen", "Lt", {"10"}), labels({{"gen", "9"}})));
  EXPECT_FALSE(matches_expr(req("gen", "Lt", {"9"}), labels({{"gen", "9"}})));
  EXPECT_TRUE(matches_expr(req("gen", "Gt", {"0"}), labels({{"gen", "9223372036854775807"}})));
  EXPECT_FALSE(
      matches_expr(req("gen", "Gt", {"0"}), labels({})));  // a missing label never compares
}

TEST(NodeSelectorTerm, NonIntegerNodeValuesDoNotMatch) {
  for (const char* value : {"abc", "1.5", "", "1e3", "0x10", "9223372036854775808", " 5", "5 "}) {
    EXPECT_FALSE(matches_expr(req("gen", "Gt", {"0"}), labels({{"gen", value}}))) << value;
    EXPECT_FALSE(matches_expr(req("gen", "Lt", {"100"}), labels({{"gen", value}}))) << value;
  }
}

TEST(NodeSelectorTerm, InvalidRequirementsMatchNothing) {
  Labels l = labels({{"gen", "5"}, {"foo", "bar"}});
  // labels.NewRequirement rejects these; the term then selects no node.
  EXPECT_FALSE(matches_expr(req("gen", "Gt", {"abc"}), l));
  EXPECT_FALSE(matches_expr(req("gen", "Gt", {"1", "2"}), l));
  EXPECT_FALSE(matches_expr(req("gen", "Gt", {}), l));
  EXPECT_FALSE(matches_expr(req("gen", "Lt", {"1.5"}), l));
  EXPECT_FALSE(matches_expr(req("foo", "In", {}), l));
  EXPECT_FALSE(matches_expr(req("foo", "NotIn", {}), l));
  EXPECT_FALSE(matches_expr(req("foo", "Exists", {"bar"}), l));
  EXPECT_FALSE(matches_expr(req("nope", "DoesNotExist", {"x"}), l));
  EXPECT_FALSE(matches_expr(req("foo", "Equals", {"bar"}), l));
  EXPECT_FALSE(matches_expr(req("foo", "", {"bar"}), l));
  EXPECT_FALSE(matches_expr(req("", "Exists"), l));
  // One bad requirement spoils the whole term.
  EXPECT_FALSE(matches(term({req("foo", "In", {"bar"}), req("gen", "Gt", {"x"})}), node("n", l)));
}

TEST(NodeSelectorTerm, InvalidLabelValuesMatchNothing) {
  Labels l = labels({{"foo", "bar"}, {"gen", "5"}});
  // kube-scheduler's "Pod with an invalid value in Affinity term won't be
  // scheduled onto the node": NotIn would otherwise match.
  EXPECT_FALSE(matches_expr(req("foo", "NotIn", {"invalid value: ___@#$%^"}), l));
  EXPECT_FALSE(matches_expr(req("foo", "In", {"bar", "-bar"}), l));
  EXPECT_FALSE(matches_expr(req("foo", "In", {"bar", std::string(64, 'a')}), l));
  EXPECT_TRUE(matches_expr(req("foo", "NotIn", {std::string(63, 'a')}), l));
  EXPECT_TRUE(matches_expr(req("foo", "NotIn", {"a-b_c.d", "A1"}), l));
  EXPECT_TRUE(
      matches_expr(req("foo", "NotIn", {""}), l));  // the empty value is a valid label value
  // ParseInt accepts a sign, but "-1" and "+1" are not valid label values.
  EXPECT_FALSE(matches_expr(req("gen", "Gt", {"-1"}), l));
  EXPECT_FALSE(matches_expr(req("gen", "Gt", {"+1"}), l));
  EXPECT_TRUE(matches_expr(req("gen", "Gt", {"1"}), l));
}

TEST(NodeSelectorTerm, InvalidLabelKeysMatchNothing) {
  Labels l = labels({{"foo", "bar"}});
  EXPECT_FALSE(matches_expr(req("bad key", "DoesNotExist"), l));
  EXPECT_FALSE(matches_expr(req("a/b/c", "DoesNotExist"), l));
  EXPECT_FALSE(matches_expr(req("/name", "DoesNotExist"), l));
  EXPECT_FALSE(
      matches_expr(req("Example.com/name", "DoesNotExist"), l));  // prefixes are lower case
  EXPECT_FALSE(matches_expr(req("example.com/", "DoesNotExist"), l));
  EXPECT_FALSE(matches_expr(req(std::string(64, 'k'), "DoesNotExist"), l));
  EXPECT_TRUE(matches_expr(req("example.com/Name_1.x", "DoesNotExist"), l));
  EXPECT_TRUE(matches_expr(req("kubernetes.io/hostname", "DoesNotExist"), l));
  EXPECT_TRUE(matches_expr(req(std::string(63, 'k'), "DoesNotExist"), l));
}

TEST(NodeSelectorTerm, ExpressionsAreAnded) {
  Node n = node("n", labels({{"GPU", "NVIDIA-GRID-K1"}}));
  EXPECT_TRUE(matches(term({req("GPU", "Exists"), req("GPU", "NotIn", {"AMD", "INTER"})}), n));
  EXPECT_FALSE(matches(term({req("GPU", "Exists"), req("GPU", "In", {"AMD", "INTER"})}), n));
}

TEST(NodeSelectorTerm, EmptyTermMatchesNothing) {
  EXPECT_FALSE(matches(term({}), node("n", labels({{"a", "b"}}))));
  EXPECT_TRUE(term({}).empty());
}

TEST(NodeSelectorTerm, MatchFieldsOnMetadataName) {
  Node a = node("node-a", {});
  Node b = node("node-b", {});
  NodeSelectorTerm in = term({}, {req("metadata.name", "In", {"node-a"})});
  EXPECT_TRUE(matches(in, a));
  EXPECT_FALSE(matches(in, b));
  NodeSelectorTerm not_in = term({}, {req("metadata.name", "NotIn", {"node-a"})});
  EXPECT_FALSE(matches(not_in, a));
  EXPECT_TRUE(matches(not_in, b));
  // Fields and expressions are ANDed.
  NodeSelectorTerm both =
      term({req("zone", "In", {"z1"})}, {req("metadata.name", "In", {"node-a"})});
  EXPECT_FALSE(matches(both, a));
  EXPECT_TRUE(matches(both, node("node-a", labels({{"zone", "z1"}}))));
  // A field selector needs exactly one value and In or NotIn.
  EXPECT_FALSE(matches(term({}, {req("metadata.name", "In", {"node-a", "node-b"})}), a));
  EXPECT_FALSE(matches(term({}, {req("metadata.name", "Exists")}), a));
}

TEST(RequiredNodeAffinity, NodeSelector) {
  Pod p;
  p.node_selector = labels({{"foo", "bar"}});
  RequiredNodeAffinity r(p);
  EXPECT_FALSE(r.trivial());
  EXPECT_FALSE(r.matches(node("n", {})));  // "missing labels"
  EXPECT_TRUE(r.matches(node("n", labels({{"foo", "bar"}, {"x", "y"}}))));
  EXPECT_FALSE(r.matches(node("n", labels({{"foo", "baz"}}))));
}

TEST(RequiredNodeAffinity, NoAffinityMatchesEverything) {
  Pod p;
  RequiredNodeAffinity r(p);
  EXPECT_TRUE(r.trivial());
  EXPECT_TRUE(r.matches(node("n", {})));
}

TEST(RequiredNodeAffinity, TermsAreOred) {
  RequiredNodeAffinity r(pod_with_required({term({req("foo", "In", {"bar", "value2"})}),
                                            term({req("diffkey", "In", {"wrong", "value2"})})}));
  EXPECT_TRUE(r.matches(node("n", labels({{"foo", "bar"}}))));
  EXPECT_TRUE(r.matches(node("n", labels({{"diffkey", "value2"}}))));
  EXPECT_FALSE(r.matches(node("n", labels({{"foo", "x"}}))));
}

TEST(RequiredNodeAffinity, EmptyTermsSelectNothing) {
  // A nil or empty term list, or only empty terms: no node matches.
  RequiredNodeAffinity none(pod_with_required({}));
  EXPECT_FALSE(none.trivial());
  EXPECT_FALSE(none.matches(node("n", labels({{"foo", "bar"}}))));
  RequiredNodeAffinity empty_term(pod_with_required({term({})}));
  EXPECT_FALSE(empty_term.matches(node("n", labels({{"foo", "bar"}}))));
  // An empty term next to a real one is dropped; the real one decides.
  RequiredNodeAffinity mixed(pod_with_required({term({}), term({req("foo", "Exists")})}));
  EXPECT_TRUE(mixed.matches(node("n", labels({{"foo", "bar"}}))));
}

TEST(RequiredNodeAffinity, AffinityAndNodeSelectorBothApply) {
  Pod p = pod_with_required({term({req("foo", "Exists")})});
  p.node_selector = labels({{"foo", "bar"}});
  RequiredNodeAffinity r(p);
  EXPECT_TRUE(r.matches(node("n", labels({{"foo", "bar"}}))));
  EXPECT_FALSE(r.matches(node("n", labels({{"foo", "barrrrrr"}}))));
}

TEST(PreferredNodeAffinity, SumsTheWeightsOfMatchingTerms) {
  Pod p;
  p.node_affinity.preferred = {
      PreferredSchedulingTerm{2, term({req("foo", "In", {"bar"})})},
      PreferredSchedulingTerm{4, term({req("key", "In", {"value"})})},
      PreferredSchedulingTerm{5, term({req("foo", "In", {"bar"}), req("key", "In", {"value"}),
                                       req("az", "In", {"az1"})})},
      PreferredSchedulingTerm{0, term({req("foo", "Exists")})},  // weight 0 is ignored
      PreferredSchedulingTerm{9, term({})},                      // empty preference is ignored
  };
  PreferredNodeAffinity pref(p);
  EXPECT_FALSE(pref.empty());
  EXPECT_EQ(pref.score(node("n", labels({{"foo", "bar"}}))), 2);
  EXPECT_EQ(pref.score(node("n", labels({{"key", "value"}}))), 4);
  EXPECT_EQ(pref.score(node("n", labels({{"az", "az1"}, {"foo", "bar"}, {"key", "value"}}))), 11);
  EXPECT_EQ(pref.score(node("n", {})), 0);
}

TEST(PreferredNodeAffinity, EmptyWhenNothingCounts) {
  Pod p;
  EXPECT_TRUE(PreferredNodeAffinity(p).empty());
  p.node_affinity.preferred = {PreferredSchedulingTerm{0, term({req("a", "Exists")})},
                               PreferredSchedulingTerm{3, term({})}};
  EXPECT_TRUE(PreferredNodeAffinity(p).empty());
}

TEST(NodeNameRestriction, NoRequiredAffinityAllowsAll) {
  Pod p;
  auto r = node_name_restriction(p);
  EXPECT_FALSE(r.conflict);
  EXPECT_FALSE(r.names.has_value());
  r = node_name_restriction(pod_with_required({}));
  EXPECT_FALSE(r.conflict);
  EXPECT_FALSE(r.names.has_value());
}

TEST(NodeNameRestriction, SingleTerm) {
  auto r =
      node_name_restriction(pod_with_required({term({}, {req("metadata.name", "In", {"a"})})}));
  EXPECT_FALSE(r.conflict);
  ASSERT_TRUE(r.names.has_value());
  EXPECT_EQ(*r.names, (std::set<std::string>{"a"}));
}

TEST(NodeNameRestriction, TermsAreUnioned) {
  auto r =
      node_name_restriction(pod_with_required({term({}, {req("metadata.name", "In", {"a"})}),
                                               term({}, {req("metadata.name", "In", {"b"})})}));
  EXPECT_FALSE(r.conflict);
  ASSERT_TRUE(r.names.has_value());
  EXPECT_EQ(*r.names, (std::set<std::string>{"a", "b"}));
}

TEST(NodeNameRestriction, RequirementsInATermAreIntersected) {
  auto r = node_name_restriction(
      pod_with_required({term({}, {req("metadata.name", "In", {"a", "b", "c"}),
                                   req("metadata.name", "In", {"b", "c", "d"})})}));
  EXPECT_FALSE(r.conflict);
  ASSERT_TRUE(r.names.has_value());
  EXPECT_EQ(*r.names, (std::set<std::string>{"b", "c"}));
}

TEST(NodeNameRestriction, ATermWithoutNameFieldsAllowsAll) {
  auto r = node_name_restriction(pod_with_required(
      {term({}, {req("metadata.name", "In", {"a"})}), term({req("zone", "Exists")})}));
  EXPECT_FALSE(r.conflict);
  EXPECT_FALSE(r.names.has_value());
  // NotIn does not restrict the set either.
  r = node_name_restriction(pod_with_required({term({}, {req("metadata.name", "NotIn", {"a"})})}));
  EXPECT_FALSE(r.names.has_value());
}

TEST(NodeNameRestriction, ConflictInTheOnlyTerm) {
  auto r = node_name_restriction(pod_with_required(
      {term({}, {req("metadata.name", "In", {"a"}), req("metadata.name", "In", {"b"})})}));
  EXPECT_TRUE(r.conflict);
  EXPECT_STREQ(kNodeAffinityConflictReason, "pod affinity terms conflict");
}

TEST(NodeNameRestriction, ConflictOnlyWhenEveryTermConflicts) {
  // Current kube-scheduler unions the terms' sets and reports a conflict only
  // when the union is empty: one conflicting term among others restricts to
  // the others' names.
  auto r = node_name_restriction(pod_with_required(
      {term({}, {req("metadata.name", "In", {"a"}), req("metadata.name", "In", {"b"})}),
       term({}, {req("metadata.name", "In", {"c"})})}));
  EXPECT_FALSE(r.conflict);
  ASSERT_TRUE(r.names.has_value());
  EXPECT_EQ(*r.names, (std::set<std::string>{"c"}));

  r = node_name_restriction(pod_with_required(
      {term({}, {req("metadata.name", "In", {"a"}), req("metadata.name", "In", {"b"})}),
       term({}, {req("metadata.name", "In", {"c"}), req("metadata.name", "In", {"d"})})}));
  EXPECT_TRUE(r.conflict);
}

TEST(NodeAffinityReason, Text) {
  EXPECT_STREQ(kNodeAffinityReason, "node(s) didn't match Pod's node affinity/selector");
}

}  // namespace
}  // namespace tightpack::plugins
