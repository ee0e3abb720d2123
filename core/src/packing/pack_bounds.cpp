#include "pack_bounds.hpp"

#include <algorithm>

namespace tightpack::packing {
namespace {

const ResourceList& room_of(const PoolRoom& room, const std::string& pool) {
  static const ResourceList kNone;
  auto it = room.find(pool);
  return it == room.end() ? kNone : it->second;
}

}  // namespace

std::map<std::string, int64_t> lower_bounds(const PoolDemand& demand, const PoolRoom& room) {
  std::map<std::string, int64_t> out;
  for (const auto& [p, pods] : demand) {
    ResourceList need_list;
    for (const ResourceList& need : pods) add_resources(need_list, need);
    int64_t& bound = out[p];
    for (const auto& [name, need] : need_list) {
      if (name == "pods" || need <= 0) continue;
      const int64_t* have = find_resource(room_of(room, p), name);
      if (!have || *have <= 0) continue;
      bound = std::max(bound, (need + *have - 1) / *have);
    }
  }
  return out;
}

std::map<std::string, int64_t> repack_bounds(PoolDemand demand, const PoolRoom& room) {
  std::map<std::string, int64_t> out;
  for (auto& [p, pods] : demand) {
    const ResourceList& pool_room = room_of(room, p);
    auto share = [&](const ResourceList& need) {
      double s = 0;
      for (const auto& [name, v] : need) {
        const int64_t* have = find_resource(pool_room, name);
        if (name != "pods" && have && *have > 0)
          s = std::max(s, static_cast<double>(v) / static_cast<double>(*have));
      }
      return s;
    };
    std::stable_sort(pods.begin(), pods.end(), [&](const ResourceList& a, const ResourceList& b) {
      return share(a) > share(b);
    });
    std::vector<ResourceList> bins;  // what each node has left
    for (const ResourceList& need : pods) {
      auto fits = [&](const ResourceList& left) {
        for (const auto& [name, v] : need) {
          const int64_t* have = find_resource(left, name);
          if (name != "pods" && have && v > *have) return false;
        }
        return true;
      };
      auto bin = std::find_if(bins.begin(), bins.end(), fits);
      if (bin == bins.end()) bin = bins.insert(bins.end(), pool_room);
      for (const auto& [name, v] : need) {
        if (const int64_t* have = find_resource(*bin, name)) set_resource(*bin, name, *have - v);
      }
    }
    out[p] = static_cast<int64_t>(bins.size());
  }
  return out;
}

}  // namespace tightpack::packing
