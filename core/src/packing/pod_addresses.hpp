// The pod addresses of a simulated cluster, as a Dask scheduler sees its
// workers' ("tcp://<pod IP>:"): upstream's retirement orders workers by them
// (dask_retirement.hpp), so the simulation hands them out as Kubernetes'
// networking does.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace tightpack::packing {

class PodAddresses {
 public:
  // A node's /24 in the order nodes join (the node IPAM controller's
  // round-robin over the cluster's range, 10.4.0.0/14 as GKE's default).
  void join(const std::string& node);
  // The node is gone: its addresses are free (its pods' were forgotten).
  void leave(const std::string& node);
  // host-local IPAM: the next free address after the last one given, .2–.254.
  void assign(const std::string& pod, const std::string& node);
  // The pod left its node: its address is free again.
  void release(const std::string& pod, const std::string& node);
  // The pod's address is gone with its node.
  void forget(const std::string& pod) { address_.erase(pod); }
  // "" for a pod without one.
  const std::string& of(const std::string& pod) const;

 private:
  int64_t node_serial_ = 0;
  std::map<std::string, std::string> subnet_;   // node → "tcp://10.a.b."
  std::map<std::string, std::set<int>> used_;   // node → last octets in use
  std::map<std::string, int> last_;             // node → last octet given
  std::map<std::string, std::string> address_;  // pod key → "tcp://<pod IP>:"
};

}  // namespace tightpack::packing
