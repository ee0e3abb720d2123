// What the in-cluster scheduler's watch cache holds at 5,000 nodes and
// 150,000 pods, and what rebuilding the engine's cluster from it costs (a
// node's labels, taints or allocatable changing triggers one).
//
//   build/release/bench/tightpack_cache_memory [NODES] [PODS_PER_NODE]
//
// Decodes a synthetic cluster with core's decoders as the watch handlers do,
// keeps it in a ClusterCache, and reports the heap in use (glibc's
// mallinfo2) before and after, per pod.
#include <malloc.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "daemon/cache.hpp"
#include "synthetic_cluster.hpp"
#include "tightpack/autoscaler.hpp"
#include "tightpack/decode.hpp"

using namespace tightpack;

namespace {

size_t heap_in_use() {
  malloc_trim(0);
  return mallinfo2().uordblks;
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  const size_t nodes = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 5000;
  const size_t per_node = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 30;
  std::vector<autoscaler::CaNode> ca_nodes;
  std::vector<autoscaler::CaPod> ca_pods;
  size_t json_bytes = 0;
  {
    const std::string text = bench::snapshot_json(bench::make_cluster(nodes, per_node));
    json_bytes = text.size();
    const boost::json::value doc = boost::json::parse(text);
    for (const auto& item : doc.at("items").as_array()) {
      const JsonPath path("item");
      if (item.at("kind").as_string() == "Node") {
        ca_nodes.push_back(std::move(autoscaler::decode_ca_node(item, path).value()));
      } else {
        autoscaler::CaPod& p = ca_pods.emplace_back();
        if (!autoscaler::decode_ca_pod_into(item, path, p)) return 1;
      }
    }
  }
  const size_t pods = ca_pods.size();
  const size_t before = heap_in_use();
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
  // A node change: the next decision rebuilds.
  auto changed = cache.nodes().begin()->second;
  changed.node.labels.emplace_back("tightpack.io/changed", "yes");
  cache.upsert_node(changed);
  t = std::chrono::steady_clock::now();
  cache.cluster();
  const double rebuild_ms = ms_since(t);
  std::printf("%zu nodes, %zu pods (%.1f MB as a List with the fields scheduling reads)\n", nodes, pods,
              json_bytes / 1e6);
  std::printf("cache objects: %.1f MiB (%.0f bytes per pod, nodes included)\n", (objects - before) / 1048576.0,
              double(objects - before) / double(pods));
  std::printf("engine cluster: %.1f MiB more; total %.1f MiB\n", (with_cluster - objects) / 1048576.0,
              (with_cluster - before) / 1048576.0);
  std::printf("cluster build %.0f ms, rebuild after a node change %.0f ms\n", build_ms, rebuild_ms);
  return 0;
}
