#include "kube/client_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "read_file.hpp"

namespace tightpack::kube {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

bool base64_decode(std::string_view in, std::string& out) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  out.clear();
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ') continue;
    int v = value(c);
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return true;
}

// The body of a named entry of one of the kubeconfig's lists: clusters[].cluster,
// users[].user, contexts[].context.
std::optional<YAML::Node> named(const YAML::Node& root, const std::string& list,
                                const std::string& name) {
  const YAML::Node entries = root[list];
  if (!entries || !entries.IsSequence()) return std::nullopt;
  const std::string body = list.substr(0, list.size() - 1);  // "clusters" -> "cluster"
  for (const auto& e : entries) {
    if (e.IsMap() && e["name"] && e["name"].as<std::string>("") == name) return e[body];
  }
  return std::nullopt;
}

std::string scalar(const YAML::Node& n, const char* key) {
  if (!n || !n[key] || !n[key].IsScalar()) return "";
  return n[key].as<std::string>();
}

// A file path relative to the kubeconfig's folder, as client-go resolves it.
std::string relative_to(const std::string& kubeconfig, const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  return (std::filesystem::path(kubeconfig).parent_path() / path).string();
}

// "<field>-data" (base64) or "<field>" (a file): the PEM text.
Status pem(const std::string& kubeconfig, const YAML::Node& n, const std::string& field,
           const std::string& where, std::string& out) {
  const std::string data = scalar(n, (field + "-data").c_str());
  if (!data.empty()) {
    if (!base64_decode(data, out)) {
      return Error{kubeconfig + ": " + where + "." + field + "-data", "is not base64"};
    }
    return Ok{};
  }
  const std::string file = scalar(n, field.c_str());
  if (file.empty()) return Ok{};
  if (!read_file(relative_to(kubeconfig, file), out)) {
    return Error{kubeconfig + ": " + where + "." + field, "cannot read " + quote_value(file)};
  }
  return Ok{};
}

}  // namespace

std::shared_ptr<TokenSource> TokenSource::fixed(std::string token) {
  auto t = std::make_shared<TokenSource>();
  t->token_ = std::move(token);
  return t;
}

std::shared_ptr<TokenSource> TokenSource::file(std::string path) {
  auto t = std::make_shared<TokenSource>();
  t->path_ = std::move(path);
  return t;
}

std::string TokenSource::token() const {
  std::lock_guard lock(m_);
  if (path_.empty()) return token_;
  // client-go re-reads a token file at most once a minute.
  const auto now = std::chrono::steady_clock::now();
  if (token_.empty() || now - read_at_ > std::chrono::minutes(1)) {
    std::string text;
    if (read_file(path_, text)) {
      token_ = trim(text);
      read_at_ = now;
    }
  }
  return token_;
}

Status set_server(ClientConfig& config, const std::string& server) {
  config.server = server;
  std::string rest;
  if (server.rfind("https://", 0) == 0) {
    config.tls = true;
    rest = server.substr(8);
  } else if (server.rfind("http://", 0) == 0) {
    config.tls = false;
    rest = server.substr(7);
  } else {
    return Error{"server", "expected an https:// or http:// URL, got " + quote_value(server)};
  }
  const size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  config.prefix = slash == std::string::npos ? "" : rest.substr(slash);
  while (!config.prefix.empty() && config.prefix.back() == '/') config.prefix.pop_back();
  std::string host = authority, port = config.tls ? "443" : "80";
  if (!authority.empty() && authority[0] == '[') {  // [IPv6]:port
    const size_t close = authority.find(']');
    if (close == std::string::npos)
      return Error{"server", "unclosed IPv6 address in " + quote_value(server)};
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':')
      port = authority.substr(close + 2);
  } else if (const size_t colon = authority.rfind(':'); colon != std::string::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) return Error{"server", "no host in " + quote_value(server)};
  // What a URL's authority can hold: a DNS name or an IPv4 address, or an
  // IPv6 address in brackets, and a port of 1 to 65535 (fuzz_daemon_inputs
  // found "https://127.0.0.1:64__https://…" accepted with an empty port).
  const bool bracketed = !authority.empty() && authority[0] == '[';
  for (char ch : host) {
    const bool ok = std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' ||
                    ch == '_' || (bracketed && (ch == ':' || ch == '%'));
    if (!ok)
      return Error{"server", "invalid host " + quote_value(host) + " in " + quote_value(server)};
  }
  const bool digits =
      !port.empty() && port.size() <= 5 &&
      std::all_of(port.begin(), port.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  const int number = digits ? std::stoi(port) : 0;
  if (number < 1 || number > 65535) {
    return Error{"server", "invalid port " + quote_value(port) + " in " + quote_value(server)};
  }
  config.host = host;
  config.port = port;
  return Ok{};
}

Result<ClientConfig> load_kubeconfig(const std::string& path, const std::string& context_name) {
  std::string text;
  if (!read_file(path, text)) return Error{path, "cannot read the kubeconfig"};
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Error{path, "not YAML: line " + std::to_string(e.mark.line + 1) + ": " + e.msg};
  }
  if (!root.IsMap()) return Error{path, "not a kubeconfig (expected a mapping)"};
  try {
    const std::string ctx_name =
        context_name.empty() ? scalar(root, "current-context") : context_name;
    if (ctx_name.empty()) return Error{path + ": current-context", "no current context"};
    const auto ctx_entry = named(root, "contexts", ctx_name);
    if (!ctx_entry) return Error{path + ": contexts", "no context named " + quote_value(ctx_name)};
    const YAML::Node ctx = *ctx_entry;
    const std::string cluster_name = scalar(ctx, "cluster"), user_name = scalar(ctx, "user");
    const auto cluster_entry = named(root, "clusters", cluster_name);
    if (!cluster_entry)
      return Error{path + ": clusters", "no cluster named " + quote_value(cluster_name)};
    const YAML::Node cluster = *cluster_entry;
    ClientConfig c;
    c.source = "kubeconfig " + path + " (context " + ctx_name + ")";
    const std::string where = "clusters[" + cluster_name + "]";
    if (auto s = set_server(c, scalar(cluster, "server")); !s)
      return Error{path + ": " + where + ".server", s.error().message};
    if (auto s = pem(path, cluster, "certificate-authority", where, c.ca_pem); !s) return s.error();
    c.insecure_skip_verify = scalar(cluster, "insecure-skip-tls-verify") == "true";
    if (!user_name.empty()) {
      const auto user_entry = named(root, "users", user_name);
      if (!user_entry) return Error{path + ": users", "no user named " + quote_value(user_name)};
      const YAML::Node user = *user_entry;
      const std::string uwhere = "users[" + user_name + "]";
      if (auto s = pem(path, user, "client-certificate", uwhere, c.client_cert_pem); !s)
        return s.error();
      if (auto s = pem(path, user, "client-key", uwhere, c.client_key_pem); !s) return s.error();
      if (const std::string token = scalar(user, "token"); !token.empty()) {
        c.token = TokenSource::fixed(token);
      } else if (const std::string file = scalar(user, "tokenFile"); !file.empty()) {
        c.token = TokenSource::file(relative_to(path, file));
        if (c.token->token().empty())
          return Error{path + ": " + uwhere + ".tokenFile", "cannot read " + quote_value(file)};
      }
      if (user["exec"] || user["auth-provider"]) {
        return Error{path + ": " + uwhere,
                     "exec and auth-provider credentials are not supported; use a token or a "
                     "client certificate"};
      }
    }
    return c;
  } catch (const YAML::Exception& e) {
    return Error{path, "unexpected kubeconfig shape: " + e.msg};
  }
}

Result<ClientConfig> in_cluster_config(const std::string& root) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !*host || !port || !*port) {
    return Error{"",
                 "not running in a pod (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
                 "unset): pass --kubeconfig "
                 "or set clientConnection.kubeconfig"};
  }
  ClientConfig c;
  const std::string h = host;
  const std::string authority = h.find(':') != std::string::npos ? "[" + h + "]" : h;
  if (auto s = set_server(c, "https://" + authority + ":" + port); !s) return s.error();
  const std::string dir = root + "/var/run/secrets/kubernetes.io/serviceaccount";
  if (!read_file(dir + "/ca.crt", c.ca_pem))
    return Error{dir + "/ca.crt", "cannot read the cluster CA"};
  c.token = TokenSource::file(dir + "/token");
  if (c.token->token().empty())
    return Error{dir + "/token", "cannot read the service account token"};
  c.source = "in-cluster service account";
  return c;
}

}  // namespace tightpack::kube
