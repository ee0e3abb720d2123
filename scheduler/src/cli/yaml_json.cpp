#include "cli/yaml_json.hpp"

#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <charconv>

#include "tightpack/decode.hpp"

namespace tightpack::cli {
namespace json = boost::json;
namespace {

json::value scalar(const YAML::Node& node) {
  const std::string& s = node.Scalar();
  if (node.Tag() == "!") return json::string(s);  // quoted
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  std::string_view digits = s;
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  int64_t i = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), i);
  if (ec == std::errc() && end == digits.data() + digits.size() && !digits.empty()) return i;
  return json::string(s);
}

Result<json::value> convert(const YAML::Node& node, int depth) {
  if (depth > 128) return Error{"", "YAML nested deeper than 128 levels"};
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return json::value(nullptr);
    case YAML::NodeType::Scalar:
      return scalar(node);
    case YAML::NodeType::Sequence: {
      json::array a;
      for (const auto& item : node) {
        auto v = convert(item, depth + 1);
        if (!v) return v;
        a.push_back(std::move(*v));
      }
      return json::value(std::move(a));
    }
    case YAML::NodeType::Map: {
      json::object o;
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) return Error{"", "YAML mapping keys must be scalars"};
        auto v = convert(kv.second, depth + 1);
        if (!v) return v;
        o[kv.first.Scalar()] = std::move(*v);
      }
      return json::value(std::move(o));
    }
  }
  return json::value(nullptr);
}

}  // namespace

// The documents of a stream, split at the document markers ("---" and
// "..." at the start of a line, followed by a space or the line's end),
// which YAML forbids inside any scalar. Each is given to YAML::Load alone:
// yaml-cpp 0.7's LoadAll (Debian 12's) loops for ever, allocating, on a
// stream as short as "," (jbeder/yaml-cpp#1040, fixed upstream by #1319),
// and a configuration file must not hang the daemon.
struct YamlPiece {
  std::string text;
  size_t first_line = 0;  // 0-based, in the whole stream
  bool document = false;  // after "---" (else the text before the first marker, or after "...")
};

std::vector<YamlPiece> split_documents(std::string_view text) {
  std::vector<YamlPiece> pieces(1);
  size_t line = 0;
  for (size_t start = 0; start < text.size(); ++line) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = text.substr(start, end - start);
    auto marker = [&](std::string_view m) {
      return l.substr(0, 3) == m && (l.size() == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r');
    };
    if (marker("---")) {
      pieces.push_back({std::string(l.substr(3)) + "\n", line, true});
    } else if (marker("...")) {
      pieces.push_back({"", line + 1, false});
    } else {
      pieces.back().text.append(l).push_back('\n');
    }
    start = end + 1;
  }
  return pieces;
}

bool has_content(const std::string& text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const size_t first = text.find_first_not_of(" \t\r", start);
    if (first < end && text[first] != '#' && text[first] != '%') return true;
    start = end + 1;
  }
  return false;
}

Result<json::value> parse_yaml(std::string_view text) {
  std::vector<YAML::Node> docs;
  for (const YamlPiece& piece : split_documents(text)) {
    if (!piece.document && !has_content(piece.text)) continue;
    try {
      docs.push_back(YAML::Load(piece.text));
    } catch (const YAML::Exception& e) {
      return Error{"", "invalid YAML at line " +
                           std::to_string(piece.first_line + e.mark.line + 1) + " column " +
                           std::to_string(e.mark.column + 1) + ": " + e.msg};
    }
  }
  if (docs.empty()) return Error{"", "empty YAML document"};
  if (docs.size() > 1) {
    // Several documents (---) become a v1 List, as kubectl treats them.
    json::array items;
    for (const auto& d : docs) {
      auto v = convert(d, 0);
      if (!v) return v;
      if (!v->is_null()) items.push_back(std::move(*v));
    }
    return json::value(
        json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}});
  }
  return convert(docs.front(), 0);
}

Result<json::value> parse_document(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && (text[first] == '{' || text[first] == '['))
    return parse_json(text);
  return parse_yaml(text);
}

}  // namespace tightpack::cli
