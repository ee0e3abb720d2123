// A part of a pod that many pods hold alike (a toleration set, a label set,
// the containers' requests), kept once: copies share it, a change copies it
// first. The in-cluster scheduler keeps 150,000 pods; the same three
// tolerations written out for each took 823 bytes a pod (bench/RESULTS.md),
// and any pod creator can add more. Reads look like the value's own (range
// for, size, [], a `const T&` argument); Interner makes equal ones one.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <unordered_map>
#include <utility>

namespace tightpack {

template <class T>
class Shared {
 public:
  using value_type = typename T::value_type;
  using const_iterator = typename T::const_iterator;

  Shared() = default;
  Shared(T value) { *this = std::move(value); }  // NOLINT(google-explicit-constructor)
  Shared& operator=(T value) {
    p_ = value.empty() ? nullptr : std::make_shared<const T>(std::move(value));
    return *this;
  }
  Shared& operator=(std::initializer_list<value_type> items) { return *this = T(items); }

  const T& get() const { return p_ ? *p_ : empty_value(); }
  operator const T&() const { return get(); }  // NOLINT(google-explicit-constructor)

  // The value to change: this holder's own copy from now on.
  T& mut() {
    if (!p_) {
      p_ = std::make_shared<const T>();
    } else if (p_.use_count() > 1) {
      p_ = std::make_shared<const T>(*p_);
    }
    return const_cast<T&>(*p_);  // NOLINT(cppcoreguidelines-pro-type-const-cast): sole owner
  }

  const_iterator begin() const { return get().begin(); }
  const_iterator end() const { return get().end(); }
  size_t size() const { return get().size(); }
  bool empty() const { return get().empty(); }
  const value_type& operator[](size_t i) const { return get()[i]; }
  const value_type& front() const { return get().front(); }
  const value_type& back() const { return get().back(); }

  template <class... Args>
  value_type& emplace_back(Args&&... args) {
    return mut().emplace_back(std::forward<Args>(args)...);
  }
  void push_back(value_type v) { mut().push_back(std::move(v)); }
  void clear() { p_.reset(); }

  bool operator==(const Shared& o) const { return p_ == o.p_ || get() == o.get(); }
  bool operator==(const T& o) const { return get() == o; }

  // For Interner: the held value, or null when empty.
  const std::shared_ptr<const T>& held() const { return p_; }
  void hold(std::shared_ptr<const T> p) { p_ = std::move(p); }

 private:
  static const T& empty_value() {
    static const T kEmpty;
    return kEmpty;
  }
  std::shared_ptr<const T> p_;
};

// Makes equal values one: each kept value is looked up by `Hash` and, when
// an equal one is held already, shares it. Values no longer held by anyone
// but the interner are let go by sweep(), which runs as the table doubles.
template <class T, class Hash>
class Interner {
 public:
  void intern(Shared<T>& s) {
    const std::shared_ptr<const T>& p = s.held();
    if (!p) return;
    const size_t h = Hash{}(*p);
    auto [first, last] = table_.equal_range(h);
    for (auto it = first; it != last; ++it) {
      if (it->second == p) return;
      if (*it->second == *p) {
        s.hold(it->second);
        return;
      }
    }
    table_.emplace(h, p);
    if (table_.size() >= 2 * swept_size_ + 1024) sweep();
  }

  void sweep() {
    for (auto it = table_.begin(); it != table_.end();) {
      it = it->second.use_count() == 1 ? table_.erase(it) : std::next(it);
    }
    swept_size_ = table_.size();
  }

  size_t size() const { return table_.size(); }

 private:
  std::unordered_multimap<size_t, std::shared_ptr<const T>> table_;
  size_t swept_size_ = 0;
};

}  // namespace tightpack
