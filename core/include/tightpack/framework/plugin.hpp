// What a plugin is to the framework, and the framework's CycleState.
//
// A plugin is a type, as in kube-scheduler a plugin is a struct with the
// extension points it implements:
//
//   struct plugins::TaintTolerationPlugin {
//     static constexpr Plugin kId = Plugin::TaintToleration;  // its registry line
//     struct State { ... };                // its CycleState entry for one pod
//     static State prepare(const PlanContext&);   // PreFilter and PreScore
//     static PreFilterNodes prefilter_nodes(const State&, int kube_minor);  // optional
//     static const std::optional<PreFilterFailure>& prefilter_failure(const State&);  // optional
//     static bool scores(const State&);  // optional: false when its PreScore skips the pod
//     static bool can_reject(const State&);       // whether Filter may fail some node
//     static NodeStatus filter(const State&, const Cluster&, NodeIndex);
//     // or, for a filter that reads the node's pods (the registry's
//     // filter_reads is Reads::kNodePods), with a preemption what-if's relief:
//     static NodeStatus filter(const State&, const Cluster&, NodeIndex, const Relief*);
//     static int64_t score(const State&, const Cluster&, NodeIndex);  // raw
//     static std::vector<std::string> reasons(const State&, const Cluster&, NodeIndex,
//                                             const NodeStatus&, const ReasonContext&);
//     static void reserve(const State&, BoundPod&);  // what the placed pod carries
//     // optional: what it would read that the input does not give (the plan
//     // is then an error naming it), asked before anything is prepared
//     static std::optional<std::string> unmodelled_input(const Cluster&, const Profile&,
//                                                        const Pod&, const AffinityTerms*);
//   };
//
// A plugin whose Filter or Score reads whole topology domains (the
// registry's Reads::kDomainPods) counts pods over the cluster. Those counts
// are brought up to date from the nodes whose pods changed, question after
// question, so they are not the plan's but the caller's: they live in a
// PlanScratch (framework.hpp), and such a plugin adds
//
//     using Counts = SpreadCounts;                          // its memo
//     static Counts count(const State&, const Cluster&);   // the first count
//     static bool domain_filters(const State&);   // its Filter reads domains for this pod
//     static bool domain_may_reject(const State&, Counts&, const Cluster&);  // some node, no
//     victims static std::optional<NodeStatus> domain_filter(const State&, Counts&, const Cluster&,
//                                                    NodeIndex, const Relief*);  // none: admitted
//     static void domain_scores(const State&, Counts&, const Cluster&,
//                               const std::vector<NodeIndex>& feasible, std::vector<int64_t>& out);
//     // Whether placing copies of the pod can move its verdicts or (when
//     // `weighted`) its scores; `counts()` gives the Counts when needed.
//     static bool reads_domains(const State&, bool weighted, auto&& counts);
//
// with every Counts reached through the scratch, synchronised with the
// cluster asked about. A plugin may have a domain filter without Counts
// (VolumeRestrictions' ReadWriteOncePod claims, whose users the cluster
// counts): the same functions without the Counts argument.
//
// prepare may return Result<State> when its PreScore can fail the pod; it
// reads the profile for what the plugin runs as (a filter, a score, both,
// neither). A State is written once, when the plan is made: what a plugin memoises (per
// taint set, per label combination) it computes then, so a plan is
// immutable. kube-scheduler keys CycleState by name and type-asserts each
// read; here the framework holds one typed slot per plugin of its list,
// found when compiling, and reaches a plugin named at run time (a profile's
// filter order) by a fold over the list (visit).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "tightpack/cluster.hpp"
#include "tightpack/framework/node_status.hpp"
#include "tightpack/plugins/registry.hpp"
#include "tightpack/profile.hpp"

namespace tightpack {

struct AffinityTerms;
class RequiredNodeAffinity;
struct PodStorage;

// What a plugin's prepare reads: the pod, the cluster and profile the plan
// is made for, and what the framework parsed once for several plugins.
struct PlanContext {
  const Cluster& cluster;
  const Profile& profile;
  const Pod& pod;
  // What the pod adds to a node, as the cluster counts it.
  const PodUsage& usage;
  // PodPlan::Use::kFirstFit: only what Filter reads, judged when a node is
  // asked, not for every node at once.
  bool first_fit = false;
  // The pod's nodeSelector and required node affinity, bound to the
  // cluster: NodeAffinity filters by it, PodTopologySpread counts the
  // nodes it admits.
  const RequiredNodeAffinity& required;
  // Its volumes as the storage state reads them; null when it has none.
  const PodStorage* storage = nullptr;
  // Its inter-pod affinity terms, as the placed pod carries them; null for none.
  std::shared_ptr<const AffinityTerms> affinity_terms{};
};

// A PreFilter that restricts the nodes to some names (NodeName, and
// NodeAffinity's matchFields on metadata.name), or finds its own terms in
// conflict; nothing restricts when `names` is empty.
struct PreFilterNodes {
  bool conflict = false;
  std::optional<std::set<std::string>> names;
};

// A PreFilter that fails the pod. RunPreFilterPlugins stops at the first, in
// the profile's order: either it rejects every node
// (UnschedulableAndUnresolvable, with `text` its reason), or it would read
// what the engine does not model, and the plan is an error naming `text`.
struct PreFilterFailure {
  bool unmodelled = false;
  std::string text;
};

// What a plugin's reasons read besides its state and the verdict.
struct ReasonContext {
  int kube_minor = 0;
  // The PreFilters' merged verdict rejected every node (a conflict within
  // NodeAffinity's terms, or restrictions with no node in common).
  bool prefilter_conflict = false;
  const Relief* relief = nullptr;  // pods a preemption what-if takes off
};

template <class... Ps>
struct PluginList {};

template <class T>
struct PluginTag {
  using type = T;
};

template <class List>
class PluginStates;

// One slot per plugin type of the list. Every plugin of the list is
// prepared for every plan, as a typed slot is always there to read; a
// plugin's prepare computes only what the profile runs it for.
template <class... Ps>
class PluginStates<PluginList<Ps...>> {
 public:
  static constexpr std::array<Plugin, sizeof...(Ps)> kIds{Ps::kId...};

  template <Plugin P>
  static constexpr size_t index() {
    for (size_t i = 0; i < kIds.size(); ++i) {
      if (kIds[i] == P) return i;
    }
    return kIds.size();
  }
  template <Plugin P>
  static constexpr bool contains() {
    return index<P>() < kIds.size();
  }
  template <Plugin P>
  using PluginOf = std::tuple_element_t<index<P>(), std::tuple<Ps...>>;

  template <Plugin P>
  const typename PluginOf<P>::State& get() const {
    return std::get<index<P>()>(states_);
  }
  template <Plugin P>
  void set(typename PluginOf<P>::State state) {
    std::get<index<P>()>(states_) = std::move(state);
  }

  // f(PluginTag<T>{}) for the plugin type of the list whose id is `p`;
  // false when the list has none.
  template <class F>
  static constexpr bool visit(Plugin p, F&& f) {
    return ((Ps::kId == p ? (f(PluginTag<Ps>{}), true) : false) || ...);
  }
  // f(PluginTag<T>{}) for every plugin type of the list, in list order.
  template <class F>
  static constexpr void for_each(F&& f) {
    (f(PluginTag<Ps>{}), ...);
  }

 private:
  std::tuple<typename Ps::State...> states_;
};

// A plugin's slot in a scratch: its Counts, counted when first asked for.
template <class T>
struct CountsSlot {
  using type = std::monostate;
};
template <class T>
requires requires {
  typename T::Counts;
}
struct CountsSlot<T> {
  using type = std::optional<typename T::Counts>;
};

template <class List>
class PluginCounts;

// One slot per plugin type of the list; those without Counts hold nothing.
template <class... Ps>
class PluginCounts<PluginList<Ps...>> {
 public:
  template <Plugin P>
  auto& get() {
    return std::get<PluginStates<PluginList<Ps...>>::template index<P>()>(slots_);
  }
  void clear() { slots_ = {}; }

 private:
  std::tuple<typename CountsSlot<Ps>::type...> slots_;
};

}  // namespace tightpack
