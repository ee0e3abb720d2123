// client-go's Reflector: list a resource, then watch it from the list's
// resourceVersion with bookmarks; re-watch from the last version seen when a
// watch ends; relist when the version is too old (410 Gone); back off on
// errors, 0.8 s doubling to 30 s, the delay kept across list-and-watch cycles
// until two minutes pass without an error (client-go's backoff manager), so
// that a watch the API server refuses after a list it allows is not relisted
// every 0.8 s forever. The handler sees raw JSON objects and decodes what it
// keeps.
#pragma once

#include <atomic>
#include <boost/json/value.hpp>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "kube/api_client.hpp"

namespace tightpack::kube {

enum class EventType { Added, Modified, Deleted };

struct ReflectorHandler {
  // A (re)list: begin, every item, end. Objects not listed are gone.
  std::function<void()> list_begin;
  std::function<void(const boost::json::value& object)> list_item;
  std::function<void()> list_end;
  std::function<void(EventType, const boost::json::value& object)> event;
};

class Reflector {
 public:
  // `path`: the collection, e.g. /api/v1/pods. `what`: for logs ("pods").
  Reflector(std::string path, std::string what, std::shared_ptr<const ClientConfig> config,
            std::shared_ptr<RateLimiter> limiter, ReflectorHandler handler);
  ~Reflector();

  void start();
  void stop();  // returns once the thread has ended
  bool synced() const { return synced_; }
  int64_t relists() const { return relists_; }
  // Whether the API server refused (401 or 403) the last kForbiddenLimit
  // attempts to list or watch in a row: the credentials lack a right, and
  // no amount of retrying will bring the cache up to date.
  static constexpr int kForbiddenLimit = 3;
  bool forbidden() const { return forbidden_ >= kForbiddenLimit; }
  const std::string& what() const { return what_; }

  // The next delay of the backoff after `previous` (zero: none yet), when the
  // last one began `since` ago.
  static std::chrono::milliseconds next_delay(std::chrono::milliseconds previous,
                                              std::chrono::steady_clock::duration since);

 private:
  void run();
  bool list(std::string& resource_version);
  // Returns false when the caller must relist.
  bool watch(std::string& resource_version);
  void backoff();

  std::string path_, what_;
  ApiClient client_;
  ReflectorHandler handler_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> synced_{false};
  std::atomic<int64_t> relists_{0};
  void refused(unsigned status);
  std::chrono::milliseconds delay_{0};
  std::chrono::steady_clock::time_point last_backoff_{};
  std::atomic<int> forbidden_{0};
  std::thread thread_;
};

}  // namespace tightpack::kube
