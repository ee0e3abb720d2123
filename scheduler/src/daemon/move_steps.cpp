#include "daemon/move_steps.hpp"

#include <boost/json.hpp>

namespace tightpack::daemon {
namespace json = boost::json;

std::string_view phase_name(MovePhase phase) {
  switch (phase) {
    case MovePhase::Making:
      return "making";
    case MovePhase::Draining:
      return "draining";
    case MovePhase::Breaking:
      return "breaking";
  }
  return "making";
}

std::string_view action_name(MoveAction action) {
  switch (action) {
    case MoveAction::Wait:
      return "wait";
    case MoveAction::Drain:
      return "drain";
    case MoveAction::Lower:
      return "lower";
    case MoveAction::Done:
      return "done";
    case MoveAction::Abandon:
      return "abandon";
    case MoveAction::AbandonLower:
      return "abandon-lower";
  }
  return "wait";
}

std::string encode_move_state(const MoveState& s) {
  return json::serialize(json::object{{"workerGroup", s.worker_group},
                                      {"node", s.node},
                                      {"from", s.from},
                                      {"to", s.to},
                                      {"phase", phase_name(s.phase)},
                                      {"since", s.since},
                                      {"by", s.by}});
}

Result<MoveState> decode_move_state(std::string_view text) {
  const std::string where = std::string(kMoveStateAnnotation);
  boost::system::error_code ec;
  const json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) {
    return Error{where, "is not a JSON object: " + quote_value(text.substr(0, 100))};
  }
  const json::object& o = v.get_object();
  MoveState s;
  auto text_field = [&](const char* key, std::string& into) -> Status {
    const json::value* f = o.if_contains(key);
    if (!f || !f->is_string() || f->get_string().empty()) {
      return Error{where + "." + key, "must be a non-empty string"};
    }
    into = std::string(f->get_string());
    return Ok{};
  };
  auto count_field = [&](const char* key, int64_t& into) -> Status {
    const json::value* f = o.if_contains(key);
    if (!f || !f->is_int64() || f->get_int64() < 0) {
      return Error{where + "." + key, "must be a whole number ≥ 0"};
    }
    into = f->get_int64();
    return Ok{};
  };
  for (auto st : {text_field("workerGroup", s.worker_group), text_field("node", s.node),
                  text_field("by", s.by), count_field("from", s.from), count_field("to", s.to),
                  count_field("since", s.since)}) {
    if (!st) return st.error();
  }
  if (s.to <= s.from) {
    return Error{where + ".to",
                 std::to_string(s.to) + " is not above from (" + std::to_string(s.from) + ")"};
  }
  std::string phase;
  if (auto st = text_field("phase", phase); !st) return st.error();
  if (phase == "making") {
    s.phase = MovePhase::Making;
  } else if (phase == "draining") {
    s.phase = MovePhase::Draining;
  } else if (phase == "breaking") {
    s.phase = MovePhase::Breaking;
  } else {
    return Error{where + ".phase",
                 quote_value(phase) + " is not one of making, draining, breaking"};
  }
  return s;
}

MoveStep next_move_step(const MoveState& s, const MoveObserved& seen, int64_t now,
                        const MoveTimeouts& timeouts) {
  if (!seen.replicas) return {MoveAction::Abandon, "the worker group is gone"};
  const int64_t replicas = *seen.replicas;
  const int64_t waited = now - s.since;
  const std::string size = std::to_string(replicas);
  switch (s.phase) {
    case MovePhase::Making:
    case MovePhase::Draining:
      // Whoever set another size than the move's is the cluster's user (or
      // its autoscaler): theirs stands.
      if (replicas != s.to) {
        return {MoveAction::Abandon, "its size was set to " + size + " meanwhile"};
      }
      if (seen.room_wanted) {
        return {MoveAction::AbandonLower, "a pod waits for room that the node could give"};
      }
      if (s.phase == MovePhase::Making) {
        if (seen.running_elsewhere >= s.from) {
          return {MoveAction::Drain, "its replacements run"};
        }
        if (waited > timeouts.make.count()) {
          return {MoveAction::AbandonLower, "its replacements did not run within " +
                                                std::to_string(timeouts.make.count()) + " s"};
        }
        return {MoveAction::Wait, "its replacements are starting"};
      }
      if (seen.drained) return {MoveAction::Lower, "its workers there are idle and paused"};
      if (waited > timeouts.drain.count()) {
        return {MoveAction::AbandonLower, "its workers there were not drained within " +
                                              std::to_string(timeouts.drain.count()) + " s"};
      }
      return {MoveAction::Wait, "its workers there are draining"};
    case MovePhase::Breaking:
      if (seen.on_node == 0) return {MoveAction::Done, "the node has none of its workers"};
      if (replicas != s.from) {
        return {MoveAction::Abandon, "its size was set to " + size + " meanwhile"};
      }
      if (waited > timeouts.brk.count()) {
        return {MoveAction::Abandon, "its workers there were not retired within " +
                                         std::to_string(timeouts.brk.count()) + " s"};
      }
      return {MoveAction::Wait, "its workers there are being retired"};
  }
  return {MoveAction::Wait, ""};
}

}  // namespace tightpack::daemon
