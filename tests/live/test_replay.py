"""The short live case (scripts/test.sh runs it): the seed's first users replayed on the live
cluster under tightpack, 60× condensed, beside `tightpack pack-report` on the same scenario.
Each wave's prediction (the sidebar's question on /snapshot) is what cluster-autoscaler and
tightpack then did, its new nodes Ready when it said (within the condensed clock's grain), each quiet spell's forecast is the nodes cluster-autoscaler removed, and
the live node-hours are the model's, within the condensed clock's grain (a node's creation
time has whole seconds: a live second is a model minute). The full runs: runs.py."""

from __future__ import annotations

import scenarios
from replay import Timing
from runs import pack_report, ready_times, run_one


def test_the_seeds_first_waves_live_agree_with_the_engine(control_plane, tmp_path):
    scenario = scenarios.seed(users=4)
    model = pack_report(scenario, tmp_path)["tightpack"]
    live = run_one(control_plane, scenario, "tightpack", Timing(60.0), tmp_path / "runs")

    judged = [w for w in live["predictions"] if w["complete"]]
    assert len(judged) >= 3, live["predictions"]
    assert all(w["agrees"] for w in judged), [w for w in judged if not w["agrees"]]
    assert any(w["predicted_pools"] for w in judged), "no wave grew a pool: nothing was checked"
    # "about N minutes": each grown pool's new nodes were Ready no sooner than a model minute
    # before the prediction and at most four after it. The prediction is the pool's
    # provisioning time from when cluster-autoscaler acts; live, three steps of a model minute
    # each come first or on top (a live second is a model minute at 60x): the scheduler's
    # attempt and backoff, cluster-autoscaler's loop noticing the pods, kwok's stage making the
    # node Ready on a creation time of whole seconds. On a cloud they are seconds of a 3-10
    # minute boot. Idle, they came to +1.5 to +2.5; in scripts/test.sh, beside the conformance
    # runs, one wave of stop 53's CI came to +3.4 (one of its steps a live second late), hence
    # the fourth minute, as the waiting pods' bound below has. bench/RESULTS.md records the
    # errors of the seed and of a day.
    times = ready_times(live["predictions"])
    assert times and all(-1.0 <= ready - predicted <= 4.0 for _, predicted, ready in times), times
    # The same said on each pod that waited for the new nodes, as the spawn's progress bar shows
    # it, against how long the pod waited from its creation (here also the ReplicaSet's
    # creation of the pod and the binding after the node is Ready: 1.5-2.7 model minutes over
    # the prediction on an idle machine); none was told it cannot start.
    told = [w for w in live["waitEvents"] if w["reason"] == "ScaleUpPredicted"]
    assert told and all(w["waitedMinutes"] is not None and -1.0 <= w["waitedMinutes"] - w["saidMinutes"] <= 4.0
                        for w in told), [(w["pod"], w["saidMinutes"], w["waitedMinutes"]) for w in told]
    assert not [w for w in live["waitEvents"] if w["reason"] == "NoScaleUpPredicted"], live["waitEvents"]
    assert live["forecasts"] and all(f["agrees"] for f in live["forecasts"]), live["forecasts"]
    assert live["pendingAtEnd"] == 0 and live["nodesAdded"] >= 1
    assert live["peakNodes"] == model["peakBusyNodes"], (live, model)
    assert abs(live["nodeHours"] - model["nodeHours"]) <= 0.1 * model["nodeHours"], (live, model)
