#include "tightpack/what_if/outlook.hpp"

#include <algorithm>

#include "json_write.hpp"
#include "tightpack/what_if/what_if.hpp"

namespace tightpack {
namespace json = boost::json;
using json_write::joined;

namespace {

std::string pool_names(const std::vector<std::string>& pools) {
  return (pools.size() == 1 ? "pool " : "pools ") + joined(pools, ", ");
}

std::string nodes_text(int64_t n) {
  return std::to_string(n) + (n == 1 ? " node" : " nodes");
}

// What stops one pod, from cluster-autoscaler's own verdicts as the
// prediction keeps them as data: a disk in another zone than a pool that
// would otherwise take it (whatever its size: a larger max would not help), a
// pool at its maximum, a resource no pool offers; else the prediction's
// sentence.
std::string cannot_reason(const pools::Unplaced& u) {
  std::vector<std::string> parts;
  if (!u.only_volumes_fail.empty()) {
    parts.push_back("its disk is in another zone than the nodes " +
                    pool_names(u.only_volumes_fail) + " can add");
  }
  for (const auto& [pool, max_size] : u.pools_at_max) {
    parts.push_back("pool " + pool + " is at its maximum size (" + nodes_text(max_size) + ")");
  }
  if (!u.unoffered.empty()) parts.push_back("no node pool offers " + joined(u.unoffered, ", "));
  return parts.empty() ? u.reason : joined(parts, "; ");
}

}  // namespace

Outlook outlook_of(const pools::ScaleUpPrediction& prediction) {
  Outlook o;
  for (const pools::PoolGrowth& g : prediction.growth) {
    if (g.replicas.empty()) continue;
    o.kind = Outlook::Kind::kNewNode;
    o.pools.push_back(g.pool);
    o.ready_in_seconds = std::max(o.ready_in_seconds, g.ready_in_seconds);
  }
  if (o.kind == Outlook::Kind::kNewNode) return o;
  if (!prediction.unplaced.empty()) {
    o.reason = cannot_reason(prediction.unplaced.front());
  } else if (prediction.replicas_pending == 0) {
    o.kind = Outlook::Kind::kNow;
  } else {
    o.reason = "cluster-autoscaler adds no node for it";
  }
  return o;
}

std::optional<Outlook> waiting_outlook(const pools::ScaleUpPrediction& prediction) {
  // A node has room by cluster-autoscaler's rules: it adds none, and the
  // scheduler's next attempt, woken by the change that made the room, takes
  // the pod. Telling the user "cannot" here was wrong 14 times of 14 on the
  // live day (bench/RESULTS.md).
  if (!prediction.unplaced.empty() && !prediction.unplaced.front().fits_node.empty()) return {};
  return outlook_of(prediction);
}

Outlook outlook_of(const Placement& placement) {
  if (!placement.copies.empty() && placement.copies.front().node) {
    Outlook now;
    now.kind = Outlook::Kind::kNow;
    return now;
  }
  if (placement.scale_up) return outlook_of(placement.scale_up->prediction);
  Outlook o;
  o.reason = placement.unschedulable_message;
  return o;
}

std::string_view outlook_kind_name(Outlook::Kind kind) {
  switch (kind) {
    case Outlook::Kind::kNow:
      return "now";
    case Outlook::Kind::kNewNode:
      return "new-node";
    case Outlook::Kind::kCannot:
      break;
  }
  return "cannot";
}

std::string wait_text(int64_t seconds) {
  if (seconds < 60) return "under a minute";
  const int64_t minutes = (seconds + 30) / 60;  // as the sidebar rounds (formatWait)
  return "about " + std::to_string(minutes) + (minutes == 1 ? " minute" : " minutes");
}

namespace {

std::string summary(const Outlook& o) {
  switch (o.kind) {
    case Outlook::Kind::kNow:
      return "Ready now";
    case Outlook::Kind::kNewNode: {
      std::string s = wait_text(o.ready_in_seconds);
      s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
      return s;
    }
    case Outlook::Kind::kCannot:
      break;
  }
  return "Cannot start now";
}

}  // namespace

std::string outlook_text(const Outlook& o) {
  switch (o.kind) {
    case Outlook::Kind::kNow:
      return summary(o) + ": a node has room for it.";
    case Outlook::Kind::kNewNode:
      return summary(o) + ": cluster-autoscaler adds a node to " + pool_names(o.pools) + " for it.";
    case Outlook::Kind::kCannot:
      break;
  }
  return summary(o) + ": " + o.reason + ".";
}

std::string outlook_event_note(const Outlook& o, int64_t ready_in_seconds) {
  switch (o.kind) {
    case Outlook::Kind::kNow:
      return "A node has room for this pod now.";
    case Outlook::Kind::kNewNode:
      return "No node has room for this pod now; cluster-autoscaler adds a node to " +
             pool_names(o.pools) + ", ready in " +
             wait_text(std::max<int64_t>(ready_in_seconds, 0)) + " (tightpack's prediction).";
    case Outlook::Kind::kCannot:
      break;
  }
  return "No node has room for this pod now, and cluster-autoscaler cannot add one: " + o.reason +
         ".";
}

json::object encode_outlook(const Outlook& o) {
  json::object out{
      {"kind", outlook_kind_name(o.kind)}, {"summary", summary(o)}, {"message", outlook_text(o)}};
  if (o.kind == Outlook::Kind::kNewNode) {
    json::array pools;
    for (const std::string& p : o.pools) pools.emplace_back(p);
    out["pools"] = std::move(pools);
    out["readyInSeconds"] = o.ready_in_seconds;
  }
  if (o.kind == Outlook::Kind::kCannot) out["reason"] = o.reason;
  return out;
}

}  // namespace tightpack
