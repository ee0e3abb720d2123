"""Which workers leave: upstream's number, taken node by node.

Pure functions over `Candidate` records, so that the rule can be property-tested without a
scheduler. `scheduler.py` builds the records from distributed's `WorkerState`s.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    """A worker the Dask scheduler may retire (not long-running, kept by no plugin)."""

    address: str
    idle: bool
    nbytes: int
    memory_limit: int
    node: str | None  # the Kubernetes node it runs on; None when unknown


class NotChosen(Exception):
    """The rule cannot choose: the caller keeps upstream's choice (and logs why)."""


def upstream_order(workers: Iterable[Candidate]) -> list[Candidate]:
    """distributed's `Scheduler.workers_to_close` order with one worker a group: idle first,
    then least data, then the greatest address string."""
    by_address = sorted(workers, key=lambda w: w.address)  # Scheduler.workers is a SortedDict
    ordered = sorted(by_address, key=lambda w: (w.idle, -w.nbytes))  # stable, as upstream's
    return list(reversed(ordered))  # upstream pops from the end


def node_aware(
    upstream: Sequence[Candidate],
    eligible: Sequence[Candidate],
    own_per_node: Mapping[str, int],
    kept_nodes: Iterable[str] = (),
    memory_bound: bool = False,
    first_nodes: Iterable[str] = (),
) -> list[Candidate]:
    """As many workers as `upstream` chose, from the same tiers, node by node.

    upstream: what `workers_to_close` returned; eligible: every worker it could have
    returned; own_per_node: node -> all of this Dask cluster's workers there (eligible or
    not); kept_nodes: nodes something else keeps (another user's pod, a pool at its
    minimum size); memory_bound: upstream counted by memory_ratio, not `n`, so the chosen
    workers may not add up to more memory than upstream's; first_nodes: nodes whose workers
    go before any other's (a move's drained node, drain.py).
    """
    if not upstream:
        return []
    eligible_set = {w.address for w in eligible}
    if any(w.address not in eligible_set for w in upstream):
        raise NotChosen("upstream chose a worker outside the candidates")
    unknown = [w.address for w in eligible if not w.node]
    if unknown:
        raise NotChosen(f"no node known for {len(unknown)} worker(s), e.g. {unknown[0]}")
    busy_wanted = sum(1 for w in upstream if not w.idle)
    idle = [w for w in eligible if w.idle]
    if busy_wanted:
        # Upstream reaches a busy worker only once every idle one is taken.
        if len(upstream) - busy_wanted != len(idle):
            raise NotChosen("upstream took busy workers before idle ones")
        going = Counter(w.node for w in idle)
        chosen = idle + _by_node([w for w in eligible if not w.idle], busy_wanted, own_per_node, kept_nodes,
                                 first_nodes, going)
    else:
        chosen = _by_node(idle, len(upstream), own_per_node, kept_nodes, first_nodes)
    if memory_bound and sum(w.memory_limit for w in chosen) > sum(w.memory_limit for w in upstream):
        raise NotChosen("the node-aware choice would leave less memory than memory_ratio asks")
    return chosen


def _by_node(
    tier: Sequence[Candidate],
    count: int,
    own_per_node: Mapping[str, int],
    kept_nodes: Iterable[str],
    first_nodes: Iterable[str] = (),
    going: Mapping[str, int] | None = None,
) -> list[Candidate]:
    """`count` of `tier`, node by node; `going`: node -> workers there already chosen."""
    going = going or {}
    on_node: dict[str, list[Candidate]] = defaultdict(list)
    for w in upstream_order(tier):
        on_node[w.node].append(w)
    kept, first = set(kept_nodes), set(first_nodes)

    def rank(node: str) -> tuple:
        mine = on_node[node]
        # A node empties only if nothing else keeps it and every worker of ours there goes.
        stays = node in kept or own_per_node.get(node, len(mine)) - going.get(node, 0) > len(mine)
        return (node not in first, stays, len(mine), sum(w.nbytes for w in mine), node)

    ordered = [w for node in sorted(on_node, key=rank) for w in on_node[node]]
    return ordered[:count]
