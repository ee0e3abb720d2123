// Label selectors, in one place: matching with metav1.LabelSelectorAsSelector's
// meaning, validation as kube-apiserver validates a LabelSelector (so that bad
// input is an error naming the field, not a selector that quietly matches
// nothing), kubectl's selector syntax (labels.Parse), and labels.Selector for
// the selectors kube-scheduler builds itself (PodTopologySpread's defaults
// from Services and controllers, matchLabelKeys).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tightpack/error.hpp"
#include "tightpack/json_path.hpp"
#include "tightpack/model.hpp"

namespace tightpack {

// metav1.LabelSelectorAsSelector(selector).Matches(labels). An invalid
// selector matches nothing (validate_label_selector tells why).
bool label_selector_matches(const LabelSelector& selector, const Labels& labels);

// The first problem kube-apiserver's ValidateLabelSelector reports, as an
// error at `path` (the selector's own path): an unknown operator, In or NotIn
// without values, Exists or DoesNotExist with values, an invalid key or value.
std::optional<Error> validate_label_selector(const LabelSelector& selector, const JsonPath& path);

// validation.IsQualifiedName for a label key and IsValidLabelValue for a
// value: what is wrong, or an empty string.
std::string label_key_problem(std::string_view key);
std::string label_value_problem(std::string_view value);

// A label selector in kubectl's syntax (`kubectl get pods -l …`):
// comma-separated requirements `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
// `k notin (a)`, `k`, `!k`, with label keys and values checked as the API
// server checks them. `k!=v` and `notin` also select pods without the label,
// as in kubectl. The empty text selects every pod. Errors quote the selector
// and give the 1-based position of the offending character.
Result<LabelSelector> parse_label_selector(std::string_view text);

// labels.Selector: requirements that must all hold, or the selector that
// selects nothing (labels.Nothing(): what a nil LabelSelector becomes).
class Selector {
 public:
  enum class Op : uint8_t { kIn, kNotIn, kExists, kDoesNotExist };
  struct Requirement {
    std::string key;
    Op op = Op::kIn;
    std::vector<std::string> values;  // sorted
    bool operator==(const Requirement&) const = default;
  };

  Selector() = default;  // labels.Everything()
  static Selector nothing();
  // metav1.LabelSelectorAsSelector of a valid selector; nil is Nothing(), {}
  // is Everything().
  static Selector of(const std::optional<LabelSelector>& selector);
  // labels.SelectorFromSet / labels.Set.AsSelector.
  static Selector of_set(const Labels& set);

  // Selector.Add(other.Requirements()...): Nothing() has no requirements to
  // add, and adding to Nothing() leaves Nothing().
  void add(const Selector& other);
  bool matches(const Labels& labels) const;
  // Selector.Empty(): no requirements (Everything(); Nothing() is not empty).
  bool empty() const { return !nothing_ && requirements_.empty(); }
  bool is_nothing() const { return nothing_; }
  const std::vector<Requirement>& requirements() const { return requirements_; }

  bool operator==(const Selector&) const = default;

 private:
  void sort();
  std::vector<Requirement> requirements_;
  bool nothing_ = false;
};

}  // namespace tightpack
