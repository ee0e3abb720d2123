#include "daemon/published_pod.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/json_text.hpp"

namespace tightpack::daemon {
namespace {

// Amounts in the scheduler's units, printed so that core reads them back
// exactly: millicores for cpu, plain integers for the rest.
void put_resources(std::string& out, const ResourceList& list) {
  Nest o(out, '{', '}');
  for (const auto& [name, amount] : list) {
    std::string& to = o.key(name);
    to += '"';
    put_int(to, amount);
    to += name == "cpu" ? "m\"" : "\"";
  }
}

// A pod whose amounts only sum as kube-scheduler sums them as Quantities
// (GoRequests) gets its requests as they were written.
void put_quantities(std::string& out, const QuantityList& list) {
  Nest o(out, '{', '}');
  for (const auto& [name, q] : list) put_string(o.key(name), q.text());
}

void put_container(std::string& out, const Container& c, size_t i, const QuantityList* written) {
  Nest o(out, '{', '}');
  put_int(o.key("name") += "\"c", static_cast<int64_t>(i));
  out += '"';
  const bool requests = written ? !written->empty() : !c.requests.empty();
  if (requests || !c.limits.empty()) {
    Nest res(o.key("resources"), '{', '}');
    if (written && requests) put_quantities(res.key("requests"), *written);
    if (!written && requests) put_resources(res.key("requests"), c.requests);
    if (!c.limits.empty()) put_resources(res.key("limits"), c.limits);
  }
  if (std::any_of(c.ports.begin(), c.ports.end(), [](const auto& p) { return p.host_port; })) {
    Nest ports(o.key("ports"), '[', ']');
    for (const auto& p : c.ports) {
      if (p.host_port == 0) continue;
      Nest po(ports.next(), '{', '}');
      put_int(po.key("containerPort"), p.container_port);
      put_int(po.key("hostPort"), p.host_port);
      if (!p.protocol.empty()) put_string(po.key("protocol"), p.protocol);
      if (!p.host_ip.empty()) put_string(po.key("hostIP"), p.host_ip);
    }
  }
  if (c.restart_always) put_string(o.key("restartPolicy"), "Always");
}

void put_tolerations(std::string& out, const std::vector<Toleration>& list) {
  Nest a(out, '[', ']');
  for (const auto& t : list) {
    Nest o(a.next(), '{', '}');
    if (!t.key.empty()) put_string(o.key("key"), t.key);
    if (!t.op.empty()) put_string(o.key("operator"), t.op);
    if (!t.value.empty()) put_string(o.key("value"), t.value);
    if (!t.effect.empty()) put_string(o.key("effect"), t.effect);
    if (t.seconds) put_int(o.key("tolerationSeconds"), *t.seconds);
  }
}

// What cluster-autoscaler's drain rules read, nothing else.
bool published_annotation(std::string_view key) {
  return key.starts_with("cluster-autoscaler.kubernetes.io/") ||
         key == "kubernetes.io/config.mirror";
}

// A mirror pod's annotation says only that it is one.
std::string published_annotation_value(std::string_view key, const std::string& value) {
  return key == "kubernetes.io/config.mirror" ? "mirror" : value;
}

void put_labels(std::string& out, const Labels& l) {
  Nest o(out, '{', '}');
  for (const auto& [k, v] : l) put_string(o.key(k), v);
}

}  // namespace

std::string published_template(const autoscaler::CaPod& ca) {
  std::string out;
  {
    const Pod& p = ca.pod;
    Nest pod(out, '{', '}');
    {
      Nest meta(pod.key("metadata"), '{', '}');
      // The cache keeps annotations sorted by key, as the decoder reads them.
      if (std::any_of(p.annotations.begin(), p.annotations.end(),
                      [](const auto& kv) { return published_annotation(kv.first); })) {
        Nest a(meta.key("annotations"), '{', '}');
        for (const auto& [k, v] : p.annotations) {
          if (published_annotation(k)) put_string(a.key(k), published_annotation_value(k, v));
        }
      }
      if (!ca.controller_kind.empty()) {
        Nest refs(meta.key("ownerReferences"), '[', ']');
        Nest ref(refs.next(), '{', '}');
        put_string(ref.key("apiVersion"), "v1");
        put_string(ref.key("kind"), ca.controller_kind);
        put_string(ref.key("uid"), "");
        ref.key("controller") += "true";
      }
    }
    {
      Nest spec(pod.key("spec"), '{', '}');
      put_int(spec.key("priority"), p.priority);
      const GoRequests* written = p.go_requests ? p.go_requests.requests.get() : nullptr;
      auto at = [](const std::vector<QuantityList>& lists, size_t i) {
        return i < lists.size() ? &lists[i] : nullptr;
      };
      {
        Nest containers(spec.key("containers"), '[', ']');
        for (size_t i = 0; i < p.containers.size(); ++i)
          put_container(containers.next(), p.containers[i], i,
                        written ? at(written->containers, i) : nullptr);
      }
      if (!p.init_containers.empty()) {
        Nest inits(spec.key("initContainers"), '[', ']');
        for (size_t i = 0; i < p.init_containers.size(); ++i)
          put_container(inits.next(), p.init_containers[i], i,
                        written ? at(written->init_containers, i) : nullptr);
      }
      if (written ? !written->overhead.empty() : !p.overhead.empty()) {
        if (written) {
          put_quantities(spec.key("overhead"), written->overhead);
        } else {
          put_resources(spec.key("overhead"), p.overhead);
        }
      }
      if (written ? !written->pod_requests.empty() : !p.pod_requests.empty()) {
        Nest res(spec.key("resources"), '{', '}');
        if (written) {
          put_quantities(res.key("requests"), written->pod_requests);
        } else {
          put_resources(res.key("requests"), p.pod_requests);
        }
      }
      if (!p.tolerations.empty()) put_tolerations(spec.key("tolerations"), p.tolerations);
      if (!p.node_selector.empty()) put_labels(spec.key("nodeSelector"), p.node_selector);
      if (!ca.local_volumes.empty()) {
        Nest volumes(spec.key("volumes"), '[', ']');
        for (size_t i = 0; i < ca.local_volumes.size(); ++i) {
          put_int(volumes.next() += R"({"name":"v)", static_cast<int64_t>(i));
          out += R"(","emptyDir":{}})";
        }
      }
    }
    Nest status(pod.key("status"), '{', '}');
    put_string(status.key("phase"), p.phase.empty() ? "Running" : p.phase);
  }
  return out;
}

autoscaler::CaPod published_view(const autoscaler::CaPod& ca) {
  autoscaler::CaPod v = ca;
  Pod& p = v.pod;
  // The snapshot puts in the pod's pseudonyms, its node and its owner's
  // pseudonym; the template names none of them.
  p.name.clear();
  p.ns = "default";
  p.uid.clear();
  p.node_name.clear();
  v.controller_name.clear();
  if (v.controller_kind.empty()) {
    p.controller.reset();  // a controller reference without a kind says nothing
  } else {
    p.controller = OwnerReference{"v1", v.controller_kind, "", ""};
  }
  // Nothing that names a user, an image or a label: other users' pods count
  // for room, not for selectors (affinity, spread) or images.
  p.labels = Labels{};
  auto anonymous = [](const std::vector<Container>& list) {
    std::vector<Container> out = list;
    for (size_t i = 0; i < out.size(); ++i) {
      out[i].name = "c" + std::to_string(i);
      out[i].image.clear();
      std::erase_if(out[i].ports, [](const ContainerPort& port) { return port.host_port == 0; });
    }
    return out;
  };
  p.containers = anonymous(p.containers);
  p.init_containers = anonymous(p.init_containers);
  p.image_volumes.clear();
  p.scheduler_name.clear();
  // What only the pod's own placement reads: it is placed already.
  p.node_affinity = NodeAffinity{};
  p.pod_affinity_terms.clear();
  p.topology_spread.clear();
  p.preempt_never = false;
  p.nominated_node_name.clear();
  p.scheduling_gated = false;
  p.resource_claims = false;
  // Its claims are its user's (a user's own come from /home); its local
  // volumes only say that it has some (cluster-autoscaler's drain rule).
  p.volumes.clear();
  for (size_t i = 0; i < v.local_volumes.size(); ++i) v.local_volumes[i] = "v" + std::to_string(i);
  // Times would follow a pod from one snapshot to the next, which the
  // pseudonyms, drawn again for each, are there to prevent.
  p.creation_timestamp.clear();
  p.deletion_timestamp.clear();
  p.start_time.clear();
  v.created.reset();
  v.grace_period.reset();
  if (p.phase.empty()) p.phase = "Running";
  std::erase_if(p.annotations, [](const auto& kv) { return !published_annotation(kv.first); });
  for (auto& [k, value] : p.annotations) value = published_annotation_value(k, value);
  return v;
}

}  // namespace tightpack::daemon
