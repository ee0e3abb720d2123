// What the in-cluster scheduler's watch cache holds at 5,000 nodes and
// 150,000 pods, what building the engine's cluster from it costs (a relist
// rebuilds it), and what a node added, removed or changed in place costs
// instead (the watch event and the next decision's cluster()), and what the
// /snapshot answer every sidebar downloads weighs.
//
//   build/release/bench/tightpack_cache_memory [NODES] [PODS_PER_NODE]
//   build/release/bench/tightpack_cache_memory --list FILE
//
// Decodes a synthetic cluster (or a `kind: List` of Nodes and Pods such as
// bench/hub_pods.py writes from the real clients' pods) with core's decoders
// as the watch handlers do, keeps it in a ClusterCache, and reports the heap
// in use (glibc's mallinfo2) before and after, per pod.
#include <malloc.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "daemon/cache.hpp"
#include "daemon/cache_scenario.hpp"
#include "daemon/snapshot.hpp"
#include "synthetic_cluster.hpp"
#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/built_in_profiles.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/packing/moves.hpp"
#include "tightpack/pools/pools.hpp"

using namespace tightpack;

namespace {

// Bytes allocated, mmap'd blocks (a large vector's buffer) included.
size_t heap_in_use() {
  malloc_trim(0);
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// A field of /proc/self/status ("VmRSS:", "VmHWM:"), in bytes.
size_t status_bytes(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0)
      return std::strtoull(line.c_str() + std::strlen(field), nullptr, 10) * 1024;
  }
  return 0;
}
size_t rss() {
  return status_bytes("VmRSS:");
}
// The peak resident memory since the last reset_peak_rss().
void reset_peak_rss() {
  std::ofstream("/proc/self/clear_refs") << "5";
}
size_t peak_rss() {
  return status_bytes("VmHWM:");
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// The List's text: the file's, or the synthetic cluster's.
std::string list_text(bool from_file, const char* path, size_t nodes, size_t per_node) {
  if (!from_file) return bench::snapshot_json(bench::make_cluster(nodes, per_node));
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream all;
  all << in.rdbuf();
  return std::move(all).str();
}

// As the pod watch's relist reads them: each pod slimmed and interned as it
// comes (event_handlers.cpp), against what `interner` holds already.
bool read_list(std::string text, daemon::PodInterner& interner,
               std::vector<autoscaler::CaNode>& ca_nodes, std::vector<autoscaler::CaPod>& ca_pods) {
  const boost::json::value doc = boost::json::parse(text);
  text.clear();
  text.shrink_to_fit();
  for (const auto& item : doc.at("items").as_array()) {
    const JsonPath path("item");
    if (item.at("kind").as_string() == "Node") {
      ca_nodes.push_back(std::move(autoscaler::decode_ca_node(item, path).value()));
    } else {
      autoscaler::CaPod& p = ca_pods.emplace_back();
      if (!autoscaler::decode_ca_pod_into(item, path, p)) return false;
      daemon::slim(p, p.pod.node_name.empty());
      interner.intern(p.pod);
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const bool from_file = argc > 2 && std::string(argv[1]) == "--list";
  size_t nodes = !from_file && argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 5000;
  const size_t per_node = !from_file && argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 30;
  std::vector<autoscaler::CaNode> ca_nodes;
  std::vector<autoscaler::CaPod> ca_pods;
  size_t json_bytes = 0;
  const char* path = from_file ? argv[2] : "";
  const size_t before = heap_in_use();
  {
    std::string text = list_text(from_file, path, nodes, per_node);
    if (text.empty()) {
      std::fprintf(stderr, "tightpack_cache_memory: cannot read %s\n", path);
      return 2;
    }
    json_bytes = text.size();
    daemon::PodInterner interner;
    if (!read_list(std::move(text), interner, ca_nodes, ca_pods)) return 1;
  }
  nodes = ca_nodes.size();
  const size_t pods = ca_pods.size();
  // What a relist holds besides the cache it replaces: the pods as read.
  const size_t decoded = heap_in_use();
  std::printf("sizeof: Pod %zu, PodRecord %zu, Container %zu, Toleration %zu bytes\n", sizeof(Pod),
              sizeof(daemon::PodRecord), sizeof(Container), sizeof(Toleration));
  daemon::ClusterCache cache;
  {
    auto n = std::move(ca_nodes);
    auto p = std::move(ca_pods);
    cache.replace_nodes(std::move(n));
    cache.replace_pods(std::move(p));
  }
  const size_t objects = heap_in_use();
  auto t = std::chrono::steady_clock::now();
  cache.cluster();
  const double build_ms = ms_since(t);
  const size_t with_cluster = heap_in_use();
  // A relist beside the cache and its cluster: the same pods read again, as
  // the watch does, interned against the cache's parts (list_begin's copy).
  size_t relisted = 0;
  {
    std::vector<autoscaler::CaNode> again_nodes;
    std::vector<autoscaler::CaPod> again_pods;
    daemon::PodInterner interner = cache.interner();
    if (!read_list(list_text(from_file, path, nodes, per_node), interner, again_nodes,
                   again_pods)) {
      return 1;
    }
    relisted = heap_in_use() - with_cluster;
  }
  // What every sidebar downloads: the redacted snapshot, as /snapshot serializes it.
  const size_t rss_before_snapshot = rss();
  reset_peak_rss();
  t = std::chrono::steady_clock::now();
  std::string snapshot;
  double drawn_ms = 0;
  // A first draw warms the allocator (malloc_trim gave its pages back above),
  // as the daemon's earlier answers have.
  std::optional<daemon::RedactedSnapshot>(std::in_place, cache, boost::json::object(), std::nullopt,
                                          daemon::Published{}, daemon::PseudonymKey{0, 1})
      .reset();
  t = std::chrono::steady_clock::now();
  {
    const daemon::RedactedSnapshot drawn(cache, boost::json::object(), std::nullopt,
                                         daemon::Published{}, daemon::PseudonymKey{1, 2});
    drawn_ms = ms_since(t);
    snapshot = drawn.text(daemon::PodForm::kGrouped);
  }
  const double snapshot_ms = ms_since(t);
  const size_t snapshot_peak = peak_rss() - rss_before_snapshot;
  size_t expanded_bytes = 0;
  reset_peak_rss();
  const size_t rss_before_expanded = rss();
  t = std::chrono::steady_clock::now();
  {
    const daemon::RedactedSnapshot drawn(cache, boost::json::object(), std::nullopt,
                                         daemon::Published{}, daemon::PseudonymKey{1, 2});
    expanded_bytes = drawn.text(daemon::PodForm::kExpanded).size();
  }
  const double expanded_ms = ms_since(t);
  const size_t expanded_peak = peak_rss() - rss_before_expanded;
  // A mover's plan (--move-dask-workers) with every Dask worker opted in:
  // the copy under the cache's lock, then, without it, the pools resolved
  // (inferred from node labels) and core's planner.
  reset_peak_rss();
  const size_t rss_before_plan = rss();
  t = std::chrono::steady_clock::now();
  pools::ClusterSnapshot copied = daemon::cache_snapshot(cache);
  const double copy_ms = ms_since(t);
  t = std::chrono::steady_clock::now();
  auto pools_config = pools::decode_pools_config(
      boost::json::parse(R"({"apiVersion": "tightpack.io/v1alpha1", "kind": "NodePools"})"),
      JsonPath());
  auto profile = built_in_profile("tightpack", JsonPath());
  if (!pools_config || !profile) return 1;
  const autoscaler::AutoscaleScenario scenario =
      daemon::cache_scenario(std::move(copied), *pools_config);
  const double scenario_ms = ms_since(t);
  packing::MoveRules rules;
  rules.workload_of = [](const autoscaler::CaPod& p) {
    for (const char* key : {"dask.org/cluster-name", "gateway.dask.org/cluster"}) {
      if (const std::string* v = find_label(p.pod.labels, key)) return p.pod.ns + "/" + *v;
    }
    return p.pod.key();
  };
  t = std::chrono::steady_clock::now();
  auto planned = packing::plan_scenario_moves(
      scenario, *profile,
      [](const autoscaler::CaPod& p) { return packing::movable_dask_worker(p, true); }, rules);
  const double plan_ms = ms_since(t);
  if (!planned) {
    std::fprintf(stderr, "plan: %s\n", std::string(planned.error().what()).c_str());
    return 1;
  }
  const size_t plan_peak = peak_rss() - rss_before_plan;
  // Node events, each timed from the watch event to the next decision's
  // cluster(), the median of `rounds`.
  const int rounds = 41;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const autoscaler::CaNode model = cache.nodes().begin()->second;
  std::vector<double> changed_ms, added_ms, removed_ms;
  for (int i = 0; i < rounds; ++i) {
    autoscaler::CaNode changed = cache.nodes().begin()->second;  // relabelled, then back
    if (i % 2 == 0) {
      changed.node.labels.emplace_back("zz.tightpack.io/changed", "yes");
    } else {
      changed.node.labels.pop_back();
    }
    t = std::chrono::steady_clock::now();
    cache.upsert_node(changed);
    cache.cluster();
    changed_ms.push_back(ms_since(t));
    autoscaler::CaNode added = model;  // the autoscaler adds one of the pool's nodes
    added.node.name = "zz-added-" + std::to_string(i);
    for (auto& [key, value] : added.node.labels) {
      if (key == "kubernetes.io/hostname") value = added.node.name;
    }
    t = std::chrono::steady_clock::now();
    cache.upsert_node(added);
    cache.cluster();
    added_ms.push_back(ms_since(t));
  }
  for (int i = 0; i < rounds; ++i) {
    // A node with its pods (30 bound pods stay, holding it, until deleted).
    const std::string name = std::next(cache.nodes().begin(), 1 + i * 7)->first;
    t = std::chrono::steady_clock::now();
    cache.remove_node(name);
    cache.cluster();
    removed_ms.push_back(ms_since(t));
  }
  const int64_t in_place = cache.node_updates() + cache.node_adds() + cache.node_removes();
  // A relist: the whole cluster again.
  {
    std::vector<autoscaler::CaNode> all;
    for (const auto& [name, n] : cache.nodes()) all.push_back(n);
    cache.replace_nodes(std::move(all));
  }
  t = std::chrono::steady_clock::now();
  cache.cluster();
  const double rebuild_ms = ms_since(t);
  std::printf("%zu nodes, %zu pods (%.1f MB as a List%s)\n", nodes, pods, json_bytes / 1e6,
              from_file ? "" : " with the fields scheduling reads");
  std::printf(
      "a first list: %.1f MiB (%.0f bytes per pod, nodes included); a relist's beside the "
      "cache: %.1f MiB (%.0f); the cache: ",
      (decoded - before) / 1048576.0, double(decoded - before) / double(pods), relisted / 1048576.0,
      double(relisted) / double(pods));
  std::printf("%.1f MiB (%.0f bytes per pod)\n", (objects - before) / 1048576.0,
              double(objects - before) / double(pods));
  std::printf("engine cluster: %.1f MiB more; total %.1f MiB\n",
              (with_cluster - objects) / 1048576.0, (with_cluster - before) / 1048576.0);
  std::printf(
      "/snapshot?pods=grouped: %.1f MB (%.0f bytes per pod), %.0f ms (%.0f under the cache's "
      "lock), %.0f MiB more at its peak\n",
      snapshot.size() / 1e6, double(snapshot.size()) / double(pods), snapshot_ms, drawn_ms,
      snapshot_peak / 1048576.0);
  std::printf(
      "/snapshot (every pod a Pod): %.1f MB (%.0f bytes per pod), %.0f ms, %.0f MiB more "
      "at its peak\n",
      expanded_bytes / 1e6, double(expanded_bytes) / double(pods), expanded_ms,
      expanded_peak / 1048576.0);
  std::printf("cluster build %.0f ms, rebuild after a relist %.0f ms\n", build_ms, rebuild_ms);
  std::printf(
      "a mover's plan, every Dask worker movable: %zu moves; the copy under the cache's lock "
      "%.0f ms, the scenario %.0f ms, the plan %.0f ms, %.0f MiB more at its peak\n",
      planned->size(), copy_ms, scenario_ms, plan_ms, plan_peak / 1048576.0);
  std::printf(
      "in place (median of %d, %lld of %lld node events without a rebuild): node changed %.3f ms, "
      "added %.3f ms, removed with its pods %.3f ms\n",
      rounds, static_cast<long long>(in_place), static_cast<long long>(3 * rounds),
      median(changed_ms), median(added_ms), median(removed_ms));
  return 0;
}
