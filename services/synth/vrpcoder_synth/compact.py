"""The compact response: a short complete script whose only instance-specific part is copied text.

A model of a few million parameters trained on two CPU cores cannot learn the shipped formulations
(a hundred lines each, a different style per sample), but it can learn one fixed skeleton per
variant and *copy* the instance's data from the statement into it. What such a model learns first
and best is verbatim copying (the next token is the one that followed the same tokens in the
prompt); putting each number into a Python literal instead needs it to find, for every field, the
right number of the right line across words it must skip, which a first model trained here (rows
``1: (88.81, 38.66, 5.96)``, 1,200 SFT steps) never learned: it wrote the skeleton perfectly and
invented every number. So the compact script carries the data as the statement writes it:

- ``NODES`` holds the statement's node lines verbatim, one per node in the statement's order (depots
  first), and ``FLEET`` its fleet sentence; the statement's tokens and the script's are the same;
- a fixed regular expression reads each line's numbers in order (the coordinates after ``(`` and
  ``, ``, then the values after ``demand``, ``from``, ``to`` and ``time``), so node ``i``'s numbers
  are ``P[i]``; the fleet's size and capacity are read from ``FLEET``;
- the model body after the data is the same for every instance of a variant and follows the
  candidate protocol (``build_model()``, ``x[i,j]`` over every node pair, ``OutputFlag`` 0).

``render_compact`` checks that the expression reads back exactly the instance's numbers before it
returns a script, so a statement worded another way gives no script rather than a wrong one. A
statement that renames its nodes (``index:*`` paths) gets the protocol's ``node_ids`` list. Blocks
between ``# @omit <family>`` and ``# @end <family>`` can be left out, which gives the
constraint-dropping mutants Stage 4 records (a time-window omission that DIFF cannot see on an
instance where the windows do not bind is what the no-injection ablation admits into training).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass

from vrpcoder.distances import DistanceKind
from vrpcoder.families import Family
from vrpcoder.instances import Instance
from vrpcoder.samples import Sample
from vrpcoder.variants import get_variant

from vrpcoder_synth.formulations import apply_omissions, block_names
from vrpcoder_synth.regenerate import Omission, Regenerated, as_completion
from vrpcoder_synth.statements import Statement, fmt
from vrpcoder_client.reward import extract_code

HEADER = "import math\nimport re\nimport gurobipy as gp\nfrom gurobipy import GRB\n"

READERS = (
    'VALUE = r"(\\d+(?:\\.\\d+)?)"\n'
    'NUMBER = r"(?:\\(|, |demand |from |to |time )" + VALUE\n'
)
"""How a script reads numbers: every value of a node line comes after one of these words."""

_PARSE = """    P = [[float(v) for v in re.findall(NUMBER, line)] for line in NODES.strip().splitlines()]"""
_FLEET = """    K = int(re.search(r"(\\d+) identical", FLEET)[1])
    Q = float(re.search("capacity of " + VALUE, FLEET)[1])"""

_TSP_BODY = f'''
def build_model():
{_PARSE}
    N = range(len(P))
    d = {{(i, j): math.dist(P[i], P[j]) for i in N for j in N}}
    m = gp.Model()
    m.Params.OutputFlag = 0
    x = m.addVars(N, N, vtype=GRB.BINARY, name="x")
    u = m.addVars(N, name="u")
    m.setObjective(x.prod(d))
    m.addConstrs(x[i, i] == 0 for i in N)
    m.addConstrs(x.sum(i, "*") == 1 for i in N)
    m.addConstrs(x.sum("*", i) == 1 for i in N)
    # @omit subtour
    m.addConstrs((x[i, j] == 1) >> (u[j] >= u[i] + 1) for i, j in d if j and j != i)
    # @end subtour
    m.optimize()
    return m
'''

_CVRP_BODY = f'''
def build_model():
{_PARSE}
    P[0].append(0.0)  # the depot has no demand
{_FLEET}
    N = range(len(P))
    d = {{(i, j): math.dist(P[i][:2], P[j][:2]) for i in N for j in N}}
    m = gp.Model()
    m.Params.OutputFlag = 0
    x = m.addVars(N, N, vtype=GRB.BINARY, name="x")
    u = m.addVars(N, name="u")
    m.setObjective(x.prod(d))
    m.addConstrs(x[i, i] == 0 for i in N)
    m.addConstrs(x.sum(i, "*") == 1 for i in N if i)
    m.addConstrs(x.sum("*", i) == 1 for i in N if i)
    m.addConstr(x.sum(0, "*") <= K)
    m.addConstrs((x[i, j] == 1) >> (u[j] >= u[i] + P[j][2]) for i, j in d if j and j != i)
    # @omit capacity
    m.addConstrs(u[i] <= Q for i in N)
    # @end capacity
    m.optimize()
    return m
'''
"""Loads ``u`` grow along every arc into a customer by its demand (the sampler's demands are positive,
so this also rules out customer-only cycles), and stay within ``Q``. The objective's sense is Gurobi's
default, minimisation."""

_VRPHTW_BODY = f'''
def build_model():
{_PARSE}
    P[0] = P[0][:2] + [0.0] + P[0][2:] + [0.0]  # the depot: no demand, its hours, no service
{_FLEET}
    N = range(len(P))
    d = {{(i, j): math.dist(P[i][:2], P[j][:2]) for i in N for j in N}}
    m = gp.Model()
    m.Params.OutputFlag = 0
    x = m.addVars(N, N, vtype=GRB.BINARY, name="x")
    u = m.addVars(N, name="u")
    t = m.addVars(N, lb=[p[3] for p in P], name="t")
    m.setObjective(x.prod(d))
    m.addConstrs(x[i, i] == 0 for i in N)
    m.addConstrs(x.sum(i, "*") == 1 for i in N if i)
    m.addConstrs(x.sum("*", i) == 1 for i in N if i)
    m.addConstr(x.sum(0, "*") <= K)
    m.addConstrs((x[i, j] == 1) >> (u[j] >= u[i] + P[j][2]) for i, j in d if j and j != i)
    # @omit capacity
    m.addConstrs(u[i] <= Q for i in N)
    # @end capacity
    m.addConstrs((x[i, j] == 1) >> (t[j] >= t[i] + P[i][5] + d[i, j]) for i, j in d if j and j != i)
    # @omit time_window
    m.addConstrs(t[i] <= P[i][4] for i in N)
    m.addConstrs((x[i, 0] == 1) >> (t[i] + P[i][5] + d[i, 0] <= P[0][4]) for i in N if i)
    # @end time_window
    m.optimize()
    return m
'''
"""Start times ``t`` begin at the window's opening (the depot's: its opening hour, when every vehicle
leaves), follow every used arc with service and travel, end by the window's close, and a closed route
is back before the depot closes."""


Row = Callable[[Instance, int], tuple[float, ...]]


def _xy(instance: Instance, node: int) -> tuple[float, ...]:
    return tuple(instance.coords[node])


def _xy_demand(instance: Instance, node: int) -> tuple[float, ...]:
    demand = 0.0 if node < instance.num_depots else instance.customer(node).demand
    return (*instance.coords[node], demand)


def _xy_demand_window_service(instance: Instance, node: int) -> tuple[float, ...]:
    if node < instance.num_depots:
        window = instance.depots[node].window
        service = 0.0
    else:
        window = instance.customer(node).window
        service = instance.customer(node).service_time
    if window is None:
        raise ValueError(f"node {node} has no time window")
    return (*_xy_demand(instance, node), window.start, window.end, service)


def _no_scalars(_: Instance) -> tuple[tuple[str, float], ...]:
    return ()


def _fleet_and_capacity(instance: Instance) -> tuple[tuple[str, float], ...]:
    return (("K", float(len(instance.vehicles))), ("Q", float(instance.vehicles[0].capacity or 0.0)))


def _positive_demands_and_fleet(instance: Instance) -> str | None:
    if any(c.demand <= 0 for c in instance.customers):
        return "a customer without demand (the load chain would admit a cycle through it)"
    if len(instance.vehicles) < 2 or len({(v.capacity, v.fixed_cost, v.cost_per_distance) for v in instance.vehicles}) != 1:
        return "not a fleet of two or more identical vehicles (the fleet sentence it reads)"
    return None


@dataclass(frozen=True, slots=True)
class Skeleton:
    """One variant's compact script: what ``P[i]`` holds, whether the fleet sentence is copied, the body."""

    variant: str
    columns: tuple[str, ...]
    """Names of the numbers of ``P[i]`` once the body has filled in what a depot line does not state."""
    row: Row
    """What ``P[i]`` must hold for ``instance`` (the script's reading is checked against it)."""
    scalars: Callable[[Instance], tuple[tuple[str, float], ...]]
    """What the body reads from ``FLEET`` (none: no fleet sentence is copied)."""
    body: str
    check: Callable[[Instance], str | None] = lambda _: None
    """Why this skeleton cannot state ``instance`` (None: it can)."""

    @property
    def omissions(self) -> tuple[str, ...]:
        return block_names(self.body)


SKELETONS: dict[str, Skeleton] = {
    s.variant: s
    for s in (
        Skeleton("TSP", ("x", "y"), _xy, _no_scalars, _TSP_BODY),
        Skeleton("CVRP", ("x", "y", "demand"), _xy_demand, _fleet_and_capacity, _CVRP_BODY, _positive_demands_and_fleet),
        Skeleton("VRPHTW", ("x", "y", "demand", "opens", "closes", "service"), _xy_demand_window_service,
                 _fleet_and_capacity, _VRPHTW_BODY, _positive_demands_and_fleet),
    )
}
"""The variants the compact response covers (the one table the coder and the tests read)."""


def compact_variants() -> frozenset[str]:
    return frozenset(SKELETONS)


def compact_version() -> str:
    """A digest of the skeletons: it enters the synth items' keys, so a changed script is written anew."""
    text = "\n".join(f"{s.variant}|{s.columns}|{s.body}" for s in SKELETONS.values())
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def skeleton_for(variant: str) -> Skeleton:
    name = get_variant(variant).name
    if name not in SKELETONS:
        raise ValueError(f"no compact script for {name} (covered: {', '.join(sorted(SKELETONS))})")
    return SKELETONS[name]


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("# @")]


def dropped_blocks(code: str, variant: str) -> tuple[str, ...] | None:
    """The omit blocks of ``variant``'s skeleton that ``code`` leaves out, or None when ``code`` does not
    follow the skeleton outside them (then what it lacks is not one rule but the script's shape).

    This reads a generated script at the constraint level: a model that writes the compact skeleton
    but skips the capacity line has dropped the capacity rule, whatever the verifier can see of it.
    """
    skeleton = skeleton_for(variant)
    present = set(_lines(code))
    full = _lines(apply_omissions(skeleton.body, None))
    blocks = {block: [line for line in full if line not in _lines(apply_omissions(skeleton.body, block))]
              for block in skeleton.omissions}
    kept = [line for line in full if not any(line in lines for lines in blocks.values())]
    if not all(line in present for line in kept):
        return None
    return tuple(block for block, lines in blocks.items() if not all(line in present for line in lines))


def node_lines(statement: Statement, num_nodes: int, num_depots: int) -> tuple[str, ...]:
    """Each node's line of the statement (the line that opens with the node's name), in node order."""
    scene = statement.hint.scene
    found = []
    for node in range(num_nodes):
        name = f"{scene.depot if node < num_depots else scene.customer} {statement.labels[node]}"
        name = name[:1].upper() + name[1:]
        lines = [line for line in statement.text.splitlines() if line.startswith(name) and line[len(name):len(name) + 1] in (":", " ")]
        if len(lines) != 1:
            raise ValueError(f"node {node} ({name}) has {len(lines)} lines in the statement, not one")
        found.append(lines[0])
    return tuple(found)


def fleet_line(statement: Statement) -> str:
    """The statement's fleet sentence (a fleet of identical vehicles)."""
    lines = [line for line in statement.text.splitlines() if line.startswith("There are ") and " identical " in line]
    if len(lines) != 1:
        raise ValueError(f"the statement has {len(lines)} sentences of a fleet of identical vehicles, not one")
    return lines[0]


def read_back(code: str) -> tuple[list[list[float]], dict[str, float]]:
    """What a compact script's data block and reading lines give (run without gurobipy): ``P`` as the
    body reads it before filling in the depot, and the fleet's ``K`` and ``Q``."""
    scope: dict[str, object] = {"re": re}
    data = code.split("\ndef build_model():", 1)[0]
    exec("\n".join(line for line in data.splitlines() if not line.startswith(("import", "from"))), scope)  # noqa: S102
    parse = _PARSE.strip()
    exec(parse, scope)  # noqa: S102
    fleet: dict[str, float] = {}
    if "FLEET" in scope:
        exec("\n".join(line.strip() for line in _FLEET.splitlines()), scope)  # noqa: S102
        fleet = {"K": float(scope["K"]), "Q": float(scope["Q"])}  # type: ignore[arg-type]
    return scope["P"], fleet  # type: ignore[return-value]


def _stated(instance: Instance, node: int, skeleton: Skeleton) -> list[float]:
    """``P[node]`` as the script reads it from the line, before the body fills in a depot's gaps."""
    row = list(skeleton.row(instance, node))
    if node < instance.num_depots:
        keep = [i for i, name in enumerate(skeleton.columns) if name not in ("demand", "service")]
        row = [row[i] for i in keep]
    return row


def render_compact(statement: Statement, instance: Instance, *, omit: str | None = None) -> str:
    """The compact script of ``instance`` with the data of its ``statement``, checked to read back."""
    skeleton = skeleton_for(instance.spec.name)
    if instance.distance.kind is not DistanceKind.EUCLIDEAN:
        raise ValueError(f"the compact script measures plain Euclidean distance, not {instance.distance.kind.value}")
    if instance.num_depots != 1:
        raise ValueError("the compact script has one depot, node 0")
    problem = skeleton.check(instance)
    if problem:
        raise ValueError(f"the compact {skeleton.variant} script cannot state this instance: {problem}")
    parts = ["# The statement's lines on the nodes (and the fleet), as written; the numbers are read in order.",
             'NODES = """', *node_lines(statement, instance.num_nodes, instance.num_depots), '"""']
    if skeleton.scalars(instance):
        parts += ['FLEET = """', fleet_line(statement), '"""']
    if statement.node_id_map is not None:
        parts.append(f"node_ids = {list(statement.labels)!r}")
    data = "\n".join(parts) + "\n" + READERS
    body = apply_omissions(skeleton.body, omit, name=f"compact {skeleton.variant}")
    code = f"{HEADER}\n{data}\n{body}"
    rows, fleet = read_back(code)
    expected = [_stated(instance, node, skeleton) for node in range(instance.num_nodes)]
    if rows != expected or fleet != dict(skeleton.scalars(instance)):
        raise ValueError("the statement's lines do not read back as the instance's numbers")
    return code


@dataclass(frozen=True)
class CompactCoder:
    """Stage 3 for the small model's training data: the compact script, ``omit`` for its mutants."""

    omit: str | None = None
    name: str = "compact"

    def regenerate(self, sample: Sample, statement: Statement, key: str) -> Regenerated:
        variant = get_variant(sample.variant).name
        label = f"compact:{variant}" + (f"-{self.omit}" if self.omit else "")
        try:
            code = render_compact(statement, sample.instance, omit=self.omit)
        except ValueError as exc:
            # An instance the skeleton cannot state: no script (Stage 4 records it as ``no_code``).
            return Regenerated(completion="", code=None, coder=f"{label} ({exc})"[:160])
        completion = as_completion(code)
        return Regenerated(completion=completion, code=extract_code(completion), coder=label)

    def omissions(self, sample: Sample) -> tuple[Omission, ...]:
        skeleton = skeleton_for(sample.variant)
        return tuple(Omission(f"compact_{skeleton.variant.lower()}", block, Family(block)) for block in skeleton.omissions)

    def mutant(self, formulation: str, omit: str) -> CompactCoder:
        return CompactCoder(omit=omit)
