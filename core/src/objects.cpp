#include "tightpack/objects.hpp"

namespace tightpack {
namespace {

std::string key_of(std::string_view ns, std::string_view name) {
  std::string out;
  out.reserve(ns.size() + 1 + name.size());
  out.append(ns).append("/").append(name);  // neither a namespace nor a name holds '/'
  return out;
}

template <class List, class Index>
void index(const List& list, Index& into) {
  for (uint32_t i = 0; i < list.size(); ++i) into.try_emplace(key_of(list[i].ns, list[i].name), i);
}

template <class T, class Index>
const T* find(const std::vector<T>& list, const Index& index, std::string_view ns,
              std::string_view name) {
  auto it = index.find(key_of(ns, name));
  return it == index.end() ? nullptr : &list[it->second];
}

}  // namespace

OwnerIndex::OwnerIndex(const ApiObjects& objects) {
  index(objects.replica_sets, replica_sets_);
  index(objects.stateful_sets, stateful_sets_);
  index(objects.replication_controllers, replication_controllers_);
}

const SelectorObject* OwnerIndex::replica_set(const ApiObjects& o, std::string_view ns,
                                              std::string_view name) const {
  return find(o.replica_sets, replica_sets_, ns, name);
}
const SelectorObject* OwnerIndex::stateful_set(const ApiObjects& o, std::string_view ns,
                                               std::string_view name) const {
  return find(o.stateful_sets, stateful_sets_, ns, name);
}
const MapSelectorObject* OwnerIndex::replication_controller(const ApiObjects& o,
                                                            std::string_view ns,
                                                            std::string_view name) const {
  return find(o.replication_controllers, replication_controllers_, ns, name);
}

}  // namespace tightpack
