// FitError.Error() and DefaultPreemption's verdict for the message part after
// "preemption:".
#include <algorithm>
#include <map>

#include "tightpack/framework/framework.hpp"
#include "tightpack/framework/preemption.hpp"
#include "tightpack/kube_release.hpp"

namespace tightpack {
namespace {

constexpr const char* kNotHelpful = "Preemption is not helpful for scheduling";

// "N reason" per distinct reason, sorted as strings (so "10 …" before "2 …").
std::string reason_histogram(const std::map<std::string, int64_t>& counts) {
  std::vector<std::string> parts;
  for (const auto& [reason, count] : counts) parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += ", ";
    out += p;
  }
  return out;
}

std::string nodes_available(size_t num_all_nodes, const std::map<std::string, int64_t>& counts) {
  std::string msg = "0/" + std::to_string(num_all_nodes) + " nodes are available:";
  std::string histogram = reason_histogram(counts);
  if (!histogram.empty()) msg += " " + histogram + ".";
  return msg;
}

}  // namespace

std::string preemption_success_message(const Cluster& c, const PreemptionChoice& choice) {
  return "found a potential placement for pod on node " + c.name(choice.node) + ", preempting " +
         std::to_string(choice.victims.size()) + " victims";
}

// Evaluator.Preempt: the nodes a filter rejected as Unschedulable are dry-run
// without their lower-priority pods. Nodes rejected UnschedulableAndUnresolvable
// and nodes the PreFilter left out (UnschedulableAndUnresolvable since
// kubernetes#125197/#126022) are not tried and count as "Preemption is not
// helpful for scheduling". When some node can be freed, the message names
// DefaultPreemption's choice (kubernetes#140180, v1.37).
Preemption evaluate_preemption(const PodPlan& plan, const Cluster& c, PlanScratch& scratch,
                               const Decision& d) {
  Preemption p;
  if (plan.preempt_never()) {
    p.message = "not eligible due to preemptionPolicy=Never.";
    return p;
  }
  std::vector<const NodeStatus*> status(c.size(), nullptr);
  for (size_t j = 0; j < d.filtered.size(); ++j) status[d.filtered[j]] = &d.statuses[j];
  std::map<std::string, int64_t> counts;
  for (NodeIndex n = 0; n < c.size(); ++n) {
    if (!status[n] || status[n]->code == Code::UnschedulableAndUnresolvable) {
      ++counts[kNotHelpful];
      continue;
    }
    std::vector<size_t> victims;
    const auto& pods = c.pods_on(n);
    for (size_t k = 0; k < pods.size(); ++k) {
      if (pods[k].priority < plan.priority()) victims.push_back(k);
    }
    if (victims.empty()) {
      ++counts["No preemption victims found for incoming pod"];
      continue;
    }
    Relief relief = c.relief_of(n, victims);
    NodeStatus s = plan.filter(scratch, c, n, &relief);
    if (s.ok()) {
      p.helps = true;
      // A node is freed: the message names the node DefaultPreemption picks
      // (without disruption budgets, which the cluster does not keep; the
      // in-cluster scheduler re-words it after its own choice, which has them).
      if (kube_release::preemption_names_its_choice(plan.profile().kube_minor)) {
        if (auto choice = select_preemption(plan, c, scratch, d, PreemptionFacts{})) {
          p.message = preemption_success_message(c, *choice);
        }
      }
      return p;
    }
    for (const auto& r : plan.reasons(c, n, s, &relief)) ++counts[r];
  }
  p.message = nodes_available(c.size(), counts);
  return p;
}

std::string fit_error_message(const PodPlan& plan, const Cluster& c, const Decision& d) {
  std::string msg;
  if (d.prefilter_rejected) {
    msg = "0/" + std::to_string(d.num_all_nodes) +
          " nodes are available: " + plan.reasons(c, 0, d.statuses.front()).front() + ".";
  } else {
    std::map<std::string, int64_t> counts;
    for (size_t j = 0; j < d.filtered.size(); ++j) {
      if (d.statuses[j].ok()) continue;
      for (const auto& r : plan.reasons(c, d.filtered[j], d.statuses[j])) ++counts[r];
    }
    if (d.filtered.size() < d.num_all_nodes &&
        kube_release::message_counts_prefilter_absent(plan.profile().kube_minor)) {
      counts[plan.absent_reason()] += static_cast<int64_t>(d.num_all_nodes - d.filtered.size());
    }
    msg = nodes_available(d.num_all_nodes, counts);
  }
  // The PostFilter plugins' messages, joined as RunPostFilterPlugins joins
  // them; the text ends as the last plugin words it: FitError.Error no longer
  // adds a period of its own (kubernetes#123301, v1.30). v1.36's
  // DynamicResources adds a message of its own unless preemption succeeded
  // (a PostFilter success ends the phase; kubernetes#140222 dropped it in v1.37).
  std::vector<std::string> post;
  const bool freed = d.preemption && d.preemption->helps;
  if (kube_release::dra_says_no_new_claims(plan.profile().kube_minor) &&
      plan.profile().dra_post_filter && !freed) {
    post.push_back("no new claims to deallocate");
  }
  if (d.preemption && !d.preemption->message.empty())
    post.push_back("preemption: " + d.preemption->message);
  for (size_t i = 0; i < post.size(); ++i) msg += (i == 0 ? " " : ", ") + post[i];
  return msg;
}

}  // namespace tightpack
