#include "tightpack/pools/pod_removal.hpp"

#include "tightpack/error.hpp"
#include "tightpack/model.hpp"

namespace tightpack::pools {

std::string deployment_of(const autoscaler::CaPod& p) {
  if (p.controller_kind != "ReplicaSet") return "";
  const std::string* hash = find_label(p.pod.labels, "pod-template-hash");
  if (!hash || hash->empty()) return "";
  const std::string& rs = p.controller_name;
  const std::string suffix = "-" + *hash;
  if (rs.size() <= suffix.size() || !rs.ends_with(suffix)) return "";
  return p.pod.ns + "/" + rs.substr(0, rs.size() - suffix.size());
}

PodRemovalMatcher::PodRemovalMatcher(const PodRemoval& removal)
    : removal_(removal),
      pods_(removal.pods.begin(), removal.pods.end()),
      deployments_(removal.deployments.begin(), removal.deployments.end()) {}

bool PodRemovalMatcher::operator()(const autoscaler::CaPod& p) const {
  if (removal_.selector && label_selector_matches(*removal_.selector, p.pod.labels)) return true;
  if (!pods_.empty() && pods_.contains(p.pod.key())) return true;
  if (deployments_.empty()) return false;
  const std::string d = deployment_of(p);
  return !d.empty() && deployments_.contains(d);
}

std::optional<std::string> object_key_error(const std::string& key, const std::string& what) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == key.size() ||
      key.find('/', slash + 1) != std::string::npos) {
    return quote_value(key) + " is not a " + what + " reference: expected namespace/name";
  }
  return std::nullopt;
}

}  // namespace tightpack::pools
