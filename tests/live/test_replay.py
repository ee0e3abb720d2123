"""The short live case (scripts/test.sh runs it): the seed's first users replayed on the live
cluster under tightpack, 60× condensed, beside `tightpack pack-report` on the same scenario.
Each wave's prediction (the sidebar's question on /snapshot) is what cluster-autoscaler and
tightpack then did, each quiet spell's forecast is the nodes cluster-autoscaler removed, and
the live node-hours are the model's, within the condensed clock's grain (a node's creation
time has whole seconds: a live second is a model minute). The full runs: runs.py."""

from __future__ import annotations

import scenarios
from replay import Timing
from runs import pack_report, run_one


def test_the_seeds_first_waves_live_agree_with_the_engine(control_plane, tmp_path):
    scenario = scenarios.seed(users=4)
    model = pack_report(scenario, tmp_path)["tightpack"]
    live = run_one(control_plane, scenario, "tightpack", Timing(60.0), tmp_path / "runs")

    judged = [w for w in live["predictions"] if w["complete"]]
    assert len(judged) >= 3, live["predictions"]
    assert all(w["agrees"] for w in judged), [w for w in judged if not w["agrees"]]
    assert any(w["predicted_pools"] for w in judged), "no wave grew a pool: nothing was checked"
    assert live["forecasts"] and all(f["agrees"] for f in live["forecasts"]), live["forecasts"]
    assert live["pendingAtEnd"] == 0 and live["nodesAdded"] >= 1
    assert live["peakNodes"] == model["peakBusyNodes"], (live, model)
    assert abs(live["nodeHours"] - model["nodeHours"]) <= 0.1 * model["nodeHours"], (live, model)
