// What the engine reads of a pod, as a tree of JSON fields, learnt from its
// decoders rather than written down beside them: decoding a probe pod with a
// log of every member the decoders look up (json_read.hpp) gives the tree.
// Whatever cuts a pod down before the engine sees it (the sidebar server's
// Kubernetes source, `tightpack strip`) cuts it to this tree, so a field a
// decoder starts reading is kept everywhere on the next build. A DaemonSet's
// pod template is learnt the same way.
//
// The tree's JSON form, which the sidebar server ships
// (labextension/jupyterlab_tightpack/sources/scheduling_fields.json):
// {"spec": {"containers": {"name": true, ...}, "tolerations": true}}. A
// member that is `true` is kept whole; one that is an object keeps those of
// its own members (of each element, for an array).
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tightpack/error.hpp"

namespace tightpack {

class FieldTree {
 public:
  // Kept whole: no member of it is singled out.
  bool whole() const { return members_.empty(); }
  // The subtree of a member; added (whole) if absent.
  FieldTree& add(std::string_view key);
  const FieldTree* find(std::string_view key) const;
  // Whether `other` keeps every member this tree names: as one of its own
  // (whole or not), or within one it keeps whole.
  bool within(const FieldTree& other) const;
  // `v` with only the fields of this tree. A value of another shape than the
  // tree expects (a string where it wants an object) is kept as it is, so that
  // a decoder finds the same error in it.
  boost::json::value keep(const boost::json::value& v) const;
  boost::json::value to_json() const;
  // Each path, e.g. "spec.containers.resources", one per line: what a test
  // failure shows.
  std::string paths() const;

  bool operator==(const FieldTree&) const = default;

 private:
  void put_paths(const std::string& prefix, std::string& out) const;

  std::vector<std::pair<std::string, FieldTree>> members_;  // sorted by key
};

// The kinds whose fields are learnt so, each from its decoder: a "Pod"
// (decode_ca_pod: cluster-autoscaler's reading of it included) and a
// "DaemonSet" (decode_daemon_set: the pod a new node starts with).
inline constexpr std::string_view kKindsWithFields[] = {"DaemonSet", "Pod"};

// What the decoders of `kind` look up, with apiVersion and kind, which lists
// dispatch on; nullptr for a kind not in kKindsWithFields.
const FieldTree* fields_read(std::string_view kind);

// {"DaemonSet": tree, "Pod": tree}: what the sidebar server ships.
boost::json::value fields_read_json();

// The object fields_read(kind) is learnt from: every object a decoder
// descends into is present, so the tree singles out the members read there.
const boost::json::value& probe_object(std::string_view kind);

// What the decoders of `kind` looked up while decoding `object`, whether or
// not it decodes. An error when a decoder looked up a member of an object that
// is not part of `object` (a copy): what it read there would be missed.
Result<FieldTree> fields_looked_up(std::string_view kind, const boost::json::value& object);

// A Kubernetes object, or a List of them, with each object of a kind in
// kKindsWithFields cut to fields_read(kind); other objects as they are. The
// items of a PodList or a DaemonSetList need not say their kind.
boost::json::value strip_objects(const boost::json::value& doc);

}  // namespace tightpack
