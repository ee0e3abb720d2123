"""The short live case (scripts/test.sh runs it): the seed's first users replayed on the live
cluster under tightpack, 30× condensed, beside `tightpack pack-report` on the same scenario.
Each wave's prediction (the sidebar's question on /snapshot) is what cluster-autoscaler and
tightpack then did, its new nodes Ready when it said (within the condensed clock's grain),
each quiet spell's forecast is the nodes cluster-autoscaler removed, and the live node-hours
are the model's, within the condensed clock's grain (a node's creation time has whole
seconds: a live second is half a model minute). The full runs: runs.py.

Why 30× and not 60×: the bounds below are in model minutes, and what a busy machine adds
(scripts/test.sh runs this beside the conformance runs) is live seconds. At 60× a live
second is a model minute, and stops 53 and 55's CI each went past a bound by one or two
live seconds. At 30× the same seconds are half the error; the test takes about twice as
long, which scripts/test.sh hides behind the conformance runs it waits for anyway."""

from __future__ import annotations

import scenarios
from replay import Timing
from runs import pack_report, ready_times, run_one

TIMING = Timing(30.0)


def test_the_seeds_first_waves_live_agree_with_the_engine(control_plane, tmp_path):
    scenario = scenarios.seed(users=4)
    model = pack_report(scenario, tmp_path)["tightpack"]
    live = run_one(control_plane, scenario, "tightpack", TIMING, tmp_path / "runs")

    judged = [w for w in live["predictions"] if w["complete"]]
    assert len(judged) >= 3, live["predictions"]
    assert all(w["agrees"] for w in judged), [w for w in judged if not w["agrees"]]
    assert any(w["predicted_pools"] for w in judged), "no wave grew a pool: nothing was checked"
    # "about N minutes": each grown pool's new nodes were Ready no sooner than a model minute
    # before the prediction and at most four after it. The prediction is the pool's
    # provisioning time from when cluster-autoscaler acts; live, three steps come first or on
    # top: the scheduler's attempt and backoff (a live second), cluster-autoscaler's loop
    # noticing the pods (a model minute), kwok's stage making the node Ready on a creation
    # time of whole live seconds. On a cloud they are seconds of a 3-10 minute boot. Idle at
    # 30x they came to +0.8; at 60x, +1.5 to +2.5, and beside the conformance runs in
    # scripts/test.sh one wave of stop 53's CI came to +3.4. bench/RESULTS.md records the
    # errors of the seed and of a day.
    times = ready_times(live["predictions"])
    told = [w for w in live["waitEvents"] if w["reason"] == "ScaleUpPredicted"]
    print("ready - predicted, model minutes:", [round(ready - predicted, 1) for _, predicted, ready in times])
    print("waited - said, model minutes:", sorted(round(w["waitedMinutes"] - w["saidMinutes"], 1)
                                                 for w in told if w["waitedMinutes"] is not None))
    assert times and all(-1.0 <= ready - predicted <= 4.0 for _, predicted, ready in times), times
    # The same said on each pod that waited for the new nodes, as the spawn's progress bar shows
    # it, against how long the pod waited from its creation (here also the ReplicaSet's
    # creation of the pod and the binding after the node is Ready: +0.7 to +1.1 model minutes
    # over the prediction idle at 30x, +1.5 to +2.7 at 60x, past +4 once in stop 55's CI);
    # none was told it cannot start.
    assert told and all(w["waitedMinutes"] is not None and -1.0 <= w["waitedMinutes"] - w["saidMinutes"] <= 4.0
                        for w in told), [(w["pod"], w["saidMinutes"], w["waitedMinutes"]) for w in told]
    assert not [w for w in live["waitEvents"] if w["reason"] == "NoScaleUpPredicted"], live["waitEvents"]
    assert live["forecasts"] and all(f["agrees"] for f in live["forecasts"]), live["forecasts"]
    assert live["pendingAtEnd"] == 0 and live["nodesAdded"] >= 1
    assert live["peakNodes"] == model["peakBusyNodes"], (live, model)
    assert abs(live["nodeHours"] - model["nodeHours"]) <= 0.1 * model["nodeHours"], (live, model)
