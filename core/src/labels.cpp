#include "tightpack/labels.hpp"

#include <algorithm>

namespace tightpack {
namespace {

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// validation.IsQualifiedName's name part, and IsValidLabelValue when not empty.
std::string name_problem(std::string_view n) {
  if (n.empty()) return "must not be empty";
  if (n.size() > 63) return "must be no more than 63 characters";
  if (!alnum(n.front()) || !alnum(n.back())) return "must begin and end with a letter or digit";
  for (char c : n) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') {
      return "may contain only letters, digits, '-', '_' and '.'";
    }
  }
  return "";
}

// A DNS-1123 subdomain: the prefix of a label key.
std::string prefix_problem(std::string_view p) {
  if (p.empty()) return "the prefix before '/' must not be empty";
  if (p.size() > 253) return "the prefix before '/' must be no more than 253 characters";
  size_t start = 0;
  while (start <= p.size()) {
    size_t dot = p.find('.', start);
    if (dot == std::string_view::npos) dot = p.size();
    std::string_view part = p.substr(start, dot - start);
    bool ok = !part.empty() && part.front() != '-' && part.back() != '-';
    for (char c : part) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-');
    if (!ok) return "the prefix before '/' must be a lowercase DNS subdomain such as dask.org";
    start = dot + 1;
  }
  return "";
}

bool contains(const std::vector<std::string>& values, const std::string& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

}  // namespace

std::string label_key_problem(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return name_problem(key);
  if (key.find('/', slash + 1) != std::string_view::npos) return "may contain at most one '/'";
  if (std::string p = prefix_problem(key.substr(0, slash)); !p.empty()) return p;
  if (std::string p = name_problem(key.substr(slash + 1)); !p.empty()) return "name part " + p;
  return "";
}

std::string label_value_problem(std::string_view value) {
  return value.empty() ? "" : name_problem(value);
}

bool label_selector_matches(const LabelSelector& selector, const Labels& labels) {
  for (const auto& [k, v] : selector.match_labels) {
    const std::string* have = find_label(labels, k);
    if (!have || *have != v) return false;
  }
  for (const auto& r : selector.match_expressions) {
    const std::string* have = find_label(labels, r.key);
    const bool in = have && contains(r.values, *have);
    if (r.op == "In") {
      if (r.values.empty() || !in) return false;
    } else if (r.op == "NotIn") {
      if (r.values.empty() || in) return false;
    } else if (r.op == "Exists") {
      if (!r.values.empty() || !have) return false;
    } else if (r.op == "DoesNotExist") {
      if (!r.values.empty() || have) return false;
    } else {
      return false;
    }
  }
  return true;
}

std::optional<Error> validate_label_selector(const LabelSelector& selector, const JsonPath& path) {
  const JsonPath labels_path = path.field("matchLabels");
  for (const auto& [k, v] : selector.match_labels) {
    if (std::string p = label_key_problem(k); !p.empty()) {
      return Error{labels_path.str(), "label key " + quote_value(k) + " " + p};
    }
    if (std::string p = label_value_problem(v); !p.empty()) {
      return Error{labels_path.field(k).str(), "label value " + quote_value(v) + " " + p};
    }
  }
  const JsonPath exprs_path = path.field("matchExpressions");
  for (size_t i = 0; i < selector.match_expressions.size(); ++i) {
    const auto& r = selector.match_expressions[i];
    const JsonPath rp = exprs_path.index(static_cast<int64_t>(i));
    if (r.op == "In" || r.op == "NotIn") {
      if (r.values.empty()) {
        return Error{rp.field("values").str(),
                     "must be specified when `operator` is 'In' or 'NotIn'"};
      }
    } else if (r.op == "Exists" || r.op == "DoesNotExist") {
      if (!r.values.empty()) {
        return Error{rp.field("values").str(),
                     "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"};
      }
    } else {
      return Error{rp.field("operator").str(),
                   quote_value(r.op) +
                       " is not a valid selector operator (In, NotIn, Exists, "
                       "DoesNotExist)"};
    }
    if (std::string p = label_key_problem(r.key); !p.empty()) {
      return Error{rp.field("key").str(), "label key " + quote_value(r.key) + " " + p};
    }
    for (size_t j = 0; j < r.values.size(); ++j) {
      if (std::string p = label_value_problem(r.values[j]); !p.empty()) {
        const JsonPath vp = rp.field("values");
        return Error{vp.index(static_cast<int64_t>(j)).str(),
                     "label value " + quote_value(r.values[j]) + " " + p};
      }
    }
  }
  return std::nullopt;
}

Selector Selector::nothing() {
  Selector s;
  s.nothing_ = true;
  return s;
}

Selector Selector::of(const std::optional<LabelSelector>& selector) {
  if (!selector) return nothing();
  Selector s;
  for (const auto& [k, v] : selector->match_labels) s.requirements_.push_back({k, Op::kIn, {v}});
  for (const auto& r : selector->match_expressions) {
    Requirement req{r.key, Op::kIn, r.values};
    if (r.op == "NotIn") req.op = Op::kNotIn;
    if (r.op == "Exists") req.op = Op::kExists;
    if (r.op == "DoesNotExist") req.op = Op::kDoesNotExist;
    s.requirements_.push_back(std::move(req));
  }
  s.sort();
  return s;
}

Selector Selector::of_set(const Labels& set) {
  Selector s;
  for (const auto& [k, v] : set) s.requirements_.push_back({k, Op::kIn, {v}});
  s.sort();
  return s;
}

void Selector::add(const Selector& other) {
  if (nothing_ || other.nothing_) return;
  requirements_.insert(requirements_.end(), other.requirements_.begin(), other.requirements_.end());
  sort();
}

// labels.ByKey: a stable order by key, so that two selectors built from the
// same parts compare equal.
void Selector::sort() {
  for (auto& r : requirements_) std::sort(r.values.begin(), r.values.end());
  std::stable_sort(requirements_.begin(), requirements_.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
}

bool Selector::matches(const Labels& labels) const {
  if (nothing_) return false;
  for (const auto& r : requirements_) {
    const std::string* have = find_label(labels, r.key);
    switch (r.op) {
      case Op::kIn:
        if (!have || !contains(r.values, *have)) return false;
        break;
      case Op::kNotIn:
        if (have && contains(r.values, *have)) return false;
        break;
      case Op::kExists:
        if (!have) return false;
        break;
      case Op::kDoesNotExist:
        if (have) return false;
        break;
    }
  }
  return true;
}

}  // namespace tightpack
