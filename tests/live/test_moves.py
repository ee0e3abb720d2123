"""Moves on the live cluster (moves.py): two users' protected workers leave bob's six on two
half-empty dask-workers nodes once alice leaves; cluster-autoscaler alone keeps both until bob
leaves (his workers block its drain), and the model says one move saves 0.64 node-hours. Live,
at 60×: tightpack's mover makes bob's replacements beside his other workers, the Dask side
(played by moves.py, as dask-gateway's count and tightpack-dask's preload) drains and retires
the old ones, and the node the move emptied is the one the real cluster-autoscaler removes."""

from __future__ import annotations

import copy

import scenarios
from replay import Timing
from runs import pack_report, run_one


def test_the_node_a_move_empties_is_the_one_cluster_autoscaler_removes(control_plane, tmp_path):
    scenario = scenarios.move_case()
    model = pack_report(scenario, tmp_path)["tightpack"]
    without = copy.deepcopy(scenario)
    without.pop("consolidate")
    model_without = pack_report(without, tmp_path)["tightpack"]
    assert model["moves"] == 1 and model["nodeHours"] < model_without["nodeHours"], (model, model_without)

    live = run_one(control_plane, scenario, "tightpack", Timing(60.0), tmp_path / "runs", moves=True)
    moves = live["moves"]
    assert moves["done"] == 1 and moves["abandoned"] == 0, moves
    assert moves["emptied"] == 1 and moves["removed"] == 1 and not moves["kept"], moves
    assert live["podsEvicted"] == 0 and live["pendingAtEnd"] == 0, live
    # What the move saved live is what the model says, within the condensed clock's grain (the
    # mover looks every 2 live seconds, two model minutes, where the model breaks in one).
    assert live["nodeHours"] < model_without["nodeHours"] - 0.3, (live, model_without)
    assert abs(live["nodeHours"] - model["nodeHours"]) <= 0.1 * model["nodeHours"], (live, model)
