#include "dask_retirement.hpp"

#include <algorithm>
#include <tuple>

namespace tightpack::packing {
namespace {

// `order` (upstream's) regrouped node by node: first the nodes that empty
// once the group's workers leave (nothing else keeps them), then the others;
// fewest of the group's workers first; then the node's name. What the
// preload knows: each worker's node, and from tightpack's scheduler whether
// anything else keeps the node.
std::vector<std::string> node_aware_order(const std::vector<std::string>& order,
                                          const std::map<std::string, std::string>& node_of,
                                          const std::function<bool(const std::string&)>& kept) {
  std::map<std::string, std::vector<std::string>> on_node;
  for (const std::string& k : order) on_node[node_of.at(k)].push_back(k);
  std::map<std::string, bool> keeps;
  for (const auto& [node, ks] : on_node) keeps[node] = kept(node);
  std::vector<std::string> nodes;
  for (const auto& [node, ks] : on_node) nodes.push_back(node);
  std::sort(nodes.begin(), nodes.end(), [&](const std::string& a, const std::string& b) {
    return std::tuple(keeps[a], on_node[a].size(), a) < std::tuple(keeps[b], on_node[b].size(), b);
  });
  std::vector<std::string> out;
  for (const std::string& n : nodes) out.insert(out.end(), on_node[n].begin(), on_node[n].end());
  return out;
}

}  // namespace

std::vector<std::string> retiring(
    const GroupWorkers& workers, size_t leave, Retire rule,
    const std::function<const std::string&(const std::string&)>& address,
    const std::function<bool(const std::string&)>& kept) {
  const std::vector<std::string>& keys = workers.replicas;
  if (rule == Retire::kNewest) return {keys.end() - static_cast<std::ptrdiff_t>(leave), keys.end()};
  // Upstream's order: the greatest address first.
  std::vector<std::string> order;
  for (const auto& [k, node] : workers.running) order.push_back(k);
  std::sort(order.begin(), order.end(),
            [&](const std::string& a, const std::string& b) { return address(a) > address(b); });
  if (rule == Retire::kNodeAware) order = node_aware_order(order, workers.running, kept);
  if (order.size() > leave) order.resize(leave);
  // More to retire than run: the newest waiting replicas go too.
  for (auto k = keys.rbegin(); k != keys.rend() && order.size() < leave; ++k) {
    if (!workers.running.contains(*k)) order.push_back(*k);
  }
  return order;
}

}  // namespace tightpack::packing
