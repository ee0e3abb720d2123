#include "tightpack/model.hpp"

#include <algorithm>

#include "tightpack/go_int.hpp"

namespace tightpack {
namespace {

template <class Vec>
auto lower(Vec& list, std::string_view key) {
  return std::lower_bound(list.begin(), list.end(), key,
                          [](const auto& e, std::string_view k) { return e.first < k; });
}

}  // namespace

const int64_t* find_resource(const ResourceList& list, std::string_view name) {
  auto it = lower(list, name);
  return it != list.end() && it->first == name ? &it->second : nullptr;
}

void set_resource(ResourceList& list, std::string_view name, int64_t value) {
  auto it = lower(list, name);
  if (it != list.end() && it->first == name) {
    it->second = value;
  } else {
    list.emplace(it, std::string(name), value);
  }
}

void add_resources(ResourceList& into, const ResourceList& other) {
  for (const auto& [name, value] : other) {
    const int64_t* have = find_resource(into, name);
    // kube-scheduler sums requests as Quantities and reads the sum back with
    // Value()/MilliValue(), which keep its low 64 bits: Go's wrap-around.
    set_resource(into, name, go_add(have ? *have : 0, value));
  }
}

void max_resources(ResourceList& into, const ResourceList& other) {
  for (const auto& [name, value] : other) {
    const int64_t* have = find_resource(into, name);
    if (!have || *have < value) set_resource(into, name, value);
  }
}

const std::string* find_label(const Labels& labels, std::string_view key) {
  auto it = lower(labels, key);
  return it != labels.end() && it->first == key ? &it->second : nullptr;
}

bool Toleration::tolerates(const Taint& taint) const {
  if (!effect.empty() && effect != taint.effect) return false;
  if (!key.empty() && key != taint.key) return false;
  if (op.empty() || op == "Equal") return value == taint.value;
  return op == "Exists";
}

bool tolerations_tolerate(const std::vector<Toleration>& tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& t) { return t.tolerates(taint); });
}

}  // namespace tightpack
