#include "kube/api_workers.hpp"

namespace tightpack::kube {

ApiWorkers::ApiWorkers(size_t threads, std::shared_ptr<const ClientConfig> config,
                       std::shared_ptr<RateLimiter> limiter, size_t max_queued)
    : max_queued_(max_queued) {
  for (size_t i = 0; i < threads; ++i)
    clients_.push_back(std::make_unique<ApiClient>(config, limiter));
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this, i] { run(i); });
}

ApiWorkers::~ApiWorkers() {
  drain(std::chrono::milliseconds(0));
}

bool ApiWorkers::submit(Task task) {
  {
    std::lock_guard lock(m_);
    if (stopping_ || (max_queued_ && tasks_.size() >= max_queued_)) return false;
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
  return true;
}

void ApiWorkers::run(size_t i) {
  for (;;) {
    Task task;
    {
      std::unique_lock lock(m_);
      cv_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
      ++running_;
    }
    task(*clients_[i]);
    {
      std::lock_guard lock(m_);
      --running_;
    }
    idle_.notify_all();
  }
}

size_t ApiWorkers::drain(std::chrono::milliseconds timeout) {
  size_t dropped = 0;
  {
    std::unique_lock lock(m_);
    idle_.wait_for(lock, timeout, [&] { return tasks_.empty() && running_ == 0; });
    stopping_ = true;
    dropped = tasks_.size();
    tasks_.clear();
  }
  cv_.notify_all();
  for (auto& c : clients_) c->cancel();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
  return dropped;
}

}  // namespace tightpack::kube
