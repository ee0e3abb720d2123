#include "tightpack/plugins/node_affinity.hpp"

#include <algorithm>
#include <charconv>

namespace tightpack::plugins {
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

bool valid_label_requirement(const NodeSelectorRequirement& r) {
  if (r.key.empty()) return false;
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

bool label_matches(const NodeSelectorRequirement& r, const Labels& labels) {
  const std::string* v = find_label(labels, r.key);
  auto in_values = [&] { return v && std::find(r.values.begin(), r.values.end(), *v) != r.values.end(); };
  if (r.op == "In") return in_values();
  if (r.op == "NotIn") return !in_values();
  if (r.op == "Exists") return v != nullptr;
  if (r.op == "DoesNotExist") return v == nullptr;
  int64_t have = 0, want = 0;
  if (!v || !parse_int64(*v, have) || !parse_int64(r.values[0], want)) return false;
  return r.op == "Gt" ? have > want : have < want;
}

}  // namespace

NodeSelectorTermMatcher::NodeSelectorTermMatcher(const NodeSelectorTerm& term) : term_(term) {
  for (const auto& r : term_.match_expressions) valid_ = valid_ && valid_label_requirement(r);
  for (const auto& r : term_.match_fields) valid_ = valid_ && valid_field_requirement(r);
}

bool NodeSelectorTermMatcher::matches(const Node& node) const {
  if (!valid_ || term_.empty()) return false;
  for (const auto& r : term_.match_expressions) {
    if (!label_matches(r, node.labels)) return false;
  }
  for (const auto& r : term_.match_fields) {
    bool equal = node.name == r.values[0];
    if (r.op == "In" ? !equal : equal) return false;
  }
  return true;
}

RequiredNodeAffinity::RequiredNodeAffinity(const Pod& pod) : node_selector_(pod.node_selector) {
  if (pod.node_affinity.required) {
    auto& terms = terms_.emplace();
    for (const auto& t : *pod.node_affinity.required) {
      if (!t.empty()) terms.emplace_back(t);  // an empty term selects nothing and is dropped
    }
  }
}

bool RequiredNodeAffinity::matches(const Node& node) const {
  for (const auto& [k, v] : node_selector_) {
    const std::string* have = find_label(node.labels, k);
    if (!have || *have != v) return false;
  }
  if (!terms_) return true;
  return std::any_of(terms_->begin(), terms_->end(), [&](const auto& t) { return t.matches(node); });
}

PreferredNodeAffinity::PreferredNodeAffinity(const Pod& pod) {
  for (const auto& t : pod.node_affinity.preferred) {
    if (t.weight == 0 || t.preference.empty()) continue;
    terms_.emplace_back(t.weight, NodeSelectorTermMatcher(t.preference));
  }
}

int64_t PreferredNodeAffinity::score(const Node& node) const {
  int64_t sum = 0;
  for (const auto& [weight, term] : terms_) {
    if (term.matches(node)) sum += weight;
  }
  return sum;
}

NodeNameRestriction node_name_restriction(const Pod& pod) {
  NodeNameRestriction out;
  if (!pod.node_affinity.required || pod.node_affinity.required->empty()) return out;
  std::set<std::string> names;
  for (const auto& term : *pod.node_affinity.required) {
    std::optional<std::set<std::string>> term_names;
    for (const auto& r : term.match_fields) {
      if (r.key != "metadata.name" || r.op != "In") continue;
      std::set<std::string> s(r.values.begin(), r.values.end());
      if (!term_names) {
        term_names = std::move(s);
      } else {
        std::set<std::string> both;
        std::set_intersection(term_names->begin(), term_names->end(), s.begin(), s.end(),
                              std::inserter(both, both.begin()));
        term_names = std::move(both);
      }
    }
    if (!term_names) return out;  // this term allows every node: terms are ORed
    if (term_names->empty()) {
      out.conflict = true;
      return out;
    }
    names.insert(term_names->begin(), term_names->end());
  }
  out.names = std::move(names);
  return out;
}

}  // namespace tightpack::plugins
