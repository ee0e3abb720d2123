// Where the Kubernetes API is and who we are to it: a kubeconfig file, or the
// service account of the pod we run in.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "tightpack/error.hpp"

namespace tightpack::kube {

// The bearer token, re-read from its file when the kubelet rotates it
// (projected service-account tokens change about hourly).
class TokenSource {
 public:
  TokenSource() = default;
  static std::shared_ptr<TokenSource> fixed(std::string token);
  static std::shared_ptr<TokenSource> file(std::string path);

  // The current token; empty when there is none. Errors only when a token
  // file that was readable becomes unreadable and no token was ever read.
  std::string token() const;
  const std::string& file_path() const { return path_; }

 private:
  std::string path_;
  mutable std::mutex m_;
  mutable std::string token_;
  mutable std::chrono::steady_clock::time_point read_at_{};
};

struct ClientConfig {
  std::string server;  // https://host:port[/prefix]
  std::string host, port, prefix;
  bool tls = true;
  std::string ca_pem;  // empty: the system's trust store
  bool insecure_skip_verify = false;
  std::string client_cert_pem, client_key_pem;
  std::shared_ptr<TokenSource> token = std::make_shared<TokenSource>();
  std::string
      source;  // "kubeconfig FILE (context C)" or "in-cluster service account", for messages
};

// The current context of a kubeconfig (or `context` when given). Errors name
// the file and the field.
Result<ClientConfig> load_kubeconfig(const std::string& path, const std::string& context = "");

// KUBERNETES_SERVICE_HOST/PORT and /var/run/secrets/kubernetes.io/serviceaccount.
// `root` prefixes the secret directory (tests).
Result<ClientConfig> in_cluster_config(const std::string& root = "");

// Splits https://host:port/prefix into the config's host, port and prefix.
Status set_server(ClientConfig& config, const std::string& server);

}  // namespace tightpack::kube
