// The plugin registry: one entry per plugin a KubeSchedulerConfiguration may
// name, as kube-scheduler's in-tree registry (pkg/scheduler/framework/
// plugins/registry.go) has one line per plugin. An entry says which extension
// points the plugin implements, whether the engine models it, what its verdict
// and score read besides the node and the pod (which decides what the
// incremental paths recompute after a placement), and how its score is
// normalised. Everything that lists plugins (the configuration decoder, the
// score columns, the results) derives from this table.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tightpack {

enum class Plugin : uint8_t {
  NodeUnschedulable,
  NodeName,
  TaintToleration,
  NodeAffinity,
  NodePorts,
  NodeResourcesFit,
  NodeResourcesBalancedAllocation,
  ImageLocality,
  VolumeRestrictions,
  NodeVolumeLimits,
  EBSLimits,
  GCEPDLimits,
  AzureDiskLimits,
  VolumeBinding,
  VolumeZone,
  PodTopologySpread,
  InterPodAffinity,
  DynamicResources,
  DefaultPreemption,
  PrioritySort,
  SchedulingGates,
  DefaultBinder,
  // tightpack's own (plugins/cohort.hpp); kube-scheduler does not know it.
  TightpackCohort,
  kCount,
};

// Extension points, as bits.
namespace ext {
inline constexpr uint8_t kFilter = 1;
inline constexpr uint8_t kScore = 2;
inline constexpr uint8_t kPostFilter = 4;
inline constexpr uint8_t kOther = 8;  // queueSort, preEnqueue, bind
}  // namespace ext

// What a verdict or a raw score reads besides the node and the pod.
enum class Reads : uint8_t {
  kNode,        // the node alone: computed once per pod
  kNodePods,    // the pods bound to that node: recomputed when they change
  kDomainPods,  // the pods of the node's topology domains: any placement may move it
};

// NormalizeScore.
enum class Normalization : uint8_t {
  kNone,            // the score is in [0, 100] already
  kDefault,         // helper.DefaultNormalizeScore(100, false): 100 × raw / max
  kDefaultReverse,  // helper.DefaultNormalizeScore(100, true)
  kSpread,          // PodTopologySpread's: 100 × (max + min − raw) / max over the scored nodes
  kMinMax,  // InterPodAffinity's: 100 × (raw − min) / (max − min) over the feasible nodes
};

struct PluginInfo {
  Plugin plugin;
  const char* name;
  uint8_t ext;
  // The engine computes this plugin's verdicts and scores. A plugin that is
  // not modelled is a no-op for pods that do not use its feature, and a pod
  // that uses it is refused with a message (framework.cpp), never scored
  // wrongly.
  bool modelled;
  Reads filter_reads;
  Reads score_reads;
  Normalization normalization;
};

inline constexpr std::array<PluginInfo, static_cast<size_t>(Plugin::kCount)> kPluginTable{{
    // clang-format off
    // plugin                                 name                               extension points           modelled filter reads     score reads       normalisation
    {Plugin::NodeUnschedulable,               "NodeUnschedulable",               ext::kFilter,              true,  Reads::kNode,     Reads::kNode,     Normalization::kNone},
    {Plugin::NodeName,                        "NodeName",                        ext::kFilter,              true,  Reads::kNode,     Reads::kNode,     Normalization::kNone},
    {Plugin::TaintToleration,                 "TaintToleration",                 ext::kFilter | ext::kScore, true, Reads::kNode,     Reads::kNode,     Normalization::kDefaultReverse},
    {Plugin::NodeAffinity,                    "NodeAffinity",                    ext::kFilter | ext::kScore, true, Reads::kNode,     Reads::kNode,     Normalization::kDefault},
    {Plugin::NodePorts,                       "NodePorts",                       ext::kFilter,              true,  Reads::kNodePods, Reads::kNode,     Normalization::kNone},
    {Plugin::NodeResourcesFit,                "NodeResourcesFit",                ext::kFilter | ext::kScore, true, Reads::kNodePods, Reads::kNodePods, Normalization::kNone},
    {Plugin::NodeResourcesBalancedAllocation, "NodeResourcesBalancedAllocation", ext::kScore,               true,  Reads::kNode,     Reads::kNodePods, Normalization::kNone},
    {Plugin::ImageLocality,                   "ImageLocality",                   ext::kScore,               true,  Reads::kNode,     Reads::kNode,     Normalization::kNone},
    {Plugin::VolumeRestrictions,              "VolumeRestrictions",              ext::kFilter,              true, Reads::kNodePods, Reads::kNode,     Normalization::kNone},
    {Plugin::NodeVolumeLimits,                "NodeVolumeLimits",                ext::kFilter,              true, Reads::kNodePods, Reads::kNode,     Normalization::kNone},
    {Plugin::EBSLimits,                       "EBSLimits",                       ext::kFilter,              false, Reads::kNodePods, Reads::kNode,     Normalization::kNone},
    {Plugin::GCEPDLimits,                     "GCEPDLimits",                     ext::kFilter,              false, Reads::kNodePods, Reads::kNode,     Normalization::kNone},
    {Plugin::AzureDiskLimits,                 "AzureDiskLimits",                 ext::kFilter,              false, Reads::kNodePods, Reads::kNode,     Normalization::kNone},
    {Plugin::VolumeBinding,                   "VolumeBinding",                   ext::kFilter | ext::kScore, true, Reads::kNode,    Reads::kNode,     Normalization::kNone},
    {Plugin::VolumeZone,                      "VolumeZone",                      ext::kFilter,              true, Reads::kNode,     Reads::kNode,     Normalization::kNone},
    {Plugin::PodTopologySpread,               "PodTopologySpread",               ext::kFilter | ext::kScore, true,  Reads::kDomainPods, Reads::kDomainPods, Normalization::kSpread},
    {Plugin::InterPodAffinity,                "InterPodAffinity",                ext::kFilter | ext::kScore, true,  Reads::kDomainPods, Reads::kDomainPods, Normalization::kMinMax},
    {Plugin::DynamicResources,                "DynamicResources",                ext::kFilter,              false, Reads::kNode,     Reads::kNode,     Normalization::kNone},
    {Plugin::DefaultPreemption,               "DefaultPreemption",               ext::kPostFilter,          true,  Reads::kNode,     Reads::kNode,     Normalization::kNone},
    {Plugin::PrioritySort,                    "PrioritySort",                    ext::kOther,               true,  Reads::kNode,     Reads::kNode,     Normalization::kNone},
    {Plugin::SchedulingGates,                 "SchedulingGates",                 ext::kOther,               true,  Reads::kNode,     Reads::kNode,     Normalization::kNone},
    {Plugin::DefaultBinder,                   "DefaultBinder",                   ext::kOther,               true,  Reads::kNode,     Reads::kNode,     Normalization::kNone},
    {Plugin::TightpackCohort,                 "TightpackCohort",                 ext::kScore,               true,  Reads::kNode,     Reads::kNodePods, Normalization::kNone},
    // clang-format on
}};

namespace registry_detail {
constexpr bool in_enum_order() {
  for (size_t i = 0; i < kPluginTable.size(); ++i) {
    if (static_cast<size_t>(kPluginTable[i].plugin) != i) return false;
  }
  return true;
}
constexpr bool scores_modelled(const PluginInfo& p) {
  return p.modelled && (p.ext & ext::kScore);
}
constexpr size_t score_slot_count() {
  size_t n = 0;
  for (const auto& p : kPluginTable) n += scores_modelled(p) ? 1 : 0;
  return n;
}
}  // namespace registry_detail
static_assert(registry_detail::in_enum_order(), "kPluginTable must list the plugins in enum order");

constexpr const PluginInfo& plugin_info(Plugin p) {
  return kPluginTable[static_cast<size_t>(p)];
}
constexpr const char* plugin_name(Plugin p) {
  return plugin_info(p).name;
}
std::optional<Plugin> find_plugin(std::string_view name);

// The modelled score plugins in registry order: the columns of a score row,
// and the order results list them in.
inline constexpr size_t kScoreSlots = registry_detail::score_slot_count();
inline constexpr std::array<Plugin, kScoreSlots> kScorePlugins = [] {
  std::array<Plugin, kScoreSlots> out{};
  size_t k = 0;
  for (const auto& p : kPluginTable) {
    if (registry_detail::scores_modelled(p)) out[k++] = p.plugin;
  }
  return out;
}();

// The score columns by how the framework gets and normalises them, so that
// decide() and the replica indexes run one pipeline and name no plugin:
//   - normalised by the highest raw score among the feasible nodes
//     (helper.DefaultNormalizeScore); the raw score reads the node alone;
//   - reading the node's own pods, recomputed when they change;
//   - normalised over the feasible nodes at once, reading whole topology
//     domains (PodTopologySpread's and InterPodAffinity's own NormalizeScore).
// Every other column reads the node alone and is in [0, 100] already.
namespace registry_detail {
constexpr bool normalised_by_max(const PluginInfo& p) {
  return p.normalization == Normalization::kDefault ||
         p.normalization == Normalization::kDefaultReverse;
}
constexpr bool reads_node_pods(const PluginInfo& p) {
  return p.score_reads == Reads::kNodePods;
}
constexpr bool normalised_over_domains(const PluginInfo& p) {
  return p.normalization == Normalization::kSpread || p.normalization == Normalization::kMinMax;
}
constexpr size_t count_slots(bool (*pred)(const PluginInfo&)) {
  size_t n = 0;
  for (Plugin p : kScorePlugins) n += pred(plugin_info(p)) ? 1 : 0;
  return n;
}
template <size_t N>
constexpr std::array<size_t, N> slots_where(bool (*pred)(const PluginInfo&)) {
  std::array<size_t, N> out{};
  size_t k = 0;
  for (size_t slot = 0; slot < kScoreSlots; ++slot) {
    if (pred(plugin_info(kScorePlugins[slot]))) out[k++] = slot;
  }
  return out;
}
constexpr bool all_read(bool (*pred)(const PluginInfo&), Reads reads) {
  for (Plugin p : kScorePlugins) {
    if (pred(plugin_info(p)) && plugin_info(p).score_reads != reads) return false;
  }
  return true;
}
}  // namespace registry_detail

inline constexpr size_t kByMaxCount =
    registry_detail::count_slots(registry_detail::normalised_by_max);
inline constexpr std::array<size_t, kByMaxCount> kByMaxSlots =
    registry_detail::slots_where<kByMaxCount>(registry_detail::normalised_by_max);
inline constexpr size_t kNodePodsCount =
    registry_detail::count_slots(registry_detail::reads_node_pods);
inline constexpr std::array<size_t, kNodePodsCount> kNodePodsSlots =
    registry_detail::slots_where<kNodePodsCount>(registry_detail::reads_node_pods);
inline constexpr size_t kOverDomainsCount =
    registry_detail::count_slots(registry_detail::normalised_over_domains);
inline constexpr std::array<size_t, kOverDomainsCount> kOverDomainsSlots =
    registry_detail::slots_where<kOverDomainsCount>(registry_detail::normalised_over_domains);
// A maximum over the feasible nodes is of scores that stay put when other
// nodes change; a domain normalisation is of scores that read domains.
static_assert(registry_detail::all_read(registry_detail::normalised_by_max, Reads::kNode));
static_assert(registry_detail::all_read(registry_detail::normalised_over_domains,
                                        Reads::kDomainPods));

// The column of a score plugin; kScoreSlots for a plugin the engine does
// not score.
constexpr size_t score_slot(Plugin p) {
  for (size_t k = 0; k < kScoreSlots; ++k) {
    if (kScorePlugins[k] == p) return k;
  }
  return kScoreSlots;
}

// The same where the plugin is known when compiling: a compile error for a
// plugin the engine does not score.
template <Plugin P>
constexpr size_t slot() {
  constexpr size_t k = score_slot(P);
  static_assert(k < kScoreSlots, "not a modelled score plugin");
  return k;
}

}  // namespace tightpack
