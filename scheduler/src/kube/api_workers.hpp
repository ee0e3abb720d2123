// A fixed set of threads, each with its own API connection, that run API
// calls handed to them: bindings run concurrently so that the API's latency
// does not cap how many pods a second are bound.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "kube/api_client.hpp"

namespace tightpack::kube {

class ApiWorkers {
 public:
  using Task = std::function<void(ApiClient&)>;

  // max_queued 0: no bound.
  ApiWorkers(size_t threads, std::shared_ptr<const ClientConfig> config,
             std::shared_ptr<RateLimiter> limiter, size_t max_queued = 0);
  ~ApiWorkers();

  // False when the queue is full or the workers are stopping.
  bool submit(Task task);
  // Waits until nothing is queued or running, at most `timeout`; then cancels
  // what still runs and drops what is queued. Returns the number dropped.
  size_t drain(std::chrono::milliseconds timeout);

 private:
  void run(size_t i);

  std::vector<std::unique_ptr<ApiClient>> clients_;
  std::vector<std::thread> threads_;
  std::mutex m_;
  std::condition_variable cv_, idle_;
  std::deque<Task> tasks_;
  size_t running_ = 0;
  size_t max_queued_;
  bool stopping_ = false;
};

}  // namespace tightpack::kube
