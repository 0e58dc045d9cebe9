"""How the candidate's indices are read: its node table against the statement's ids, and the
meaning of a 3-index ``x``'s third index. Each reading that is not the plain one is said in the
verdict (``Verdict.routing_variable``), so nobody has to guess how a pass or a failure came about.

The names ``id2idx``, ``idx2id`` and ``node_ids`` are reserved for the script's table from the
statement's node ids to the positions its ``x`` uses (``NodeMap.from_candidate`` applies it).

On a statement that kept the internal numbering (0..N-1), a one-to-one table onto 0..N-1 is a
translation only when its ids are exactly the statement's ids (any order): then it is applied.
Any other such table names ids the statement does not have and, having N entries, lacks as many
that it does have, so it cannot translate the statement's nodes: it holds labels the script made up
for printing (``"Depot"``, ``"C1"``, or ``1..N`` beside an ``x`` indexed ``0..N-1``). ``x`` is then
read by position (positions 0..N-1 are the statement's nodes in its order) and the verdict says so.
That is what such a script means: its data and its ``x`` follow the statement's listing, and its
labels only touch its printout. ``x``'s index set is already known to lie in 0..N-1 at this point
(``injection.match_routing_variable`` checks it).

On a statement whose ids were rewritten (the sample carries a ``node_id_map``) the strict rule
always holds: the table must translate every id of the statement, or the verification ends with
``index_mismatch``. There the statement's listing need not be the internal order, so reading by
position would judge wrongly translated arcs; a verdict on those would be noise.
"""
from __future__ import annotations

from collections.abc import Mapping

from vrpcoder.candidate import NodeTable
from vrpcoder.errors import VerificationFailure
from vrpcoder.injection import NodeMap, RoutingVariable
from vrpcoder.instances import Instance
from vrpcoder.optimum import reads_layer_as_vehicle


def own_labels(table: Mapping[str, int], num_nodes: int) -> str | None:
    """Why ``table`` is read as the script's own labels on a statement numbered 0..N-1 (see the
    module docstring), or None when it is no node table or is exactly the statement's ids."""
    if len(table) != num_nodes or sorted(table.values()) != list(range(num_nodes)):
        return None
    statement = [str(p) for p in range(num_nodes)]
    foreign = [label for label in table if label not in statement]
    if not foreign:
        return None
    if len(foreign) == num_nodes:
        return "names none of the statement's ids"
    lacking = [label for label in statement if label not in table]
    return (
        f"names ids the statement does not have ({_shown(foreign, 3)}) and lacks ids it has "
        f"({_shown(lacking, 3)}), so it is no table of the statement's ids"
    )


def _shown(labels: list[str], limit: int) -> str:
    return ", ".join(labels[:limit]) + (", ..." if len(labels) > limit else "")


def candidate_node_map(
    node_table: NodeTable, node_id_map: Mapping[str, str] | None, num_nodes: int
) -> tuple[NodeMap, str | None]:
    """The node map INJ and the optimum check use, and a note when ``x`` is read by position
    although the script defines a node table (see the module docstring)."""
    try:
        return NodeMap.from_candidate(node_table, node_id_map, num_nodes), None
    except VerificationFailure:
        table = node_table.table
        if node_id_map is not None or node_table.error is not None or table is None:
            raise
        how = own_labels(table, num_nodes)
        if how is None:
            raise
    note = (
        f"the script's node table ({_shown(list(table), 4)}) {how}: read as its own labels, and x read by position "
        f"(positions 0..{num_nodes - 1} are the statement's nodes in order)"
    )
    return NodeMap.identity(num_nodes), note


def layer_note(instance: Instance, xvar: RoutingVariable) -> str | None:
    """How a 3-index ``x``'s third index was read, when it is not the fleet's vehicle indices."""
    if xvar.dims != 3:
        return None
    layers = sorted(xvar.vehicles)
    fleet = len(instance.vehicles)
    if layers == list(range(fleet)) or reads_layer_as_vehicle(instance, xvar.dims, layers):
        return None
    shown = f"{layers[0]}..{layers[-1]}" if layers == list(range(layers[0], layers[-1] + 1)) else str(layers)
    if len(layers) == instance.num_depots > 1:
        kind = f"one value per depot ({shown}), read as the depot layer a route belongs to, not as a vehicle"
    else:
        kind = f"{shown}, not the fleet's vehicles 0..{fleet - 1}: read as a layer that keeps a route's arcs together"
    return (
        f"x's third index takes {kind}; a probe's route is bound to one layer, and the routes of the "
        "candidate's own optimum are given distinct vehicles of their depots"
    )
