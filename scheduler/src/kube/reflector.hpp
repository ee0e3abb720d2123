// client-go's Reflector: list a resource, then watch it from the list's
// resourceVersion with bookmarks; re-watch from the last version seen when a
// watch ends; relist when the version is too old (410 Gone); back off on
// errors (0.8 s doubling to 30 s). The handler sees raw JSON objects and
// decodes what it keeps.
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
  std::chrono::milliseconds delay_{0};
  std::thread thread_;
};

}  // namespace tightpack::kube
