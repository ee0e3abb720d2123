// The mover's reads and writes of the dask-kubernetes operator's objects:
// a worker group's size (every write conditional on the resourceVersion
// read), a move's state on its DaskCluster, whether a DaskAutoscaler exists,
// and the moves a former leader began, undone.
#include <boost/json.hpp>

#include "daemon/dask_operator_api.hpp"
#include "daemon/json_fields.hpp"
#include "daemon/mover.hpp"
#include "daemon/write_fence.hpp"
#include "log.hpp"

namespace tightpack::daemon {
namespace json = boost::json;

std::optional<std::chrono::milliseconds> Mover::budget() const {
  return write_budget(valid_until_, std::chrono::seconds(10));
}

std::optional<Mover::Group> Mover::get_group(const std::string& ns, const std::string& name,
                                             bool& gone) {
  gone = false;
  auto r = api_.request("GET", dask_path("daskworkergroups", ns, name));
  if (!r) {
    log_warning("move: cannot read DaskWorkerGroup " + ns + "/" + name + ": " + r.error().what());
    return std::nullopt;
  }
  if (r->status == 404) {
    gone = true;
    return std::nullopt;
  }
  if (!r->ok()) {
    log_warning("move: cannot read DaskWorkerGroup " + ns + "/" + name + ": " +
                kube::api_error_text(*r));
    return std::nullopt;
  }
  boost::system::error_code ec;
  const json::value v = json::parse(r->body, ec);
  const json::object* spec = ec ? nullptr : object_at(v, "spec");
  const json::value* worker_value = spec ? spec->if_contains("worker") : nullptr;
  const json::object* worker = worker_value ? worker_value->if_object() : nullptr;
  const json::value* replicas = worker ? worker->if_contains("replicas") : nullptr;
  if (!replicas || !replicas->is_int64()) {
    log_warning("move: DaskWorkerGroup " + ns + "/" + name + " has no spec.worker.replicas");
    return std::nullopt;
  }
  Group g;
  g.replicas = replicas->get_int64();
  g.resource_version = string_at(object_at(v, "metadata"), "resourceVersion");
  return g;
}

bool Mover::set_replicas(const std::string& ns, const std::string& group, const Group& seen,
                         int64_t replicas) {
  const auto b = budget();
  if (!b) return false;
  // The resourceVersion makes the write conditional: a size set since is the user's.
  const json::object patch{
      {"metadata", json::object{{"resourceVersion", seen.resource_version}}},
      {"spec", json::object{{"worker", json::object{{"replicas", replicas}}}}}};
  auto r = api_.request("PATCH", dask_path("daskworkergroups", ns, group), json::serialize(patch),
                        "application/merge-patch+json", *b);
  if (r && r->ok()) return true;
  log_warning("move: DaskWorkerGroup " + ns + "/" + group + " not set to " +
              std::to_string(replicas) +
              " replicas: " + (r ? kube::api_error_text(*r) : std::string(r.error().what())));
  if (!r || r->status != 409) metrics_.api_error();
  return false;
}

bool Mover::write_state(const Move& move, bool remove) {
  const auto b = budget();
  if (!b) return false;
  json::value value = nullptr;
  if (!remove) value = json::string(encode_move_state(move.state));
  const json::object patch{
      {"metadata",
       json::object{{"annotations", json::object{{std::string(kMoveStateAnnotation), value}}}}}};
  auto r = api_.request("PATCH", dask_path("daskclusters", move.ns, move.cluster),
                        json::serialize(patch), "application/merge-patch+json", *b);
  if (r && (r->ok() || (remove && r->status == 404))) return true;
  log_warning("move: the state on DaskCluster " + move.key() +
              " not written: " + (r ? kube::api_error_text(*r) : std::string(r.error().what())));
  metrics_.api_error();
  return false;
}

std::optional<bool> Mover::exists(const std::string& path) {
  auto r = api_.request("GET", path);
  if (r && r->ok()) return true;
  if (r && r->status == 404) return false;
  // A 403 (no right to read it) or a timeout says nothing either way.
  log_warning("move: cannot tell whether " + path +
              " exists: " + (r ? kube::api_error_text(*r) : std::string(r.error().what())));
  if (!r || r->status != 403) metrics_.api_error();
  return std::nullopt;
}

void Mover::recover() {
  // Moves a former leader began: undone, as after any failure. The user's
  // size is restored only where the group is still at the move's.
  auto r = api_.request("GET", std::string(kDaskApi) + "/daskclusters");
  if (!r || !r->ok()) {
    if (r && r->status != 404) {
      log_warning("move: cannot list DaskClusters to undo moves a former leader began: " +
                  kube::api_error_text(*r));
    }
    return;
  }
  boost::system::error_code ec;
  const json::value v = json::parse(r->body, ec);
  const json::value* items = ec || !v.is_object() ? nullptr : v.get_object().if_contains("items");
  if (!items || !items->is_array()) return;
  for (const json::value& item : items->get_array()) {
    const json::object* meta = object_at(item, "metadata");
    const json::value* annotations_value = meta ? meta->if_contains("annotations") : nullptr;
    const json::object* annotations = annotations_value ? annotations_value->if_object() : nullptr;
    const std::string text = string_at(annotations, kMoveStateAnnotation);
    if (text.empty()) continue;
    Move move{string_at(meta, "namespace"), string_at(meta, "name"), {}};
    auto state = decode_move_state(text);
    if (!state) {
      log_warning("move: DaskCluster " + move.key() + ": " + state.error().what() +
                  "; the annotation is removed");
      write_state(move, true);
      continue;
    }
    move.state = *state;
    bool gone = false;
    auto group = get_group(move.ns, move.state.worker_group, gone);
    if (group && move.state.phase != MovePhase::Breaking && group->replicas == move.state.to) {
      set_replicas(move.ns, move.state.worker_group, *group, move.state.from);
    }
    log_info("move: undone, begun by " + move.state.by + " (" +
             std::string(phase_name(move.state.phase)) + "): " + move.key() + " off " +
             move.state.node);
    end(move, false, "begun by a former leader");
  }
}

}  // namespace tightpack::daemon
