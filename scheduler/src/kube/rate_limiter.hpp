// client-go's token bucket (flowcontrol.NewTokenBucketRateLimiter): `qps`
// tokens a second up to `burst`; every API call takes one. kube-scheduler's
// clientConnection.qps and burst mean the same here.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace tightpack::kube {

class RateLimiter {
 public:
  // qps <= 0: no limit.
  RateLimiter(double qps, int burst)
      : qps_(qps), burst_(std::max(burst, 1)), tokens_(std::max(burst, 1)) {}

  // Waits for a token; false when `stop` became true meanwhile, or when the
  // token would come after `deadline` (then none is taken): a write fenced on
  // a lease must not leave later because it waited here.
  bool acquire(const std::atomic<bool>* stop = nullptr,
               std::chrono::steady_clock::time_point deadline =
                   std::chrono::steady_clock::time_point::max()) {
    if (qps_ <= 0) return true;
    std::unique_lock lock(m_);
    for (;;) {
      refill();
      if (tokens_ >= 1) {
        tokens_ -= 1;
        return true;
      }
      if (stop && stop->load()) return false;
      const auto wait = std::chrono::duration<double>((1 - tokens_) / qps_);
      if (deadline != std::chrono::steady_clock::time_point::max() &&
          std::chrono::steady_clock::now() + wait > deadline)
        return false;
      // Short sleeps so that a stop is noticed; the bucket refills by time anyway.
      cv_.wait_for(lock,
                   std::min<std::chrono::duration<double>>(wait, std::chrono::milliseconds(100)));
    }
  }

  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  void refill() {
    const auto now = std::chrono::steady_clock::now();
    if (last_ != std::chrono::steady_clock::time_point{}) {
      tokens_ = std::min<double>(
          burst_, tokens_ + std::chrono::duration<double>(now - last_).count() * qps_);
    }
    last_ = now;
  }

  const double qps_;
  const int burst_;
  double tokens_;
  std::chrono::steady_clock::time_point last_{};
  std::mutex m_;
  std::condition_variable cv_;
};

}  // namespace tightpack::kube
