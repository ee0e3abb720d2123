// The JSON answers of WhatIfCluster, shared by `tightpack predict --output
// json` and the WebAssembly module.
#include <boost/json.hpp>

#include "json_write.hpp"
#include "tightpack/built_in_profiles.hpp"
#include "tightpack/quantity.hpp"
#include "tightpack/what_if/outlook.hpp"
#include "tightpack/what_if/what_if.hpp"

namespace tightpack {
using json_write::joined;
using json_write::nullable;
using json_write::string_array;
namespace json = boost::json;

json::object encode_scale_up(const ScaleUpAnswer& a) {
  const pools::ScaleUpPrediction& p = a.prediction;
  json::object o;
  o["expander"] = joined(p.expanders, ",");
  o["replicasPending"] = p.replicas_pending;
  o["loops"] = p.loops;
  json::array growth;
  for (const auto& g : p.growth) {
    json::object j{
        {"pool", g.pool},
        {"source", g.source == pools::PoolSource::kConfigured ? "configured" : "inferred"},
        {"nodesAdded", g.nodes_added},
        {"estimated", g.estimated},
        {"replicas", string_array(g.replicas)},
        {"otherPendingPods", string_array(g.other_pods)},
        {"provisioningSeconds", g.provisioning_seconds},
        {"readyInSeconds", g.ready_in_seconds},
        {"templateFromConfiguration", g.template_from_configuration},
        {"preemptible", g.preemptible},
        {"managedBy", pools::autoscaler_name(g.autoscaler)},
        {"maxSizeReached", g.max_size_reached}};
    json::array loops;
    for (int64_t l : g.loops) loops.emplace_back(l);
    j["loops"] = std::move(loops);
    j["maxSize"] = g.max_size ? json::value(*g.max_size) : json::value(nullptr);
    j["pricePerHour"] = g.price_per_hour ? json::value(*g.price_per_hour) : json::value(nullptr);
    j["addedPricePerHour"] =
        g.added_price_per_hour ? json::value(*g.added_price_per_hour) : json::value(nullptr);
    if (!g.tied.empty()) j["tied"] = string_array(g.tied);
    growth.push_back(std::move(j));
  }
  o["pools"] = std::move(growth);
  json::array unplaced;
  for (const auto& u : p.unplaced) {
    json::array detail;
    for (const auto& d : u.pools) {
      detail.push_back(json::object{{"pool", d.pool},
                                    {"autoscaler", string_array(d.autoscaler)},
                                    {"filters", string_array(d.filters)}});
    }
    json::array at_max;
    for (const auto& [pool, max_size] : u.pools_at_max) {
      at_max.push_back(json::object{{"pool", pool}, {"maxSize", max_size}});
    }
    unplaced.push_back(json::object{{"replicas", string_array(u.replicas)},
                                    {"reason", u.reason},
                                    {"pools", std::move(detail)},
                                    {"poolsAtMax", std::move(at_max)},
                                    {"unoffered", string_array(u.unoffered)},
                                    {"blockedByVolumes", string_array(u.blocked_by_volumes)}});
  }
  o["unplaced"] = std::move(unplaced);
  std::vector<std::string> notes = a.resolved.notes;
  notes.insert(notes.end(), p.notes.begin(), p.notes.end());
  o["notes"] = string_array(notes);
  o["everyReplicaRuns"] = p.every_replica_runs();
  return o;
}

namespace {

json::object encode_unschedulable_facts(const UnschedulableFacts& f) {
  json::array taints;
  for (const auto& t : f.untolerated_taints) {
    taints.push_back(
        json::object{{"taint", t.taint}, {"nodes", t.nodes}, {"pools", string_array(t.pools)}});
  }
  json::array short_of;
  for (const auto& s : f.insufficient) {
    short_of.push_back(json::object{{"resource", s.resource},
                                    {"requested", s.requested},
                                    {"largestFree", s.largest_free},
                                    {"node", s.node},
                                    {"pool", nullable(s.pool)}});
  }
  return json::object{{"untoleratedTaints", std::move(taints)},
                      {"insufficient", std::move(short_of)},
                      {"nodeAffinityMismatch", f.node_affinity_mismatch},
                      {"unoffered", string_array(f.unoffered)}};
}

}  // namespace

json::object encode_placement(const Placement& p, const std::vector<AdmissionChange>& admitted) {
  json::object o;
  o["schedulerName"] = p.scheduler_name;
  o["replicas"] = p.replicas;
  o["placed"] = p.placed;
  json::array nodes;
  for (const LandedNode& n : p.nodes) {
    nodes.push_back(json::object{
        {"node", n.node},
        {"pool", nullable(n.pool)},
        {"replicas", n.replicas},
        {"cpu", json::object{{"allocatable", format_milli(n.cpu_allocatable)},
                             {"requestedBefore", format_milli(n.cpu_before)},
                             {"requestedAfter", format_milli(n.cpu_after)}}},
        {"memory", json::object{{"allocatable", format_bytes(n.memory_allocatable)},
                                {"requestedBefore", format_bytes(n.memory_before)},
                                {"requestedAfter", format_bytes(n.memory_after)}}},
        // In the scheduler's units, as the cluster summary's: what a front
        // end draws the fill from, every request of the pod counted (init
        // containers, sidecars, overhead, pod-level resources).
        {"requestedAfter", json::object{{"cpu", n.cpu_after}, {"memory", n.memory_after}}},
    });
  }
  o["nodes"] = std::move(nodes);
  json::array placements;
  for (const Placement::Copy& c : p.copies) {
    placements.push_back(
        json::object{{"pod", c.pod}, {"node", nullable(c.node)}, {"tiedNodes", c.tied_nodes}});
  }
  o["placements"] = std::move(placements);
  if (p.placed < p.replicas) {
    json::object u{{"replicas", p.replicas - p.placed}, {"message", p.unschedulable_message}};
    if (p.unschedulable_facts) u["facts"] = encode_unschedulable_facts(*p.unschedulable_facts);
    o["unschedulable"] = std::move(u);
  }
  if (p.scale_up) o["scaleUp"] = encode_scale_up(*p.scale_up);
  json::array tolerated;
  for (const auto& t : p.tolerated_pool_taints) {
    json::value label = nullptr;
    if (t.node_label)
      label = json::object{{"key", t.node_label->first}, {"value", t.node_label->second}};
    tolerated.push_back(json::object{
        {"pool", t.pool}, {"taint", t.taint}, {"pinned", t.pinned}, {"nodeLabel", label}});
  }
  o["toleratedPoolTaints"] = std::move(tolerated);
  // cluster-autoscaler's drain rules on the pod: evicted to remove its node,
  // or the rule (drainability's status reason) that keeps the node.
  if (p.drain) {
    o["scaleDown"] = json::object{
        {"evicted", p.drain->evicted},
        {"blockedBy", p.drain->block == autoscaler::DrainBlock::kNone
                          ? json::value(nullptr)
                          : json::value(autoscaler::drain_block_name(p.drain->block))}};
  }
  // One pod's answer in words, as the spawn page and the waiting pod's event give it.
  if (p.replicas == 1) o["outlook"] = encode_outlook(outlook_of(p));
  o["claims"] = encode_mounted_claims(p.claims);
  o["admission"] = encode_admission_changes(admitted);
  return o;
}

json::object WhatIfCluster::summary() const {
  const Cluster& c = cluster_;
  json::array nodes;
  for (NodeIndex n = 0; n < c.size(); ++n) {
    const Node& node = c.node(n);
    json::object labels;
    for (const auto& [k, v] : node.labels) labels[k] = v;
    json::array taints;
    for (const Taint& t : node.taints) taints.emplace_back(pools::taint_text(t));
    // The scheduler's units: millicores for cpu, the plain value otherwise.
    json::object allocatable{
        {"cpu", c.alloc_cpu()[n]}, {"memory", c.alloc_memory()[n]}, {"pods", c.allowed_pods()[n]}};
    json::object requested{
        {"cpu", c.req_cpu()[n]}, {"memory", c.req_memory()[n]}, {"pods", c.pod_count()[n]}};
    for (uint32_t s = 0; s < c.scalar_count(); ++s) {
      if (!c.has_scalar(s, n)) continue;
      allocatable[c.scalar_name(s)] = c.alloc_scalar(s)[n];
      requested[c.scalar_name(s)] = c.req_scalar(s)[n];
    }
    const std::string* pool = pool_of(n);
    nodes.push_back(json::object{{"name", node.name},
                                 {"pool", pool ? json::value(*pool) : json::value(nullptr)},
                                 {"ready", snapshot_.nodes[n].ready},
                                 {"cordoned", node.unschedulable},
                                 {"labels", std::move(labels)},
                                 {"taints", std::move(taints)},
                                 {"allocatable", std::move(allocatable)},
                                 {"requested", std::move(requested)}});
  }
  json::object o;
  o["nodes"] = std::move(nodes);
  o["pendingPods"] = snapshot_.pending.size();
  if (pools_) {
    json::array list;
    for (const pools::NodePool& p : pools_->resolved.pools) {
      list.push_back(json::object{
          {"name", p.name},
          {"source", p.source == pools::PoolSource::kConfigured ? "configured" : "inferred"},
          {"nodes", string_array(p.nodes)},
          {"minSize", p.min_size},
          {"maxSize", p.max_size ? json::value(*p.max_size) : json::value(nullptr)},
          {"provisioningSeconds", p.provisioning_seconds},
          {"preemptible", p.preemptible},
          {"managedBy", pools::autoscaler_name(p.autoscaler)},
          {"pricePerHour",
           p.price_per_hour ? json::value(*p.price_per_hour) : json::value(nullptr)},
          {"canGrow", !p.nodes.empty() || p.template_node.has_value()}});
    }
    o["pools"] = std::move(list);
    o["notes"] = string_array(pools_->resolved.notes);
  }
  json::array profiles;
  for (const Profile& p : config_.profiles) profiles.emplace_back(p.scheduler_name);
  json::array built_in;
  for (const BuiltInProfile& p : built_in_profiles()) {
    profiles.emplace_back(p.name);
    built_in.push_back(
        json::object{{"name", p.name},
                     {"schedulerName", p.scheduler_name},
                     {"release", *p.release ? json::value(p.release) : json::value(nullptr)},
                     {"description", p.description}});
  }
  o["profiles"] = std::move(profiles);
  o["builtInProfiles"] = std::move(built_in);
  return o;
}

}  // namespace tightpack
