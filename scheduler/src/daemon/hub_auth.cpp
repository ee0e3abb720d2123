#include "daemon/hub_auth.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include "daemon/credentials.hpp"
#include "version.hpp"

namespace tightpack::daemon {
namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace json = boost::json;
using tcp = net::ip::tcp;

namespace {

// A JupyterHub token ("token <t>", JupyterHub's scheme, or "Bearer <t>");
// "" when neither, or when it holds anything but visible ASCII.
std::string hub_token(const std::string& authorization) {
  std::string token = authorization_token(authorization, {"token", "bearer"});
  for (unsigned char c : token) {
    if (c <= 0x20 || c >= 0x7f) return "";
  }
  return token;
}

}  // namespace

Result<HubEndpoint> parse_hub_api_url(std::string_view url) {
  const auto bad = [&](const std::string& why) {
    return Error{"--hub-api-url", quote_value(url) + " " + why + " (e.g. http://hub:8081/hub/api)"};
  };
  constexpr std::string_view kScheme = "http://";
  if (url.rfind("https://", 0) == 0)
    return bad("is https, which is not supported: the hub's API is plain HTTP inside the cluster");
  if (url.rfind(kScheme, 0) != 0) return bad("is not an http:// URL");
  std::string_view rest = url.substr(kScheme.size());
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string prefix(slash == std::string_view::npos ? "" : rest.substr(slash));
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (authority.empty() || authority.find('@') != std::string_view::npos) return bad("has no host");
  HubEndpoint e{std::string(url), std::string(authority), "80", prefix};
  if (const size_t colon = authority.rfind(':');
      colon != std::string_view::npos && authority.front() != '[') {
    e.host = std::string(authority.substr(0, colon));
    e.port = std::string(authority.substr(colon + 1));
    if (e.host.empty() || e.port.empty() || e.port.size() > 5 ||
        e.port.find_first_not_of("0123456789") != std::string::npos || std::stoi(e.port) == 0 ||
        std::stoi(e.port) > 65535) {
      return bad("has no valid host and port");
    }
  }
  if (prefix.find_first_of("?#") != std::string::npos) return bad("has a query or fragment");
  return e;
}

HubDecision HubAuth::check(const std::string& authorization) {
  const std::string token = hub_token(authorization);
  if (token.empty()) {
    return {401, "",
            "no JupyterHub token: send the notebook server's $JUPYTERHUB_API_TOKEN as "
            "\"Authorization: token …\""};
  }
  const std::string key = sha256(token);
  const auto now = Clock::now();
  {
    std::lock_guard lock(m_);
    if (auto it = cache_.find(key); it != cache_.end() && it->second.until > now)
      return it->second.decision;
    // A hung hub holds each ask for kTimeout: at most a few at once, so that
    // the handler threads beyond them serve what needs no hub.
    if (asking_ >= kConcurrentAsks)
      return {503, "", "the hub is being asked about too many tokens at once: ask again shortly"};
    ++asking_;
  }
  HubDecision d = ask(token);
  std::lock_guard lock(m_);
  --asking_;
  if (d.status == 503) return d;  // the hub's trouble, not the token's: asked again next time
  if (cache_.size() >= kCacheLimit)
    std::erase_if(cache_, [&](const auto& kv) { return kv.second.until <= now; });
  if (cache_.size() >= kCacheLimit) cache_.clear();
  cache_[key] = Cached{d, now + (d.status == 200 ? kUserTtl : kRefusalTtl)};
  return d;
}

HubDecision HubAuth::ask(const std::string& token) const {
  const auto unavailable = [&](const std::string& why) {
    return HubDecision{503, "",
                       "cannot ask the hub at " + endpoint_.url + " who the token is: " + why};
  };
  net::io_context io;
  beast::tcp_stream stream(io);
  http::request<http::empty_body> req{http::verb::get, endpoint_.prefix + "/user", 11};
  req.set(http::field::host, endpoint_.host);
  req.set(http::field::user_agent, "tightpack/" + std::string(kVersion));
  req.set(http::field::accept, "application/json");
  req.set(http::field::authorization, "token " + token);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxAnswerBytes);
  parser.header_limit(16 * 1024);
  beast::error_code failure;
  tcp::resolver resolver(io);
  // One deadline for the whole exchange, as tcp_stream applies it to each
  // asynchronous step.
  stream.expires_after(kTimeout);
  resolver.async_resolve(
      endpoint_.host, endpoint_.port, [&](beast::error_code ec, tcp::resolver::results_type r) {
        if (ec) {
          failure = ec;
          return;
        }
        stream.async_connect(r, [&](beast::error_code ec2, const tcp::endpoint&) {
          if (ec2) {
            failure = ec2;
            return;
          }
          http::async_write(stream, req, [&](beast::error_code ec3, size_t) {
            if (ec3) {
              failure = ec3;
              return;
            }
            http::async_read(stream, buffer, parser,
                             [&](beast::error_code ec4, size_t) { failure = ec4; });
          });
        });
      });
  io.run_for(kTimeout + std::chrono::seconds(1));
  if (!io.stopped()) return unavailable("no answer within 5 s");
  if (failure) return unavailable(failure.message());
  const auto& res = parser.get();
  const unsigned status = res.result_int();
  if (status == 401 || status == 403)
    return {401, "", "the hub does not know this token (HTTP " + std::to_string(status) + ")"};
  if (status != 200) return unavailable("HTTP " + std::to_string(status));
  boost::system::error_code ec;
  const json::value model = json::parse(res.body(), ec);
  const json::object* o = !ec && model.is_object() ? &model.as_object() : nullptr;
  const json::value* name = o ? o->if_contains("name") : nullptr;
  const json::value* kind = o ? o->if_contains("kind") : nullptr;
  if (!name || !name->is_string() || name->as_string().empty())
    return unavailable("its answer names no one");
  if (kind && kind->is_string() && kind->as_string() != "user") {
    return {403, "", "the token is a " + std::string(kind->as_string()) + "'s, not a user's"};
  }
  return {200, std::string(name->as_string()), ""};
}

}  // namespace tightpack::daemon
