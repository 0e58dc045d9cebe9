"""How the candidate's indices are read: its node table against the statement's ids, and the
meaning of a 3-index ``x``'s third index. Each reading that is not the plain one is said in the
verdict (``Verdict.routing_variable``), so nobody has to guess how a pass or a failure came about.

The names ``id2idx``, ``idx2id`` and ``node_ids`` are reserved for the script's table from the
statement's node ids to the positions its ``x`` uses (``NodeMap.from_candidate`` applies it). A
one-to-one table onto 0..N-1 that names *none* of the statement's ids (``"Depot"``, ``"C1"``...) on
a statement that kept the internal numbering is read as labels the script made up for printing:
``x`` is then read by position (positions 0..N-1 are the statement's nodes in its order), and the
verdict says so. ``x``'s index set is already known to be exactly 0..N-1 at this point
(``injection.match_routing_variable`` checks it).

Everywhere else the strict rule holds: a table that shares any id with the statement (``1..N``
labels on a statement numbered ``0..N-1`` included: from the table alone they cannot be told from a
statement that numbered its nodes from 1 in another order), or any table on a statement whose ids
were rewritten, must translate every id of the statement, or the verification ends with
``index_mismatch`` (a verdict on wrongly translated arcs would be noise).
"""

from __future__ import annotations

from collections.abc import Mapping

from vrpcoder.candidate import NodeTable
from vrpcoder.errors import VerificationFailure
from vrpcoder.injection import NodeMap, RoutingVariable
from vrpcoder.instances import Instance
from vrpcoder.optimum import reads_layer_as_vehicle


def own_labels(table: Mapping[str, int], num_nodes: int) -> str | None:
    """Which made-up labelling ``table`` is (see the module docstring), or None."""
    if len(table) != num_nodes or sorted(table.values()) != list(range(num_nodes)):
        return None
    statement = {str(p) for p in range(num_nodes)}
    return None if statement & table.keys() else "names none of the statement's ids"


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
    shown = ", ".join(list(table)[:4]) + (", ..." if len(table) > 4 else "")
    note = (
        f"the script's node table ({shown}) {how}: read as its own labels, and x read by position "
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
