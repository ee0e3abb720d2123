// JSON text through the Kubernetes object decoder: parse_json, then
// decode_objects (Lists, NodeLists, PodLists, single objects, {nodes, pods})
// and decode_pod / decode_node on the same document. Refusals are fine; what
// is decoded must hold the invariants the rest of the engine relies on, and a
// pod cut to the fields the decoders read must decode alike.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/scheduling_fields.hpp"

namespace {

using tightpack::ResourceList;

void check(bool ok) {
  if (!ok) std::abort();
}

// Every refusal names what is wrong; rendering it walks the JSON path.
void check_error(const tightpack::Error& e) {
  check(!e.message.empty() && !e.what().empty());
}

// find_resource() binary-searches, and the decoder refuses negative quantities.
void check_resources(const ResourceList& list) {
  check(std::is_sorted(list.begin(), list.end()));
  for (const auto& [name, amount] : list) check(amount >= 0);
}

void check_pod(const tightpack::Pod& pod) {
  check(!pod.ns.empty());  // a missing namespace is "default"
  check(std::is_sorted(pod.labels.begin(), pod.labels.end()));
  check(std::is_sorted(pod.node_selector.begin(), pod.node_selector.end()));
  for (const auto* containers : {&pod.containers, &pod.init_containers}) {
    for (const auto& c : *containers) {
      check_resources(c.requests);
      check_resources(c.limits);
      // API defaulting: every limit has a request.
      for (const auto& [name, amount] : c.limits) check(tightpack::find_resource(c.requests, name));
    }
  }
  check_resources(pod.overhead);
  check_resources(pod.pod_requests);
}

void check_node(const tightpack::Node& node) {
  check(!node.name.empty());
  check(std::is_sorted(node.labels.begin(), node.labels.end()));
  check_resources(node.allocatable);
  check_resources(node.capacity);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = tightpack::parse_json(text);
  if (!doc.ok()) {
    check_error(doc.error());
    return 0;
  }
  const tightpack::JsonPath root;
  tightpack::ClusterObjects objects;
  auto status = tightpack::decode_objects(*doc, root, objects);
  if (status.ok()) {
    for (const auto& node : objects.nodes) check_node(node);
    for (const auto& pod : objects.pods) check_pod(pod);
  } else {
    check_error(status.error());
  }
  if (auto pod = tightpack::decode_pod(*doc, root); pod.ok()) {
    check_pod(*pod);
  } else {
    check_error(pod.error());
  }
  // Cut to what the decoders read (scheduling_fields.hpp), a pod decodes
  // alike, or fails alike: what the sidebar server and `tightpack strip` rely on.
  const auto full = tightpack::autoscaler::decode_ca_pod(*doc, root);
  const auto cut =
      tightpack::autoscaler::decode_ca_pod(tightpack::fields_read("Pod")->keep(*doc), root);
  check(full.ok() == cut.ok());
  check(full.ok() ? *full == *cut : full.error().what() == cut.error().what());
  if (auto node = tightpack::decode_node(*doc, root); node.ok()) {
    check_node(*node);
  } else {
    check_error(node.error());
  }
  // A bare quantity document, as a resource map's value would hold it.
  for (std::string_view resource : {"cpu", "memory"}) {
    if (auto amount = tightpack::resource_amount(resource, *doc); amount.ok()) {
      check(*amount >= 0);
    } else {
      check_error(amount.error());
    }
  }
  return 0;
}
