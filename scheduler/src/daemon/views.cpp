// What the routes read from the cache: the published snapshot, a user's home
// claims, one Dask cluster's nodes.
#include <algorithm>
#include <boost/json.hpp>
#include <random>

#include "daemon/scheduler.hpp"
#include "daemon/snapshot.hpp"
#include "daemon/storage_publish.hpp"
#include "tightpack/pools/dask_nodes.hpp"

namespace tightpack::daemon {
namespace json = boost::json;

std::string Scheduler::home(const std::string& user, const std::string& hub_namespace) {
  json::object answer;
  {
    auto lock = lock_for_update();
    answer = home_answer(cache_.objects(), user, hub_namespace);
  }
  return json::serialize(answer);
}

std::string Scheduler::dask_nodes(const std::string& ns, const std::string& name,
                                  PreloadReport report) {
  std::vector<pools::DaskNodeHint> hints;
  {
    auto lock = lock_for_update();
    std::vector<const autoscaler::CaNode*> nodes;
    for (const auto& [n, node] : cache_.nodes()) nodes.push_back(&node);
    std::vector<const autoscaler::CaPod*> pods;
    for (const auto& [key, rec] : cache_.pods()) pods.push_back(&rec.pod);
    // Pools matter only for their min sizes: without one above 0, no node is
    // copied and no pool resolved under the lock the scheduling loop shares.
    const auto& config = options_.pools_config;
    pools::ResolvedPools resolved;
    if (config && std::any_of(config->pools.begin(), config->pools.end(),
                              [](const pools::NodePool& p) { return p.min_size > 0; })) {
      std::vector<Node> plain;
      for (const autoscaler::CaNode* n : nodes) plain.push_back(n->node);
      resolved = pools::resolve_pools(*config, plain);
    }
    hints = pools::dask_node_hints(nodes, pods, resolved, pools::DaskCluster{ns, name});
  }
  // A cluster without workers has nothing to move or drain.
  const std::string cluster = ns + "/" + name;
  if (!hints.empty()) board_.asked(cluster, std::move(report), MoveBoard::Clock::now());
  const std::set<std::string> emptying = board_.emptying(cluster);
  const auto replacing = board_.replacing(cluster);
  json::array out;
  for (const pools::DaskNodeHint& h : hints) {
    json::object node{{"name", h.node}, {"workers", h.workers}, {"kept", h.kept}};
    if (emptying.contains(h.node)) node["emptying"] = true;
    if (replacing && replacing->first == h.node) node["replace"] = replacing->second;
    out.push_back(std::move(node));
  }
  return json::serialize(json::object{{"nodes", std::move(out)}});
}

std::shared_ptr<const Scheduler::PublishedSnapshot> Scheduler::snapshot(
    PodForm form, std::chrono::milliseconds interval) {
  std::lock_guard build(snapshot_m_);
  SnapshotOfForm& kept = snapshots_[static_cast<size_t>(form)];
  const auto now = Clock::now();
  uint64_t generation = 0;
  std::optional<RedactedSnapshot> redacted;
  {
    auto lock = lock_for_update();
    generation = cache_.generation();
    if (kept.snapshot && (generation == kept.generation || now - kept.built < interval))
      return kept.snapshot;
    std::random_device entropy;
    auto draw = [&] { return (uint64_t{entropy()} << 32) ^ entropy(); };
    redacted.emplace(cache_, options_.scheduler_configuration, options_.pools, options_.published,
                     PseudonymKey{draw(), draw()});
  }
  auto published = std::make_shared<PublishedSnapshot>();
  published->body = redacted->text(form);
  redacted.reset();
  // FNV-1a of the bytes: a new tag whenever they differ, and they differ on
  // every build (pseudonyms are drawn anew), so the tag also says "not rebuilt".
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : published->body) hash = (hash ^ c) * 1099511628211ull;
  char tag[24];
  std::snprintf(tag, sizeof tag, "\"%016llx\"", static_cast<unsigned long long>(hash));
  published->etag = tag;
  metrics_.snapshot_built(std::chrono::duration<double>(Clock::now() - now).count());
  kept.snapshot = std::move(published);
  kept.generation = generation;
  kept.built = now;
  return kept.snapshot;
}

}  // namespace tightpack::daemon
