#include "kube/reflector.hpp"

#include <boost/json/serialize.hpp>
#include <cctype>
#include <random>

#include "log.hpp"
#include "tightpack/decode.hpp"

namespace tightpack::kube {
namespace json = boost::json;

namespace {

std::string resource_version_of(const json::value& object) {
  if (const auto* o = object.if_object()) {
    if (const auto* m = o->if_contains("metadata"); m && m->is_object()) {
      if (const auto* rv = m->as_object().if_contains("resourceVersion"); rv && rv->is_string()) {
        return std::string(rv->get_string());
      }
    }
  }
  return "";
}

std::string url_escape(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace

Reflector::Reflector(std::string path, std::string what, std::shared_ptr<const ClientConfig> config,
                     std::shared_ptr<RateLimiter> limiter, ReflectorHandler handler)
    : path_(std::move(path)),
      what_(std::move(what)),
      client_(std::move(config), std::move(limiter)),
      handler_(std::move(handler)) {}

Reflector::~Reflector() {
  stop();
}

void Reflector::start() {
  thread_ = std::thread([this] { run(); });
}

void Reflector::stop() {
  stopping_ = true;
  client_.cancel();
  if (thread_.joinable()) thread_.join();
}

std::chrono::milliseconds Reflector::next_delay(std::chrono::milliseconds previous,
                                                std::chrono::steady_clock::duration since) {
  // NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, ...).
  if (previous.count() == 0 || since > std::chrono::minutes(2))
    return std::chrono::milliseconds(800);
  return std::min(previous * 2, std::chrono::milliseconds(30000));
}

void Reflector::backoff() {
  const auto now = std::chrono::steady_clock::now();
  delay_ = next_delay(delay_, now - last_backoff_);
  last_backoff_ = now;
  const auto until = now + delay_;
  while (!stopping_ && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

void Reflector::refused(unsigned status) {
  if (status == 401 || status == 403) {
    ++forbidden_;
  } else {
    forbidden_ = 0;
  }
}

void Reflector::run() {
  std::string rv;
  while (!stopping_) {
    if (!list(rv)) {
      backoff();
      continue;
    }
    synced_ = true;
    while (!stopping_ && watch(rv)) {
    }
  }
}

bool Reflector::list(std::string& resource_version) {
  // Pages, as client-go's pager: a list of 150,000 pods is never held as one
  // JSON document. client-go asks 500 a page; here a page is sized so that
  // even one of objects at etcd's limit (1.5 MiB, which any pod creator can
  // reach) stays within the answer cap, else one such page would fail the
  // list for ever and the cache would never sync.
  const std::string page = "?limit=" + std::to_string(kListPageObjects);
  std::string cont;
  bool begun = false;
  size_t items_seen = 0, pages = 0;
  const auto started = std::chrono::steady_clock::now();
  do {
    std::string target = path_ + page;
    if (!cont.empty()) target += "&continue=" + url_escape(cont);
    auto r = client_.request("GET", target);
    if (!r) {
      if (!stopping_) log_error("list " + what_ + ": " + r.error().what());
      return false;
    }
    if (!r->ok()) {
      log_error("list " + what_ + ": " + api_error_text(*r));
      refused(r->status);
      return false;
    }
    // Core's parser, as every object is parsed: the same depth limit and an arena.
    auto doc = parse_json(r->body);
    if (!doc || !doc->is_object()) {
      log_error("list " + what_ + ": the answer is not a JSON object" +
                (doc ? "" : ": " + doc.error().what()));
      return false;
    }
    const json::object& o = doc->get_object();
    if (!begun) {
      handler_.list_begin();
      begun = true;
    }
    if (const auto* items = o.if_contains("items"); items && items->is_array()) {
      for (const auto& item : items->get_array()) handler_.list_item(item);
      items_seen += items->get_array().size();
    }
    ++pages;
    cont.clear();
    if (const auto* m = o.if_contains("metadata"); m && m->is_object()) {
      const auto& mo = m->get_object();
      if (const auto* c = mo.if_contains("continue"); c && c->is_string())
        cont = std::string(c->get_string());
      if (const auto* v = mo.if_contains("resourceVersion"); v && v->is_string())
        resource_version = std::string(v->get_string());
    }
  } while (!cont.empty() && !stopping_);
  if (stopping_) return false;
  handler_.list_end();
  ++relists_;
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  log_info("listed " + std::to_string(items_seen) + " " + what_ + " in " +
           std::to_string(ms.count()) + " ms (" + std::to_string(pages) +
           " pages, resource version " + resource_version + ")");
  return true;
}

bool Reflector::watch(std::string& resource_version) {
  // A random 5–10 minute server-side timeout, as the reflector spreads its
  // watches; the idle limit allows for the bookmark the server sends each minute.
  static thread_local std::mt19937 rng(std::random_device{}());
  const int timeout = 300 + static_cast<int>(rng() % 300);
  const std::string target =
      path_ + "?watch=1&allowWatchBookmarks=true&resourceVersion=" + url_escape(resource_version) +
      "&timeoutSeconds=" + std::to_string(timeout);
  bool gone = false;
  bool broken = false;
  auto r = client_.stream(
      target,
      [&](std::string_view line) {
        forbidden_ = 0;  // the API server streams: this watch is allowed
        auto ev = parse_json(line);
        if (!ev || !ev->is_object()) {
          log_error("watch " + what_ + ": an event is not a JSON object: " +
                    quote_value(line.substr(0, 200)) + (ev ? "" : " (" + ev.error().what() + ")"));
          broken = true;
          return false;
        }
        const auto& eo = ev->get_object();
        const auto* type = eo.if_contains("type");
        const auto* object = eo.if_contains("object");
        if (!type || !type->is_string() || !object) {
          broken = true;
          return false;
        }
        const std::string_view t = type->get_string();
        if (t == "ERROR") {
          // A Status: 410 Gone means the version is too old to watch from.
          int64_t code = 0;
          if (const auto* o = object->if_object()) {
            if (const auto* c = o->if_contains("code"); c && c->is_int64()) code = c->get_int64();
          }
          if (code == 410) {
            gone = true;
          } else {
            log_error("watch " + what_ + ": " + json::serialize(*object));
            broken = true;
          }
          return false;
        }
        const std::string rv = resource_version_of(*object);
        if (t == "BOOKMARK") {
          if (!rv.empty()) resource_version = rv;
          return true;
        }
        const EventType type_of = t == "ADDED"     ? EventType::Added
                                  : t == "DELETED" ? EventType::Deleted
                                                   : EventType::Modified;
        handler_.event(type_of, *object);
        if (!rv.empty()) resource_version = rv;
        return !stopping_;
      },
      std::chrono::seconds(timeout + 90));
  if (stopping_) return false;
  if (!r) {
    log_warning("watch " + what_ + " ended: " + r.error().what() + "; watching again");
    backoff();
    return true;
  }
  if (r->oversized_event) {
    log_error("watch " + what_ + ": an event longer than " +
              std::to_string(kMaxWatchEventBytes >> 20) + " MiB; listing again");
    backoff();
    return false;
  }
  if (r->status == 410 || gone) {
    log_info("watch " + what_ + ": resource version " + resource_version +
             " is too old; listing again");
    return false;
  }
  if (!r->ok()) {
    log_error("watch " + what_ + ": " + api_error_text(*r));
    refused(r->status);
    backoff();
    return r->status != 403 && r->status != 401 ? true : false;
  }
  if (broken) {
    backoff();
    return false;
  }
  forbidden_ = 0;
  return true;
}

}  // namespace tightpack::kube
