// A memo from objects (by address) to a small value, for the plugins that
// match selectors against the metadata of every bound pod: open addressing
// with linear probing in two flat arrays, so that remembering tens of
// thousands of answers costs a few allocations, not one per answer. The memo
// holds a reference to each object it remembers, so that an address it knows
// is never reused by another object while it lives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace tightpack {

template <class Object, class Value>
class PointerMemo {
 public:
  // The value remembered for `object`, or, when there is none, a
  // value-initialised one just added (second: true) for the caller to fill.
  std::pair<Value*, bool> find_or_add(const std::shared_ptr<const Object>& object) {
    if ((size_ + 1) * 2 > keys_.size()) grow();
    size_t i = slot(object.get());
    while (keys_[i] && keys_[i] != object.get()) i = (i + 1) & (keys_.size() - 1);
    if (keys_[i]) return {&values_[i], false};
    keys_[i] = object.get();
    values_[i] = Value{};
    kept_.push_back(object);
    ++size_;
    return {&values_[i], true};
  }

  void clear() {
    keys_.clear();
    values_.clear();
    kept_.clear();
    size_ = 0;
  }

 private:
  size_t slot(const Object* p) const {
    // Fibonacci hashing of the address, objects being 8-aligned at least.
    const uint64_t h = (reinterpret_cast<uintptr_t>(p) >> 3) * 0x9E3779B97F4A7C15ULL;
    return static_cast<size_t>(h >> 32) & (keys_.size() - 1);
  }

  void grow() {
    std::vector<const Object*> keys(keys_.empty() ? 64 : keys_.size() * 2, nullptr);
    std::vector<Value> values(keys.size());
    keys.swap(keys_);
    values.swap(values_);
    for (size_t j = 0; j < keys.size(); ++j) {
      if (!keys[j]) continue;
      size_t i = slot(keys[j]);
      while (keys_[i]) i = (i + 1) & (keys_.size() - 1);
      keys_[i] = keys[j];
      values_[i] = std::move(values[j]);
    }
  }

  std::vector<const Object*> keys_;  // null: empty slot
  std::vector<Value> values_;
  std::vector<std::shared_ptr<const Object>> kept_;
  size_t size_ = 0;
};

}  // namespace tightpack
