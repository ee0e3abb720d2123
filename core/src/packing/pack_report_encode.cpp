// pack-report's answer as JSON, and the text entry point both builds call.
#include <boost/json.hpp>
#include <cmath>

#include "tightpack/decode.hpp"
#include "tightpack/packing/pack_report.hpp"

namespace tightpack::packing {
namespace json = boost::json;

namespace {

json::value hours(double h) {
  // Two decimals, as printed: the same bytes from both builds.
  return json::value(std::round(h * 100.0) / 100.0);
}

}  // namespace

void encode_move_figures(const ProfileFigures& f, json::object& o) {
  o["moves"] = f.moves;
  o["tasksInterrupted"] = f.tasks_interrupted;
  o["nodesEmptied"] = f.nodes_emptied;
  o["workersMoved"] = f.workers_moved;
  o["movesAbandoned"] = f.moves_abandoned;
  o["emptiedTakenBack"] = f.emptied_taken_back;
  o["moveOverlapWorkerHours"] = hours(f.move_overlap_worker_hours);
}

json::value encode_pack_report(const PackReport& r) {
  json::array profiles;
  for (const ProfileFigures& f : r.profiles) {
    json::array pools;
    for (const PoolFigures& p : f.pools) {
      pools.push_back(json::object{{"pool", p.pool},
                                   {"busyNodesAtEnd", p.busy_at_end},
                                   {"nodesAtEnd", p.nodes_at_end},
                                   {"nodeHours", hours(p.node_hours)},
                                   {"busyNodeHours", hours(p.busy_node_hours)},
                                   {"lowerBound", p.lower_bound},
                                   {"lowerBoundNodeHours", hours(p.lower_bound_node_hours)},
                                   {"repackNodeHours", hours(p.repack_node_hours)}});
    }
    profiles.push_back(json::object{{"profile", f.profile},
                                    {"schedulerName", f.scheduler_name},
                                    {"busyNodesAtEnd", f.busy_at_end},
                                    {"peakBusyNodes", f.peak_busy},
                                    {"busyNodeHours", hours(f.busy_node_hours)},
                                    {"nodeHours", hours(f.node_hours)},
                                    {"pendingAtEnd", f.pending_at_end},
                                    {"podHoursWaiting", hours(f.pending_pod_hours)},
                                    {"lowerBound", f.lower_bound},
                                    {"lowerBoundNodeHours", hours(f.lower_bound_node_hours)},
                                    {"repackNodeHours", hours(f.repack_node_hours)},
                                    {"scaleUps", f.scale_ups},
                                    {"nodesAdded", f.nodes_added},
                                    {"nodesRemoved", f.nodes_removed},
                                    {"podsEvicted", f.pods_evicted},
                                    {"pools", std::move(pools)}});
    if (r.consolidate == Consolidate::kMove) encode_move_figures(f, profiles.back().as_object());
  }
  json::object out{
      {"end", r.end}, {"retire", retire_name(r.retire)}, {"profiles", std::move(profiles)}};
  if (r.consolidate == Consolidate::kMove) out["consolidate"] = consolidate_name(r.consolidate);
  return out;
}

std::string pack_report_text(std::string_view scenario_json) {
  auto doc = parse_json(scenario_json);
  if (!doc) return json::serialize(json::object{{"error", doc.error().what()}});
  auto s = decode_pack_scenario(*doc);
  if (!s) return json::serialize(json::object{{"error", s.error().what()}});
  auto r = run_pack_report(*s);
  if (!r) return json::serialize(json::object{{"error", r.error().what()}});
  return json::serialize(encode_pack_report(*r));
}

}  // namespace tightpack::packing
