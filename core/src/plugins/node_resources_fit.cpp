#include "tightpack/plugins/node_resources_fit.hpp"

#include <algorithm>

#include "tightpack/go_int.hpp"
#include "tightpack/plugins/normalize.hpp"
#include "tightpack/pod_resources.hpp"

namespace tightpack::plugins {

NodeResourcesFitPlugin::State NodeResourcesFitPlugin::prepare(const PlanContext& ctx) {
  State s;
  s.request = fit_request(ctx.cluster, ctx.usage, ctx.profile.fit);
  if (kube_release::fit_can_be_unresolvable(ctx.profile.kube_minor))
    s.beyond_allocatable = Code::UnschedulableAndUnresolvable;
  s.args = &ctx.profile.fit;
  s.sidecars_summed = kube_release::nonzero_sums_sidecars(ctx.profile.kube_minor);
  if (!ctx.first_fit)
    s.scored = scored_resources(ctx.cluster, ctx.pod, ctx.profile.fit.resources, true);
  return s;
}

bool FitRequest::requests_nothing() const {
  return cpu == 0 && memory == 0 && ephemeral == 0 && scalars.empty();
}

FitRequest fit_request(const Cluster& cluster, const PodUsage& usage, const FitArgs& args) {
  FitRequest r;
  r.cpu = usage.cpu;
  r.memory = usage.memory;
  r.ephemeral = usage.ephemeral;
  auto ignored = [&](const std::string& name) {
    if (!is_extended_resource(name)) return false;
    if (std::find(args.ignored_resources.begin(), args.ignored_resources.end(), name) !=
        args.ignored_resources.end()) {
      return true;
    }
    std::string group = name.substr(0, name.find('/'));
    return std::find(args.ignored_resource_groups.begin(), args.ignored_resource_groups.end(),
                     group) != args.ignored_resource_groups.end();
  };
  for (const auto& [idx, v] : usage.scalars) {
    r.scalars.push_back({cluster.scalar_name(idx), idx, v, ignored(cluster.scalar_name(idx))});
  }
  for (const auto& [name, v] : usage.unknown_scalars)
    r.scalars.push_back({name, UINT32_MAX, v, ignored(name)});
  // Go ranges over a map here, in random order; by name is the stable choice.
  std::sort(r.scalars.begin(), r.scalars.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return r;
}

bool fits(const Cluster& c, NodeIndex n, const FitRequest& r, const Relief* relief) {
  return check_fit(c, n, r, relief, [](auto&&, bool) { return false; });
}

FitVerdict fit_verdict(const Cluster& c, NodeIndex n, const FitRequest& r, const Relief* relief) {
  FitVerdict verdict = FitVerdict::kFits;
  check_fit(c, n, r, relief, [&](auto&&, bool unresolvable) {
    verdict = unresolvable ? FitVerdict::kUnresolvable : FitVerdict::kInsufficient;
    return !unresolvable;  // nothing after it can change the code
  });
  return verdict;
}

std::vector<std::string> fit_reasons(const Cluster& c, NodeIndex n, const FitRequest& r,
                                     const Relief* relief) {
  std::vector<std::string> out;
  check_fit(c, n, r, relief, [&](auto&& reason, bool) {
    out.push_back(reason());
    return true;
  });
  return out;
}

}  // namespace tightpack::plugins
