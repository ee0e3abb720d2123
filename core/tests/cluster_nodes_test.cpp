// Nodes changed, added and removed in place leave the cluster what a build
// from the same nodes and pods would be: every column, set, label index and
// count a plugin reads, compared by node name (an added node comes last in
// place and in name order in a build), and the decisions that read them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "decision_by_name.hpp"
#include "test_util.hpp"
#include "tightpack/affinity_terms.hpp"
#include "tightpack/cluster.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/plugins/cohort.hpp"
#include "tightpack/profile.hpp"

namespace tightpack {
namespace {

using testing::bound_pod;
using testing::decision_by_name;
using testing::kGi;
using testing::make_node;
using testing::resources;

const std::vector<std::string> kLabelKeys = {"pool", "zone", "kubernetes.io/hostname", "gpu"};

// Everything a plugin reads of a cluster, by node name.
std::map<std::string, std::string> fingerprint(const Cluster& c) {
  std::map<std::string, std::string> out;
  const StringPool& strings = c.strings();
  for (NodeIndex n = 0; n < c.size(); ++n) {
    std::string& f = out["node " + c.name(n)];
    for (const auto* column : {&c.alloc_cpu(), &c.alloc_memory(), &c.allowed_pods(), &c.req_cpu(),
                               &c.req_memory(), &c.nz_cpu(), &c.nz_memory(), &c.pod_count()}) {
      f += std::to_string((*column)[n]) + " ";
    }
    for (uint32_t s = 0; s < c.scalar_count(); ++s) {
      f += c.scalar_name(s) + "=" + std::to_string(c.alloc_scalar(s)[n]) + "/" +
           std::to_string(c.req_scalar(s)[n]) + (c.has_scalar(s, n) ? "+ " : "- ");
    }
    for (const Taint& t : c.taints_of_set(c.taint_set(n)))
      f += "taint " + t.key + "=" + t.value + ":" + t.effect + " ";
    std::vector<std::string> images;
    for (StrId id : c.images(n)) {
      images.push_back(strings.str(id) + "#" + std::to_string(c.image_state(id)->num_nodes) + "/" +
                       std::to_string(c.image_state(id)->size));
    }
    std::sort(images.begin(), images.end());
    for (const auto& i : images) f += "image " + i + " ";
    for (const auto& key : kLabelKeys) {
      const auto* column = c.label_column(key);
      f += key + "=" +
           (column ? ((*column)[n] == kNoStr ? "<none>" : strings.str((*column)[n]))
                   : "<no column>") +
           " ";
    }
    for (const auto& key : kLabelKeys) f += std::to_string(c.domains(key).of_node[n] >= 0) + " ";
    std::vector<std::string> pods, with_terms;
    for (const BoundPod& p : c.pods_on(n)) pods.push_back(p.key);
    for (uint32_t pos : c.affinity_positions(n)) with_terms.push_back(c.pods_on(n)[pos].key);
    std::sort(pods.begin(), pods.end());
    std::sort(with_terms.begin(), with_terms.end());
    for (const auto& p : pods) f += "pod " + p + " ";
    for (const auto& p : with_terms) f += "terms " + p + " ";
    f += "ports " + std::to_string(c.used_ports(n).size());
  }
  for (const auto& key : kLabelKeys) out["domains " + key] = std::to_string(c.domains(key).count);
  for (const char* value : {"worker", "notebook"}) {
    std::vector<std::string> where;
    for (const auto& p : c.pods_with_label("component", value))
      where.push_back(c.name(c.node_of(p)) + "/" + p.meta->ns);
    std::sort(where.begin(), where.end());
    for (const auto& w : where) out[std::string("label ") + value] += w + " ";
  }
  out["affinity pods"] = std::to_string(c.affinity_pods());
  std::string scalars;
  for (uint32_t s = 0; s < c.scalar_count(); ++s) scalars += c.scalar_name(s) + " ";
  out["scalars"] = scalars;
  return out;
}

PodAffinityTerm term(bool anti, bool required, const char* component, const char* topology_key) {
  PodAffinityTerm t;
  t.anti = anti;
  t.required = required;
  t.weight = required ? 0 : 10;
  t.label_selector = LabelSelector{{{"component", component}}, {}};
  t.topology_key = topology_key;
  return t;
}

class NodeChurn {
 public:
  explicit NodeChurn(uint32_t seed) : rng_(seed) {}

  Node random_node(const std::string& name) {
    Node n = make_node(name, 1000 * uniform(2, 8), kGi * uniform(4, 16), uniform(3, 30));
    n.labels = {{"kubernetes.io/hostname", name}};
    if (uniform(0, 3)) n.labels.emplace_back("pool", uniform(0, 1) ? "users" : "workers");
    if (uniform(0, 2)) n.labels.emplace_back("zone", "z" + std::to_string(uniform(1, 3)));
    std::sort(n.labels.begin(), n.labels.end());
    if (uniform(0, 3) == 0) n.taints.push_back(Taint{"dedicated", "worker", "NoSchedule"});
    n.unschedulable = uniform(0, 9) == 0;
    // One size per image: where nodes disagree, kube-scheduler's cache keeps
    // the size of the node it saw first, which is history, not the node list.
    const int image = uniform(0, 2);
    if (image) n.images.push_back(ContainerImage{{"dask:" + std::to_string(image)}, 500 + image});
    if (uniform(0, 4) == 0) set_resource(n.allocatable, "nvidia.com/gpu", uniform(1, 4));
    return n;
  }

  Pod random_pod(const std::string& node) {
    Pod p =
        bound_pod("p" + std::to_string(next_pod_++), node,
                  resources({{"cpu", 100 * uniform(1, 8)}, {"memory", kGi / 4 * uniform(1, 8)}}));
    p.ns = uniform(0, 1) ? "hub" : "dask";
    p.labels = {{"component", uniform(0, 1) ? "worker" : "notebook"}};
    if (uniform(0, 3) == 0)
      p.pod_affinity_terms.push_back(term(true, false, "worker", "kubernetes.io/hostname"));
    if (uniform(0, 9) == 0) set_resource(p.containers.mut()[0].requests, "nvidia.com/gpu", 1);
    if (uniform(0, 9) == 0)
      p.containers.mut()[0].ports.push_back(ContainerPort{8786, 8786, "TCP", ""});
    return p;
  }

  // As the daemon's cache makes a bound pod it places.
  BoundPod bound(const Cluster& c, const Pod& p) {
    return BoundPod{p.key(),
                    p.priority,
                    c.usage_of(p),
                    plugins::cohort_of(p),
                    0,
                    std::make_shared<const PodMeta>(PodMeta{p.ns, p.labels, false}),
                    nullptr,
                    affinity_terms(p)};
  }

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

 private:
  std::mt19937 rng_;
  int next_pod_ = 0;
};

std::vector<Pod> probes() {
  Pod worker = testing::make_pod("probe-worker", {resources({{"cpu", 300}, {"memory", kGi}})});
  worker.ns = "dask";
  worker.labels = {{"component", "worker"}};
  worker.tolerations.push_back(Toleration{"dedicated", "Equal", "worker", "NoSchedule"});
  worker.topology_spread.push_back(TopologySpreadConstraint{
      1, "zone", "DoNotSchedule", LabelSelector{{{"component", "worker"}}, {}}});
  worker.node_affinity.preferred.push_back(
      PreferredSchedulingTerm{5, NodeSelectorTerm{{{"pool", "In", {"workers"}}}, {}}});
  worker.containers.mut()[0].image = "dask:1";
  Pod notebook =
      testing::make_pod("probe-notebook", {resources({{"cpu", 500}, {"memory", 2 * kGi}})});
  notebook.ns = "hub";
  notebook.pod_affinity_terms = {term(true, true, "notebook", "kubernetes.io/hostname"),
                                 term(false, false, "worker", "zone")};
  Pod gpu = testing::make_pod("probe-gpu", {resources({{"cpu", 100}, {"nvidia.com/gpu", 1}})});
  gpu.containers.mut()[0].ports.push_back(ContainerPort{8786, 8786, "TCP", ""});
  return {worker, notebook, gpu};
}

void churn(uint32_t seed, int& in_place, int& refused) {
  NodeChurn churn(seed);
  std::map<std::string, Node> nodes;  // what a build is made of
  std::map<std::string, Pod> pods;
  for (int i = 0; i < 5; ++i)
    nodes.emplace("n" + std::to_string(i), churn.random_node("n" + std::to_string(i)));
  auto all_nodes = [&] {
    std::vector<Node> v;
    for (const auto& [name, n] : nodes) v.push_back(n);
    return v;
  };
  auto all_pods = [&] {
    std::vector<Pod> v;
    for (const auto& [key, p] : pods) v.push_back(p);
    return v;
  };
  for (int i = 0; i < 20; ++i) {
    Pod p = churn.random_pod("n" + std::to_string(churn.uniform(0, 4)));
    pods.emplace(p.key(), p);
  }
  auto built = Cluster::build(all_nodes(), all_pods());
  ASSERT_TRUE(built) << built.error().what();
  Cluster c = std::move(*built);
  for (int step = 0; step < 600; ++step) {
    const std::string name = "n" + std::to_string(churn.uniform(0, 8));
    const NodeIndex at = c.find(name);
    const int op = churn.uniform(0, 5);
    bool done = true;
    if (op == 0 && at < c.size()) {
      done = c.remove_node(at);
      // Its pods stay, as in the daemon's cache until they are deleted: a
      // build leaves them out but counts the scalars they ask for.
      for (auto& [key, p] : pods) {
        if (done && p.node_name == name) p.node_name = "gone-" + std::to_string(step);
      }
      if (done) nodes.erase(name);
    } else if (op == 1 && at == c.size()) {
      Node n = churn.random_node(name);
      done = c.add_node(n);
      if (done) nodes.emplace(name, n);
    } else if (op == 2 && at < c.size()) {
      Node n = churn.random_node(name);
      done = c.update_node(at, n);
      if (done) nodes[name] = n;
    } else if (op >= 3 && at < c.size()) {
      Pod p = churn.random_pod(name);
      BoundPod bound = churn.bound(c, p);
      // A build would give it a scalar column: a pod placed in place never
      // asks for one no node offers (it would not have been bound there).
      if (!bound.usage.unknown_scalars.empty()) continue;
      c.place(at, std::move(bound));
      pods.emplace(p.key(), p);
      if (op == 5 && !c.pods_on(at).empty()) {  // and one leaves
        const size_t pos =
            static_cast<size_t>(churn.uniform(0, static_cast<int>(c.pods_on(at).size()) - 1));
        pods.erase(c.pods_on(at)[pos].key);
        c.remove(at, {pos});
      }
    } else {
      continue;
    }
    if (!done) {  // a build's scalar columns would differ: the daemon rebuilds
      ++refused;
      auto again = Cluster::build(all_nodes(), all_pods());
      ASSERT_TRUE(again) << again.error().what();
      c = std::move(*again);
      continue;
    }
    if (op <= 2) ++in_place;
    auto expected = Cluster::build(all_nodes(), all_pods());
    ASSERT_TRUE(expected) << expected.error().what();
    ASSERT_EQ(fingerprint(c), fingerprint(*expected))
        << "step " << step << " op " << op << " " << name;
    for (const Pod& probe : probes()) {
      ASSERT_EQ(decision_by_name(c, probe), decision_by_name(*expected, probe))
          << "step " << step << " " << probe.name;
    }
  }
}

TEST(ClusterNodes, InPlaceChangesEqualABuild) {
  int in_place = 0, refused = 0;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    churn(seed, in_place, refused);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(in_place, 2000);
  EXPECT_GT(refused, 0);
}

TEST(ClusterNodes, ARelabelThatDropsAKeyEverywhereDropsItsColumn) {
  Node a = make_node("a", 4000, 8 * kGi);
  a.labels = {{"zone", "z1"}};
  Cluster c = testing::build_cluster({a, make_node("b", 4000, 8 * kGi)});
  ASSERT_NE(c.label_column("zone"), nullptr);
  EXPECT_EQ(c.domains("zone").count, 1u);
  a.labels.clear();
  ASSERT_TRUE(c.update_node(0, a));
  EXPECT_EQ(c.label_column("zone"), nullptr);  // as in a build: no node has the key
  EXPECT_EQ(c.domains("zone").count, 0u);
}

TEST(ClusterNodes, RemovingANodeTakesItsPodsOutOfTheLabelIndex) {
  Pod w = bound_pod("w", "b", resources({{"cpu", 100}}));
  w.labels = {{"component", "worker"}};
  Pod v = bound_pod("v", "c", resources({{"cpu", 100}}));
  v.labels = {{"component", "worker"}};
  Cluster c = testing::build_cluster(
      {make_node("a", 4000, 8 * kGi), make_node("b", 4000, 8 * kGi), make_node("c", 4000, 8 * kGi)},
      {w, v});
  ASSERT_TRUE(c.remove_node(c.find("b")));
  ASSERT_EQ(c.size(), 2u);
  const auto& workers = c.pods_with_label("component", "worker");
  ASSERT_EQ(workers.size(), 1u);
  EXPECT_EQ(c.name(c.node_of(workers[0])), "c");  // moved down with its node
  EXPECT_EQ(c.find("c"), 1u);
  EXPECT_FALSE(c.add_node(make_node("c", 1000, kGi)));  // taken
  ASSERT_TRUE(c.add_node(make_node("b", 1000, kGi)));
  EXPECT_EQ(c.find("b"), 2u);
  EXPECT_TRUE(c.pods_on(2).empty());  // its pods went with it
}

}  // namespace
}  // namespace tightpack
