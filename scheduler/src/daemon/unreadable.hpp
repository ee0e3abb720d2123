// Objects the daemon cannot decode, made visible and conservative instead of
// left out. kube-apiserver accepts more than any decoder can promise to read;
// an object tightpack cannot read must never make it overcommit a node, and
// must never go unexplained:
// - a DELETE is applied by the object's key, read before anything else;
// - a bound pod it cannot read is replaced by a stand-in that fills its node
//   (no other pod with requests fits there; it is never a preemption victim
//   and, having no controller, blocks the node's scale-down);
// - a pending pod of its own gets a FailedScheduling event and a PodScheduled
//   condition naming the field (scheduler.cpp);
// - a node it cannot read is not schedulable until it can be read.
// Each is named in a log line and counted in tightpack_unreadable_objects.
#pragma once

#include <boost/json/value.hpp>
#include <optional>
#include <string>

#include "tightpack/autoscaler/scenario.hpp"

namespace tightpack::daemon {

// metadata.name, and "namespace/name" for namespaced objects: what a watch
// event's key is, read without decoding the rest.
std::optional<std::string> object_name(const boost::json::value& v);
std::optional<std::string> pod_key(const boost::json::value& v);

// What is read of a pod that does not decode: only strings, each where it is
// one.
struct UnreadablePod {
  std::string ns, name, uid, node_name, scheduler_name, phase;
  bool deleting = false;
  std::string error;  // the decoder's message, its JSON path first

  std::string key() const { return ns + "/" + name; }
  bool holds_node() const {
    return !node_name.empty() && phase != "Succeeded" && phase != "Failed";
  }
};
std::optional<UnreadablePod> read_unreadable_pod(const boost::json::value& v, std::string error);

// The stand-in for a bound pod that cannot be read: its name and node, and
// requests no node has room beside (2^62 millicores, bytes of memory and of
// ephemeral storage), priority 2^31 - 1, annotated
// tightpack.io/unreadable with the path the decoder stopped at (not its value:
// /snapshot publishes the stand-in to every user).
autoscaler::CaPod filling_pod(const UnreadablePod& pod);

// The JSON path at the front of a decoder's message ("$.spec.containers[0]…"),
// or the whole message when it has none.
std::string error_path(const std::string& error);

}  // namespace tightpack::daemon
