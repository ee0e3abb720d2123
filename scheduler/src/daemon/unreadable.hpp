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
#include "tightpack/error.hpp"

namespace tightpack::daemon {

// What is read of a pod that does not decode: only strings, each where it is
// one (json_fields.hpp); its key as watched_key (object_store.hpp) reads it.
struct UnreadablePod {
  std::string ns, name, uid, node_name, scheduler_name, phase;
  bool deleting = false;
  std::string path;   // where the decoder stopped (Error::path)
  std::string error;  // the decoder's whole message, path first

  std::string key() const { return ns + "/" + name; }
  bool holds_node() const {
    return !node_name.empty() && phase != "Succeeded" && phase != "Failed";
  }
};
std::optional<UnreadablePod> read_unreadable_pod(const boost::json::value& v, const Error& error);

// The stand-in for a bound pod that cannot be read: its name and node, and
// requests no node has room beside (2^49 millicores, bytes of memory and of
// ephemeral storage), priority 2^31 - 1, annotated kUnreadableAnnotation with
// the path the decoder stopped at, never the value there (the message quotes
// it, and the cache keeps what it annotates).
inline constexpr const char* kUnreadableAnnotation = "tightpack.io/unreadable";
autoscaler::CaPod filling_pod(const UnreadablePod& pod);

}  // namespace tightpack::daemon
