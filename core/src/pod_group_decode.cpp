// A PodGroup of the /snapshot answer: pods that differ only by name,
// namespace, node and owner name, their shared Pod written once. The in-cluster
// scheduler publishes its bound pods this way (docs/scheduler.md): on a hub of
// 150,000 pods the expanded List weighs ~120 MB, almost all of it the same
// tolerations and resources again. Expanded here, before any decoder sees a
// pod, so that every reader of a List reads grouped pods as the pods they are.
#include "decode_detail.hpp"
#include "tightpack/decode.hpp"

namespace tightpack::decode_detail {

using namespace json_read;

Fail visit_pod_group(const json::object& group, const JsonPath& path, const ObjectVisitor& visit) {
  const JsonPath template_path = path.field("template");
  const JsonPath meta_path = template_path.field("metadata");
  const JsonPath pods_path = path.field("pods");
  const json::value* tv = member(group, "template");
  if (!tv) return value_error(template_path, "a PodGroup needs a template Pod");
  const json::object* tmpl = nullptr;
  TP_TRY(as_object(*tv, template_path, tmpl));
  const json::object* meta = nullptr;
  if (const json::value* m = member(*tmpl, "metadata")) TP_TRY(as_object(*m, meta_path, meta));
  const bool owned = meta && member(*meta, "ownerReferences");
  const json::value* members = member(group, "pods");
  if (!members) return std::nullopt;
  const json::array* list = nullptr;
  TP_TRY(as_array(*members, pods_path, list));
  const size_t fields = owned ? 4 : 3;
  for (size_t i = 0; i < list->size(); ++i) {
    const JsonPath ip = pods_path.index(static_cast<int64_t>(i));
    const json::array* names = nullptr;
    TP_TRY(as_array((*list)[i], ip, names));
    if (names->size() != fields) {
      return value_error(ip, owned ? "expected [name, namespace, nodeName, owner name]"
                                   : "expected [name, namespace, nodeName]");
    }
    for (size_t k = 0; k < fields; ++k) {
      if (!(*names)[k].is_string())
        return type_error(ip.index(static_cast<int64_t>(k)), "a string", (*names)[k]);
    }
    json::value pod(*tmpl);
    json::object& p = pod.as_object();
    p["apiVersion"] = "v1";
    p["kind"] = "Pod";
    json::value& m = p["metadata"];
    if (!m.is_object()) m = json::object();
    m.as_object()["name"] = (*names)[0];
    m.as_object()["namespace"] = (*names)[1];
    if (owned) {
      json::value& refs = m.as_object()["ownerReferences"];
      if (!refs.is_array() || refs.as_array().size() != 1 || !refs.as_array()[0].is_object()) {
        return value_error(meta_path.field("ownerReferences"),
                           "a PodGroup's template names one owner");
      }
      refs.as_array()[0].as_object()["name"] = (*names)[3];
    }
    if (!(*names)[2].as_string().empty()) {
      json::value& spec = p["spec"];
      if (!spec.is_object()) spec = json::object();
      spec.as_object()["nodeName"] = (*names)[2];
    }
    if (auto s = visit("Pod", pod, ip); !s) return s.error();
  }
  return std::nullopt;
}

}  // namespace tightpack::decode_detail
