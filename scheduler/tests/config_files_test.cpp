// The configuration files shipped in config/ decode to the profiles the engine
// has built in (the browser build cannot read files, so it uses the built-ins).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "cli/yaml_json.hpp"
#include "tightpack/built_in_profiles.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/profile.hpp"

namespace tightpack {
namespace {

std::string read_file(const std::string& relative) {
  std::ifstream f(std::string(TIGHTPACK_SOURCE_DIR) + "/" + relative);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

Profile from_yaml(const std::string& relative) {
  auto doc = cli::parse_yaml(read_file(relative));
  EXPECT_TRUE(doc.ok()) << (doc.ok() ? "" : doc.error().what());
  auto config = decode_scheduler_configuration(*doc, JsonPath());
  EXPECT_TRUE(config.ok()) << (config.ok() ? "" : config.error().what());
  return config->profiles.front();
}

Profile from_builtin(const char* name) {
  auto p = built_in_profile(name);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().what());
  return p.ok() ? *p : Profile{};
}

void expect_same(const Profile& a, const Profile& b) {
  EXPECT_EQ(boost::json::serialize(encode_profile(a)), boost::json::serialize(encode_profile(b)));
}

TEST(ConfigFiles, DefaultSchedulerMatchesBuiltIn) {
  Profile p = from_yaml("config/default-scheduler.yaml");
  expect_same(p, from_builtin("default"));
  expect_same(p, default_profile());
  EXPECT_EQ(p.score_weight(Plugin::TaintToleration), 3);
  EXPECT_EQ(p.score_weight(Plugin::NodeAffinity), 2);
  EXPECT_EQ(p.score_weight(Plugin::NodeResourcesFit), 1);
  EXPECT_EQ(p.score_weight(Plugin::NodeResourcesBalancedAllocation), 1);
  EXPECT_EQ(p.score_weight(Plugin::ImageLocality), 1);
  EXPECT_EQ(p.fit.strategy, ScoringStrategy::LeastAllocated);
}

TEST(ConfigFiles, Z2jhUserSchedulerMatchesBuiltIn) {
  Profile p = from_yaml("config/z2jh-user-scheduler.yaml");
  expect_same(p, from_builtin("most-allocated"));
  EXPECT_EQ(p.scheduler_name, "jupyterhub-user-scheduler");
  EXPECT_EQ(p.score_weight(Plugin::NodeAffinity), 14631);
  EXPECT_EQ(p.score_weight(Plugin::InterPodAffinity), 1331);
  EXPECT_EQ(p.score_weight(Plugin::NodeResourcesFit), 121);
  EXPECT_EQ(p.score_weight(Plugin::ImageLocality), 11);
  EXPECT_EQ(p.score_weight(Plugin::TaintToleration), 3);
  EXPECT_EQ(p.score_weight(Plugin::NodeResourcesBalancedAllocation), 0);
  EXPECT_EQ(p.fit.strategy, ScoringStrategy::MostAllocated);
}

TEST(ConfigFiles, TightpackMatchesBuiltInAndAddsCohortToZ2jh) {
  Profile p = from_yaml("config/tightpack.yaml");
  expect_same(p, from_builtin("tightpack"));
  EXPECT_EQ(p.scheduler_name, "tightpack");
  EXPECT_EQ(p.score_weight(Plugin::TightpackCohort), 1210);
  EXPECT_EQ(p.score_weight(Plugin::NodeResourcesFit), 121);
  EXPECT_EQ(p.fit.strategy, ScoringStrategy::MostAllocated);
  // Everything else is the z2jh profile's.
  Profile z = from_builtin("most-allocated");
  for (Plugin other : {Plugin::NodeAffinity, Plugin::InterPodAffinity, Plugin::ImageLocality,
                       Plugin::TaintToleration, Plugin::NodeResourcesBalancedAllocation}) {
    EXPECT_EQ(p.score_weight(other), z.score_weight(other)) << plugin_name(other);
  }
}

TEST(Yaml, ScalarsFollowTheCoreSchemaAndQuantitiesKeepTheirSpelling) {
  auto doc = cli::parse_yaml("a: 1\nb: '1'\nc: 0.5\nd: true\ne: ~\nf: 1.5Gi\ng: -3\n");
  ASSERT_TRUE(doc.ok());
  const auto& o = doc->as_object();
  EXPECT_TRUE(o.at("a").is_int64());
  EXPECT_TRUE(o.at("b").is_string());
  EXPECT_EQ(o.at("c").as_string(), "0.5");
  EXPECT_TRUE(o.at("d").as_bool());
  EXPECT_TRUE(o.at("e").is_null());
  EXPECT_EQ(o.at("f").as_string(), "1.5Gi");
  EXPECT_EQ(o.at("g").as_int64(), -3);
}

TEST(Yaml, SeveralDocumentsBecomeAList) {
  auto doc =
      cli::parse_yaml("kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: b}\n");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc->as_object().at("kind").as_string(), "List");
  EXPECT_EQ(doc->as_object().at("items").as_array().size(), 2u);
}

// yaml-cpp 0.7's LoadAll loops for ever on these (jbeder/yaml-cpp#1040);
// fuzz_daemon_inputs found the first.
TEST(Yaml, StreamsThatHangYamlCppLoadAllAreAnswered) {
  for (const char* text : {",", ",\"a\"",
                           ",\"apiVers\x9aon\"\x04"
                           "0h2",
                           "a: 1\n---\n,\n"}) {
    auto doc = cli::parse_yaml(text);
    (void)doc;  // answered at all: an error, or what yaml-cpp makes of it
  }
  SUCCEED();
}

TEST(Yaml, DocumentMarkersSplitTheStream) {
  auto one = cli::parse_yaml("# a comment\n%YAML 1.2\n---\nkind: Node\n...\n# after the end\n");
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one->as_object().at("kind").as_string(), "Node");
  auto inline_doc = cli::parse_yaml("--- {kind: Pod}\n--- {kind: Node}\n");
  ASSERT_TRUE(inline_doc.ok()) << inline_doc.error().message;
  EXPECT_EQ(inline_doc->as_object().at("items").as_array().size(), 2u);
  // A block scalar's lines are content, however they look, unless they are a marker.
  auto block = cli::parse_yaml("a: |\n  --- not a marker\n  x\n");
  ASSERT_TRUE(block.ok()) << block.error().message;
  EXPECT_EQ(block->as_object().at("a").as_string(), "--- not a marker\nx\n");
  // Errors in a later document name the line of the whole stream.
  auto broken = cli::parse_yaml("a: 1\n---\nb: [1, 2\nc: d\n");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("invalid YAML at line 4"), std::string::npos)
      << broken.error().message;
}

TEST(Yaml, BrokenYamlNamesLineAndColumn) {
  auto doc = cli::parse_yaml("a: [1, 2\nb: c\n");
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.error().message.find("invalid YAML at line"), std::string::npos)
      << doc.error().message;
}

}  // namespace
}  // namespace tightpack
