// The expanders (expander/waste, expander/mostpods, expander/priority,
// tightpack's price) and the chain that applies them, in CA's order and with
// its tie rules.
#include "tightpack/autoscaler/expander.hpp"

#include <algorithm>
#include <regex>

#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/go_int.hpp"
#include "tightpack/pod_resources.hpp"

namespace tightpack::autoscaler {
namespace {

// resourcesForPods: podutils.PodRequests of each pod (resourcehelper.PodRequests:
// containers, init containers and sidecars, pod-level requests, overhead), summed.
int64_t requested(const std::vector<const Pod*>& pods, std::string_view resource) {
  int64_t sum = 0;
  for (const Pod* p : pods) {
    const ResourceList requests = pod_requests(*p, false);
    if (const int64_t* v = find_resource(requests, resource)) sum = go_add(sum, *v);
  }
  return sum;
}

int64_t capacity(const Node* node, std::string_view resource) {
  if (!node) return 0;
  const int64_t* v = find_resource(node->capacity, resource);
  return v ? *v : 0;
}

// regexp.MatchString: a match anywhere in the name. A pattern std::regex
// cannot read matches nothing.
bool matches(const std::string& pattern, const std::string& name) {
  try {
    return std::regex_search(name, std::regex(pattern, std::regex::ECMAScript));
  } catch (const std::regex_error&) {
    return false;
  }
}

}  // namespace

Waste waste_of(const ExpansionOption& o) {
  // float64(avail - requested) / float64(avail), avail = capacity × nodes.
  const int64_t avail_cpu = go_mul(capacity(o.template_node, "cpu"), o.node_count);
  const int64_t avail_mem = go_mul(capacity(o.template_node, "memory"), o.node_count);
  Waste w;
  w.cpu = static_cast<double>(go_sub(avail_cpu, requested(o.pods, "cpu"))) /
          static_cast<double>(avail_cpu);
  w.memory = static_cast<double>(go_sub(avail_mem, requested(o.pods, "memory"))) /
             static_cast<double>(avail_mem);
  return w;
}

std::vector<size_t> least_waste(const std::vector<ExpansionOption>& options,
                                const std::vector<size_t>& among) {
  double least = 0;
  bool any = false;
  std::vector<size_t> best;
  for (size_t i : among) {
    const double score = waste_of(options[i]).score();
    if (score == least) best.push_back(i);
    if (!any || score < least) {
      least = score;
      best = {i};
      any = true;
    }
  }
  return best;
}

std::vector<size_t> most_pods(const std::vector<ExpansionOption>& options,
                              const std::vector<size_t>& among) {
  size_t most = 0;
  std::vector<size_t> best;
  for (size_t i : among) {
    const size_t n = options[i].pods.size();
    if (n == most) best.push_back(i);
    if (n > most) {
      most = n;
      best = {i};
    }
  }
  return best;
}

std::vector<size_t> priority_filter(const std::vector<ExpansionOption>& options,
                                    const std::vector<size_t>& among,
                                    const Priorities& priorities) {
  // maxPrio := -1: an option whose highest matching priority is below -1
  // never enters `best`, as one that no pattern matches.
  int64_t max_prio = -1;
  std::vector<size_t> best;
  for (size_t i : among) {
    std::optional<int64_t> prio;
    for (const auto& [p, patterns] : priorities) {
      if (prio && p <= *prio) continue;
      for (const std::string& re : patterns) {
        if (matches(re, options[i].group)) {
          prio = p;
          break;
        }
      }
    }
    if (!prio) continue;  // "not found in priority expander configuration"
    if (*prio > max_prio) {
      max_prio = *prio;
      best.clear();
    }
    if (*prio == max_prio) best.push_back(i);
  }
  return best.empty() ? among : best;
}

std::vector<size_t> price_filter(const std::vector<ExpansionOption>& options,
                                 const std::vector<size_t>& among,
                                 const std::map<std::string, double>& prices) {
  std::optional<double> cheapest;
  std::vector<size_t> best;
  for (size_t i : among) {
    auto it = prices.find(options[i].group);
    if (it == prices.end()) continue;
    const double cost = static_cast<double>(options[i].node_count) * it->second;
    if (!cheapest || cost < *cheapest) {
      cheapest = cost;
      best.clear();
    }
    if (cost == *cheapest) best.push_back(i);
  }
  return best.empty() ? among : best;
}

Choice choose_option(const std::vector<ExpansionOption>& options,
                     const std::vector<std::string>& expanders, const Priorities& priorities,
                     const std::map<std::string, double>& prices) {
  std::vector<size_t> left(options.size());
  for (size_t i = 0; i < left.size(); ++i) left[i] = i;
  for (const std::string& name : expanders) {
    if (left.size() <= 1) break;
    std::vector<size_t> next;
    if (name == "least-waste") {
      next = least_waste(options, left);
    } else if (name == "most-pods") {
      next = most_pods(options, left);
    } else if (name == "priority") {
      next = priority_filter(options, left, priorities);
    } else if (name == "price") {
      next = price_filter(options, left, prices);
    } else {
      continue;  // random narrows nothing
    }
    if (!next.empty()) left = std::move(next);
  }
  Choice c;
  c.chosen = *std::min_element(left.begin(), left.end(), [&](size_t a, size_t b) {
    return options[a].group < options[b].group;
  });
  if (left.size() > 1) c.tied = left;
  return c;
}

int64_t capped_delta(int64_t estimated, int64_t target_size, int64_t max_size) {
  return std::max<int64_t>(0, std::min(estimated, max_size - target_size));
}

}  // namespace tightpack::autoscaler
