#include "tightpack/node_affinity_terms.hpp"

#include <algorithm>
#include <charconv>

namespace tightpack {
namespace {

// strconv.ParseInt(s, 10, 64)
bool parse_int64(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  std::string_view digits = s;
  if (digits[0] == '+') digits.remove_prefix(1);
  if (digits.empty() || (digits[0] == '-' && s[0] == '+')) return false;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
  return ec == std::errc() && end == digits.data() + digits.size();
}

bool alphanumeric(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63 characters: the name
// part of a qualified name, and every non-empty label value.
bool qualified_name_part(std::string_view s) {
  if (s.empty() || s.size() > 63 || !alphanumeric(s.front()) || !alphanumeric(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return alphanumeric(c) || c == '-' || c == '_' || c == '.'; });
}

// validation.IsDNS1123Subdomain: dot-separated lower-case labels, at most 253 characters.
bool dns1123_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view label =
        s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (label.empty() || !lower_alnum(label.front()) || !lower_alnum(label.back())) return false;
    auto label_char = [&](char c) { return lower_alnum(c) || c == '-'; };
    if (!std::all_of(label.begin(), label.end(), label_char)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// validation.IsQualifiedName: [prefix/]name, the prefix a DNS subdomain.
bool valid_label_key(std::string_view key) {
  size_t slash = key.find('/');
  if (slash == std::string_view::npos) return qualified_name_part(key);
  if (key.find('/', slash + 1) != std::string_view::npos) return false;
  return dns1123_subdomain(key.substr(0, slash)) && qualified_name_part(key.substr(slash + 1));
}

// validation.IsValidLabelValue.
bool valid_label_value(std::string_view value) {
  return value.empty() || qualified_name_part(value);
}

// labels.NewRequirement: an invalid key or value (for every operator, Gt and
// Lt included, so "-1" is refused although ParseInt takes it) makes the term
// unusable. Pod validation does not check these values, so such pods exist.
bool valid_label_requirement(const NodeSelectorRequirement& r) {
  if (!valid_label_key(r.key)) return false;
  if (!std::all_of(r.values.begin(), r.values.end(),
                   [](const std::string& v) { return valid_label_value(v); })) {
    return false;
  }
  if (r.op == "In" || r.op == "NotIn") return !r.values.empty();
  if (r.op == "Exists" || r.op == "DoesNotExist") return r.values.empty();
  if (r.op == "Gt" || r.op == "Lt") {
    int64_t ignored;
    return r.values.size() == 1 && parse_int64(r.values[0], ignored);
  }
  return false;
}

bool valid_field_requirement(const NodeSelectorRequirement& r) {
  return r.key == "metadata.name" && (r.op == "In" || r.op == "NotIn") && r.values.size() == 1;
}

const std::string* column_value(const Cluster& c, const std::vector<StrId>* column, NodeIndex n) {
  if (!column || (*column)[n] == kNoStr) return nullptr;
  return &c.strings().str((*column)[n]);
}

}  // namespace

bool requirement_matches(const NodeSelectorRequirement& r, const std::string* v) {
  // Dispatch on the operator's first letters: this runs for every node.
  const std::string& op = r.op;
  auto in_values = [&] {
    return v && std::find(r.values.begin(), r.values.end(), *v) != r.values.end();
  };
  if (op.size() == 2 && op[0] == 'I' && op[1] == 'n') return in_values();
  if (op.size() == 5 && op == "NotIn") return !in_values();
  if (op.size() == 6 && op == "Exists") return v != nullptr;
  if (op.size() == 12 && op == "DoesNotExist") return v == nullptr;
  int64_t have = 0, want = 0;
  if (!v || r.values.size() != 1 || !parse_int64(*v, have) || !parse_int64(r.values[0], want))
    return false;
  if (op == "Gt") return have > want;
  if (op == "Lt") return have < want;
  return false;
}

NodeSelectorTermMatcher::NodeSelectorTermMatcher(const NodeSelectorTerm& term) : term_(term) {
  for (const auto& r : term_.match_expressions) valid_ = valid_ && valid_label_requirement(r);
  for (const auto& r : term_.match_fields) valid_ = valid_ && valid_field_requirement(r);
}

void NodeSelectorTermMatcher::bind(const Cluster& c) {
  columns_.clear();
  for (const auto& r : term_.match_expressions) columns_.push_back(c.label_column(r.key));
}

template <class ValueOf>
bool NodeSelectorTermMatcher::match_with(ValueOf&& value_of, std::string_view node_name) const {
  if (!valid_ || term_.empty()) return false;
  for (size_t i = 0; i < term_.match_expressions.size(); ++i) {
    if (!requirement_matches(term_.match_expressions[i], value_of(i))) return false;
  }
  for (const auto& r : term_.match_fields) {
    bool equal = node_name == r.values[0];
    if (r.op == "In" ? !equal : equal) return false;
  }
  return true;
}

bool NodeSelectorTermMatcher::matches(const Node& node) const {
  return match_with(
      [&](size_t i) { return find_label(node.labels, term_.match_expressions[i].key); }, node.name);
}

bool NodeSelectorTermMatcher::matches_labels(const Labels& labels) const {
  return match_with([&](size_t i) { return find_label(labels, term_.match_expressions[i].key); },
                    "");
}

bool NodeSelectorTermMatcher::matches(const Cluster& c, NodeIndex n) const {
  return match_with([&](size_t i) { return column_value(c, columns_[i], n); }, c.name(n));
}

RequiredNodeAffinity::RequiredNodeAffinity(const Pod& pod) : node_selector_(pod.node_selector) {
  if (pod.node_affinity.required) {
    auto& terms = terms_.emplace();
    for (const auto& t : *pod.node_affinity.required) {
      if (!t.empty()) terms.emplace_back(t);  // an empty term selects nothing and is dropped
    }
  }
}

void RequiredNodeAffinity::bind(const Cluster& c) {
  selector_columns_.clear();
  for (const auto& [k, v] : node_selector_) selector_columns_.push_back(c.label_column(k));
  if (terms_) {
    for (auto& t : *terms_) t.bind(c);
  }
}

bool RequiredNodeAffinity::matches(const Node& node) const {
  for (const auto& [k, v] : node_selector_) {
    const std::string* have = find_label(node.labels, k);
    if (!have || *have != v) return false;
  }
  if (!terms_) return true;
  return std::any_of(terms_->begin(), terms_->end(),
                     [&](const auto& t) { return t.matches(node); });
}

bool RequiredNodeAffinity::matches(const Cluster& c, NodeIndex n) const {
  for (size_t i = 0; i < node_selector_.size(); ++i) {
    const std::string* have = column_value(c, selector_columns_[i], n);
    if (!have || *have != node_selector_[i].second) return false;
  }
  if (!terms_) return true;
  return std::any_of(terms_->begin(), terms_->end(),
                     [&](const auto& t) { return t.matches(c, n); });
}

PreferredNodeAffinity::PreferredNodeAffinity(const Pod& pod) {
  const auto& preferred = pod.node_affinity.preferred;
  for (size_t i = 0; i < preferred.size(); ++i) {
    const auto& t = preferred[i];
    if (t.weight == 0 || t.preference.empty()) continue;
    terms_.emplace_back(t.weight, NodeSelectorTermMatcher(t.preference));
    if (!terms_.back().second.valid() && first_invalid_ < 0) first_invalid_ = static_cast<int>(i);
  }
}

void PreferredNodeAffinity::bind(const Cluster& c) {
  for (auto& [w, t] : terms_) t.bind(c);
}

int64_t PreferredNodeAffinity::score(const Node& node) const {
  int64_t sum = 0;
  for (const auto& [weight, term] : terms_) {
    if (term.matches(node)) sum += weight;
  }
  return sum;
}

int64_t PreferredNodeAffinity::score(const Cluster& c, NodeIndex n) const {
  int64_t sum = 0;
  for (const auto& [weight, term] : terms_) {
    if (term.matches(c, n)) sum += weight;
  }
  return sum;
}

void NodeSelectorTermMatcher::collect_keys(std::vector<std::string>& keys) const {
  for (const auto& r : term_.match_expressions) keys.push_back(r.key);
}

void RequiredNodeAffinity::collect_keys(std::vector<std::string>& keys) const {
  for (const auto& [k, v] : node_selector_) keys.push_back(k);
  if (terms_) {
    for (const auto& t : *terms_) t.collect_keys(keys);
  }
}

bool RequiredNodeAffinity::uses_fields() const {
  return terms_ &&
         std::any_of(terms_->begin(), terms_->end(), [](const auto& t) { return t.uses_fields(); });
}

void PreferredNodeAffinity::collect_keys(std::vector<std::string>& keys) const {
  for (const auto& [w, t] : terms_) t.collect_keys(keys);
}

bool PreferredNodeAffinity::uses_fields() const {
  return std::any_of(terms_.begin(), terms_.end(),
                     [](const auto& t) { return t.second.uses_fields(); });
}

}  // namespace tightpack
