// The replica index for templates that PodTopologySpread constrains
// (simulate.cpp): where a placement moves the counts of whole topology
// domains, so that the plain index of (total, name) would have to rescore
// every node of the domain, nodes are grouped by what their totals depend on
// besides their own pods: their raw scores of the columns normalised by the
// maximum over the feasible nodes (kByMaxSlots: TaintToleration's and
// NodeAffinity's) and their spread signature (SpreadCounts::signature). All nodes of a group share
// the spread verdict and score, so within a group the best node is the one with the highest sum of
// the other scores, kept in an ordered set; after a placement only the chosen node (and the nodes
// of its hostname domain) move between groups, and the next replica compares the groups' best
// nodes. The result equals running decide() for each replica.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/framework/framework.hpp"

namespace tightpack {

class SpreadReplicaIndex {
 public:
  // Whether the plan's replicas can be placed by this index: PodTopologySpread
  // is the only plugin reading topology domains for it.
  static bool applies(const PodPlan& plan, PlanScratch& scratch, const Cluster& c,
                      const ScoreVector& weight);

  SpreadReplicaIndex(const PodPlan& plan, PlanScratch& scratch, const Cluster& c);

  bool empty() const { return !best_; }
  bool saw_invalid_score() const { return invalid_; }
  NodeIndex best() const { return *best_; }
  size_t tied() const { return tied_; }

  // The node just received a replica.
  void update(NodeIndex n);

 private:
  struct Group {
    RawByMax raw{};
    std::vector<int64_t> signature;
    std::set<std::pair<int64_t, uint32_t>> members;  // (-partial total, name rank)
  };
  using Key = std::vector<int64_t>;  // the raw scores normalised by the maximum, spread signature

  // The total of a node without the scores normalised over the feasible
  // nodes (by their maximum, or at once over the domains); notes a score out
  // of range.
  int64_t partial_total(NodeIndex n);
  void insert(NodeIndex n);
  void erase(NodeIndex n);
  void choose();

  const PodPlan& plan_;
  PlanScratch& scratch_;
  const Cluster& c_;
  plugins::SpreadCounts& spread_;
  ScoreVector weight_{};
  bool pod_dependent_ = false;
  const NameRanks ranks_;
  std::vector<uint8_t> fits_;  // the filters that read the node and its pods pass
  std::vector<int64_t> partial_;
  std::vector<Key> key_of_;  // per node in a group
  std::map<Key, Group> groups_;
  std::optional<NodeIndex> best_;
  size_t tied_ = 0;
  bool invalid_ = false;
};

}  // namespace tightpack
