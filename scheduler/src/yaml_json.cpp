#include "yaml_json.hpp"

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

Result<json::value> parse_yaml(std::string_view text) {
  try {
    std::vector<YAML::Node> docs = YAML::LoadAll(std::string(text));
    if (docs.empty()) return Error{"", "empty YAML document"};
    if (docs.size() > 1) {
      // Several documents (---) become a v1 List, as kubectl treats them.
      json::array items;
      for (const auto& d : docs) {
        auto v = convert(d, 0);
        if (!v) return v;
        if (!v->is_null()) items.push_back(std::move(*v));
      }
      return json::value(json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}});
    }
    return convert(docs.front(), 0);
  } catch (const YAML::Exception& e) {
    return Error{"", "invalid YAML at line " + std::to_string(e.mark.line + 1) + " column " +
                         std::to_string(e.mark.column + 1) + ": " + e.msg};
  }
}

Result<json::value> parse_document(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && (text[first] == '{' || text[first] == '[')) return parse_json(text);
  return parse_yaml(text);
}

}  // namespace tightpack::cli
