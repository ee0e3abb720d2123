// same_bound_pod() against build() itself: every field of a pod changed or
// left out, one at a time, and the two BoundPods compared. A part of the
// BoundPod that build() comes to read and same_bound_pod() does not fails
// here.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <functional>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "tightpack/cluster.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/scheduling_fields.hpp"

namespace tightpack {
namespace {
namespace json = boost::json;

// The document once for each member left out and each scalar changed.
void each_change(const json::value& doc, const std::function<void(const json::value&)>& visit) {
  std::function<void(json::value&)> walk;
  json::value copy = doc;
  walk = [&](json::value& v) {
    if (v.is_object()) {
      json::object& o = v.get_object();
      std::vector<std::string> keys;
      for (const auto& kv : o) keys.emplace_back(kv.key());
      for (const std::string& k : keys) {
        json::value kept = o[k];
        o.erase(k);
        visit(copy);
        o[k] = kept;
        walk(o[k]);
      }
    } else if (v.is_array()) {
      for (json::value& e : v.get_array()) walk(e);
    } else {
      const json::value kept = v;
      if (v.is_string()) v = std::string(v.get_string()) + "9";
      if (v.is_int64()) v = v.get_int64() + 1;
      if (v.is_bool()) v = !v.get_bool();
      visit(copy);
      v = kept;
    }
  };
  walk(copy);
}

const BoundPod& bound_of(const Result<Cluster>& c) {
  return c->pods_on(0).front();
}

TEST(SameBoundPod, SaysSameOnlyWhenBuildMakesTheSameBoundPod) {
  json::value base = probe_object("Pod");
  base.as_object()["spec"].as_object()["volumes"].as_array().push_back(
      json::parse(R"({"name": "d", "gcePersistentDisk": {"pdName": "disk"}})"));
  auto decode = [](const json::value& v) -> std::optional<Pod> {
    auto p = decode_pod(v, JsonPath("$"));
    if (!p) return std::nullopt;
    p->node_name = "n";
    return *p;
  };
  const std::optional<Pod> a = decode(base);
  ASSERT_TRUE(a);
  auto build = [](const Pod& p) {
    return Cluster::build({testing::make_node("n", 64000, 256 * testing::kGi)}, {p});
  };
  const auto ca = build(*a);
  ASSERT_TRUE(ca) << ca.error().what();
  int same = 0, other = 0;
  each_change(base, [&](const json::value& changed) {
    const std::optional<Pod> b = decode(changed);
    if (!b) return;
    const auto cb = build(*b);
    ASSERT_TRUE(cb) << cb.error().what();
    const BoundPod &x = bound_of(ca), &y = bound_of(cb);
    const bool built_alike = x.key == y.key && x.priority == y.priority && x.usage == y.usage &&
                             x.cohort == y.cohort && x.start == y.start && *x.meta == *y.meta &&
                             (x.storage ? y.storage && *x.storage == *y.storage : !y.storage) &&
                             (x.affinity ? y.affinity && *x.affinity == *y.affinity : !y.affinity);
    if (same_bound_pod(*a, *b)) {
      ++same;
      EXPECT_TRUE(built_alike) << "same_bound_pod misses a change build() reads: "
                               << json::serialize(changed);
    } else {
      ++other;
    }
  });
  EXPECT_GT(same, 20);  // annotations, tolerations, node affinity, spread, ...
  EXPECT_GT(other, 20);
}

}  // namespace
}  // namespace tightpack
