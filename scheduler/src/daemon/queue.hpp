// kube-scheduler's scheduling queue, reduced to what a batch of Dask workers
// needs: an active queue by priority then age, a backoff queue, and the
// unschedulable pods that wait for a cluster event (a node added or changed, a
// bound pod gone) or for five minutes, whichever comes first.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace tightpack::daemon {

using Clock = std::chrono::steady_clock;

class SchedulingQueue {
 public:
  SchedulingQueue(std::chrono::milliseconds initial_backoff, std::chrono::milliseconds max_backoff)
      : initial_backoff_(initial_backoff), max_backoff_(max_backoff) {}

  // A pending pod appeared or changed: active at once, unless it already
  // waits (a change of a waiting pod retries it, as an update may make it fit).
  void add(const std::string& key, int32_t priority, const std::string& created,
           Clock::time_point now);
  void remove(const std::string& key);
  bool contains(const std::string& key) const { return entries_.count(key) != 0; }

  // The next pod to schedule, if one is ready.
  std::optional<std::string> pop(Clock::time_point now);
  // When pop() may next return a pod (an expiring backoff), if ever without an event.
  std::optional<Clock::time_point> next_ready(Clock::time_point now) const;

  // The pod fits nowhere now: it waits for a cluster event.
  void unschedulable(const std::string& key, Clock::time_point now);
  // The attempt failed for another reason (an API error): retried after its backoff.
  void backoff(const std::string& key, Clock::time_point now);
  // A cluster event that may make waiting pods fit: each goes to backoff (or
  // active when its backoff is over).
  void move_all(Clock::time_point now);

  struct Counts {
    size_t active = 0, backoff = 0, unschedulable = 0;
  };
  Counts counts() const;
  size_t size() const { return entries_.size(); }
  std::vector<std::string> keys() const;

 private:
  enum class Where : uint8_t { Active, Backoff, Unschedulable, Popped };
  struct Order {
    int32_t priority;
    std::string created;
    std::string key;
    bool operator<(const Order& o) const {
      if (priority != o.priority) return priority > o.priority;
      if (created != o.created) return created < o.created;
      return key < o.key;
    }
  };
  struct Entry {
    Order order;
    Where where = Where::Active;
    int attempts = 0;
    Clock::time_point last_attempt{};
    Clock::time_point backoff_until{};
    Clock::time_point unschedulable_since{};
  };

  void to_active(Entry& e);
  void to_backoff(Entry& e, Clock::time_point now);
  void leave(Entry& e);
  Clock::duration backoff_of(const Entry& e) const;

  std::chrono::milliseconds initial_backoff_, max_backoff_;
  std::unordered_map<std::string, Entry> entries_;
  std::set<Order> active_;
  std::multimap<Clock::time_point, std::string> backoff_;
  std::map<Clock::time_point, std::set<std::string>>
      unschedulable_;  // by time it became unschedulable
  size_t unschedulable_count_ = 0;
};

// kube-scheduler retries an unschedulable pod after at most this long
// (podMaxInUnschedulablePodsDuration), event or not.
inline constexpr std::chrono::minutes kMaxInUnschedulable{5};

}  // namespace tightpack::daemon
