// cluster-autoscaler's expander package: which group's option a scale-up takes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/model.hpp"

namespace tightpack::autoscaler {

struct ExpansionOption {
  std::string group;
  int64_t node_count = 0;
  std::vector<const Pod*> pods;
  const Node* template_node = nullptr;
};

struct Waste {
  double cpu = 0;
  double memory = 0;
  double score() const { return cpu + memory; }
};

// expander/waste: over the template's capacity, for the uncapped node count.
Waste waste_of(const ExpansionOption& o);

// Each filter narrows `among` (indices into options) as CA's BestOptions does.
std::vector<size_t> least_waste(const std::vector<ExpansionOption>& options,
                                const std::vector<size_t>& among);
std::vector<size_t> most_pods(const std::vector<ExpansionOption>& options,
                              const std::vector<size_t>& among);
// Options of the highest priority whose regexps match the group name (Go's
// unanchored match); all of `among` when none matches.
std::vector<size_t> priority_filter(const std::vector<ExpansionOption>& options,
                                    const std::vector<size_t>& among, const Priorities& priorities);

// tightpack's price expander: the options whose added nodes cost least per
// hour (node_count × the group's price); groups without a price rank after
// priced ones, and when no option is priced all of `among` stay. CA's own
// price expander also weighs how well each node fits the pods' preferred
// node price; this is the simpler "cheapest added nodes per hour".
std::vector<size_t> price_filter(const std::vector<ExpansionOption>& options,
                                 const std::vector<size_t>& among,
                                 const std::map<std::string, double>& prices);

struct Choice {
  size_t chosen = 0;
  std::vector<size_t> tied;  // the options the final random pick chose among (>1 when tied)
};

// The expander chain: each named filter in turn, stopping at one option; a
// remaining tie goes to the lowest group name (CA picks at random).
Choice choose_option(const std::vector<ExpansionOption>& options,
                     const std::vector<std::string>& expanders, const Priorities& priorities,
                     const std::map<std::string, double>& prices = {});

}  // namespace tightpack::autoscaler
