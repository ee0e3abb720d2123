#include "daemon/queue.hpp"

#include <algorithm>

namespace tightpack::daemon {

Clock::duration SchedulingQueue::backoff_of(const Entry& e) const {
  Clock::duration d = initial_backoff_;
  for (int i = 1; i < e.attempts && d < max_backoff_; ++i) d *= 2;
  return std::min<Clock::duration>(d, max_backoff_);
}

void SchedulingQueue::leave(Entry& e) {
  switch (e.where) {
    case Where::Active:
      active_.erase(e.order);
      break;
    case Where::Backoff:
      for (auto [it, end] = backoff_.equal_range(e.backoff_until); it != end; ++it) {
        if (it->second == e.order.key) {
          backoff_.erase(it);
          break;
        }
      }
      break;
    case Where::Unschedulable:
      if (auto it = unschedulable_.find(e.unschedulable_since); it != unschedulable_.end()) {
        it->second.erase(e.order.key);
        if (it->second.empty()) unschedulable_.erase(it);
      }
      --unschedulable_count_;
      break;
    case Where::Popped:
      break;
  }
}

void SchedulingQueue::to_active(Entry& e) {
  leave(e);
  e.where = Where::Active;
  active_.insert(e.order);
}

void SchedulingQueue::to_backoff(Entry& e, Clock::time_point now) {
  leave(e);
  // Backoff runs from the last attempt, as kube-scheduler's does: a pod that
  // waited long enough for its event goes straight back to active.
  e.backoff_until = e.attempts == 0 ? now : e.last_attempt + backoff_of(e);
  if (e.backoff_until <= now) {
    e.where = Where::Active;
    active_.insert(e.order);
    return;
  }
  e.where = Where::Backoff;
  backoff_.emplace(e.backoff_until, e.order.key);
}

void SchedulingQueue::add(const std::string& key, int32_t priority, const std::string& created,
                          Clock::time_point now) {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    Entry e;
    e.order = Order{priority, created, key};
    auto& inserted = entries_.emplace(key, std::move(e)).first->second;
    active_.insert(inserted.order);
    return;
  }
  Entry& e = it->second;
  if (e.order.priority != priority) {
    leave(e);
    e.order.priority = priority;
    e.where = Where::Popped;
  }
  if (e.where == Where::Unschedulable || e.where == Where::Popped) to_backoff(e, now);
}

void SchedulingQueue::remove(const std::string& key) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  leave(it->second);
  entries_.erase(it);
}

std::optional<std::string> SchedulingQueue::pop(Clock::time_point now) {
  while (!backoff_.empty() && backoff_.begin()->first <= now) {
    const std::string key = backoff_.begin()->second;
    backoff_.erase(backoff_.begin());
    Entry& e = entries_.at(key);
    e.where = Where::Active;
    active_.insert(e.order);
  }
  while (!unschedulable_.empty() && unschedulable_.begin()->first + kMaxInUnschedulable <= now) {
    const std::set<std::string> keys = std::move(unschedulable_.begin()->second);
    unschedulable_.erase(unschedulable_.begin());
    for (const auto& key : keys) {
      Entry& e = entries_.at(key);
      --unschedulable_count_;
      e.where = Where::Popped;
      to_backoff(e, now);
    }
  }
  if (active_.empty()) return std::nullopt;
  const Order first = *active_.begin();
  active_.erase(active_.begin());
  Entry& e = entries_.at(first.key);
  e.where = Where::Popped;
  ++e.attempts;
  e.last_attempt = now;
  return first.key;
}

std::optional<Clock::time_point> SchedulingQueue::next_ready(Clock::time_point now) const {
  if (!active_.empty()) return now;
  std::optional<Clock::time_point> next;
  if (!backoff_.empty()) next = backoff_.begin()->first;
  if (!unschedulable_.empty()) {
    const auto flush = unschedulable_.begin()->first + kMaxInUnschedulable;
    if (!next || flush < *next) next = flush;
  }
  return next;
}

void SchedulingQueue::unschedulable(const std::string& key, Clock::time_point now) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  Entry& e = it->second;
  leave(e);
  e.where = Where::Unschedulable;
  e.unschedulable_since = now;
  unschedulable_[now].insert(key);
  ++unschedulable_count_;
}

void SchedulingQueue::backoff(const std::string& key, Clock::time_point now) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  to_backoff(it->second, now);
}

void SchedulingQueue::move_all(Clock::time_point now) {
  auto waiting = std::move(unschedulable_);
  unschedulable_.clear();
  for (auto& [since, keys] : waiting) {
    for (const auto& key : keys) {
      Entry& e = entries_.at(key);
      --unschedulable_count_;
      e.where = Where::Popped;
      to_backoff(e, now);
    }
  }
}

std::vector<std::string> SchedulingQueue::keys() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& [key, e] : entries_) out.push_back(key);
  return out;
}

SchedulingQueue::Counts SchedulingQueue::counts() const {
  return Counts{active_.size(), backoff_.size(), unschedulable_count_};
}

}  // namespace tightpack::daemon
