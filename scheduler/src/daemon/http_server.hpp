// The daemon's one HTTP port: /healthz, /readyz, /metrics, /snapshot.
// Plain HTTP/1.1 with one connection at a time: the callers are a kubelet's
// probes, Prometheus and the sidebar's server, a few requests a minute.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "tightpack/error.hpp"

namespace tightpack::daemon {

struct HttpAnswer {
  unsigned status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

using HttpHandler = std::function<HttpAnswer(const std::string& path)>;

class HttpServer {
 public:
  HttpServer();
  ~HttpServer();
  // Binds HOST:PORT (port 0 picks one) and serves on a thread of its own.
  Status start(const std::string& listen, HttpHandler handler);
  void stop();
  unsigned short port() const { return port_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::thread thread_;
  unsigned short port_ = 0;
};

}  // namespace tightpack::daemon
