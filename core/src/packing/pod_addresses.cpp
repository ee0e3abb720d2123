#include "pod_addresses.hpp"

namespace tightpack::packing {

void PodAddresses::join(const std::string& node) {
  const int64_t i = node_serial_++ % 1024;
  subnet_[node] = "tcp://10." + std::to_string(4 + i / 256) + "." + std::to_string(i % 256) + ".";
}

void PodAddresses::leave(const std::string& node) {
  used_.erase(node);
  last_.erase(node);
}

void PodAddresses::assign(const std::string& pod, const std::string& node) {
  std::set<int>& used = used_[node];
  int& last = last_[node];
  for (int tries = 0; tries < 253; ++tries) {
    last = last >= 254 || last < 2 ? 2 : last + 1;
    if (used.insert(last).second) {
      address_[pod] = subnet_[node] + std::to_string(last) + ":";
      return;
    }
  }
}

void PodAddresses::release(const std::string& pod, const std::string& node) {
  auto it = address_.find(pod);
  if (it == address_.end()) return;
  const std::string& a = it->second;
  const size_t dot = a.rfind('.');
  used_[node].erase(std::stoi(a.substr(dot + 1)));
  address_.erase(it);
}

const std::string& PodAddresses::of(const std::string& pod) const {
  static const std::string kNone;
  auto it = address_.find(pod);
  return it == address_.end() ? kNone : it->second;
}

}  // namespace tightpack::packing
