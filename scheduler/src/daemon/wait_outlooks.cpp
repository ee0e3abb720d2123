#include "daemon/wait_outlooks.hpp"

#include <algorithm>
#include <set>

#include "log.hpp"
#include "tightpack/built_in_profiles.hpp"
#include "tightpack/pools/scale_up_prediction.hpp"

namespace tightpack::daemon {

WaitOutlooks::WaitOutlooks(Scheduler& scheduler, pools::PoolsConfig pools)
    : scheduler_(scheduler), pools_(std::move(pools)) {}

WaitOutlooks::~WaitOutlooks() {
  stop();
}

void WaitOutlooks::start() {
  thread_ = std::thread([this] { loop(); });
}

void WaitOutlooks::stop() {
  {
    std::lock_guard lock(m_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void WaitOutlooks::loop() {
  std::unique_lock lock(m_);
  while (!stopping_) {
    lock.unlock();
    round(Clock::now());
    lock.lock();
    cv_.wait_for(lock, kInterval, [this] { return stopping_; });
  }
}

void WaitOutlooks::round(Clock::time_point now) {
  std::vector<Scheduler::WaitingPod> waiting = scheduler_.waiting_pods();
  std::set<std::string> keys;
  for (const auto& w : waiting) keys.insert(w.key);
  std::erase_if(told_, [&](const auto& t) { return !keys.contains(t.first); });
  // Due: never told, or told long enough ago; the longest untold first.
  std::erase_if(waiting, [&](const Scheduler::WaitingPod& w) {
    auto t = told_.find(w.key);
    return t != told_.end() && t->second.uid == w.pod.pod.uid && now - t->second.posted < kRepeat;
  });
  if (waiting.empty()) return;
  auto posted = [&](const Scheduler::WaitingPod& w) {
    auto t = told_.find(w.key);
    return t == told_.end() || t->second.uid != w.pod.pod.uid ? Clock::time_point::min()
                                                              : t->second.posted;
  };
  std::stable_sort(waiting.begin(), waiting.end(),
                   [&](const auto& a, const auto& b) { return posted(a) < posted(b); });
  if (waiting.size() > kPerRound) waiting.resize(kPerRound);

  pools::ClusterSnapshot snapshot = scheduler_.cluster_snapshot();
  std::vector<Node> nodes;
  nodes.reserve(snapshot.nodes.size());
  for (const auto& n : snapshot.nodes) nodes.push_back(n.node);
  const pools::ResolvedPools resolved = pools::resolve_pools(pools_, nodes);
  const Profile profile = default_profile();  // cluster-autoscaler's filters
  // The replicas of one ReplicaSet (a Dask cluster's workers waiting for
  // their nodes) are alike: one prediction serves them all in a round.
  std::map<std::string, Outlook> by_owner;
  auto owner_of = [](const autoscaler::CaPod& p) {
    return p.controller_kind == "ReplicaSet" || p.controller_kind == "ReplicationController"
               ? p.pod.ns + "/" + p.controller_kind + "/" + p.controller_name
               : std::string();
  };
  for (const Scheduler::WaitingPod& w : waiting) {
    const std::string owner = owner_of(w.pod);
    if (auto known = by_owner.find(owner); !owner.empty() && known != by_owner.end()) {
      tell(w, known->second, now);
      continue;
    }
    // The pod is the one replica asked about; every other pending pod
    // competes for the same scale-up, as cluster-autoscaler sees them.
    auto& pending = snapshot.pending;
    auto it = std::find_if(pending.begin(), pending.end(),
                           [&](const autoscaler::CaPod& p) { return p.pod.key() == w.key; });
    std::optional<autoscaler::CaPod> taken;
    if (it != pending.end()) {
      taken = std::move(*it);
      pending.erase(it);
    }
    auto prediction = pools::predict_scale_up(snapshot, resolved, pools_, profile,
                                              pools::Replicas{w.pod.pod, {""}});
    if (taken) pending.push_back(std::move(*taken));
    if (!prediction) {
      log_warning("no outlook for waiting pod " + w.key + ": " + prediction.error().what());
      told_[w.key] = Told{w.pod.pod.uid, {}, now, now, ""};
      continue;
    }
    const std::optional<Outlook> outlook = waiting_outlook(*prediction);
    if (!outlook) continue;  // an existing node has room: the queue's next attempt
    if (!owner.empty()) by_owner.emplace(owner, *outlook);
    tell(w, *outlook, now);
  }
}

void WaitOutlooks::tell(const Scheduler::WaitingPod& w, const Outlook& outlook,
                        Clock::time_point now) {
  if (outlook.kind == Outlook::Kind::kNow) return;  // room appeared: the queue will see it
  Told& told = told_[w.key];
  // The same wait is counted down, however its figures move meanwhile.
  const bool same = told.uid == w.pod.pod.uid && told.outlook.kind == outlook.kind &&
                    told.outlook.pools == outlook.pools && told.outlook.reason == outlook.reason;
  if (!same) told = Told{w.pod.pod.uid, outlook, now, Clock::time_point::min(), ""};
  const auto waited = std::chrono::duration_cast<std::chrono::seconds>(now - told.since).count();
  const std::string note = outlook_event_note(told.outlook, told.outlook.ready_in_seconds - waited);
  told.posted = now;
  if (note == told.note) return;
  told.note = note;
  const bool helped = outlook.kind == Outlook::Kind::kNewNode;
  scheduler_.report(w, helped ? "Normal" : "Warning",
                    helped ? "ScaleUpPredicted" : "NoScaleUpPredicted", note);
}

}  // namespace tightpack::daemon
