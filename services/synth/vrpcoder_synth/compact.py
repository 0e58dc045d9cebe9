"""The compact response: a short complete script whose only instance-specific part is copied data.

A model of a few million parameters trained on two CPU cores cannot learn the shipped formulations
(a hundred lines each, a different style per sample), but it can learn one fixed skeleton per
variant and *copy* the instance's numbers from the statement into it. So the compact script is
written to make that copy as easy as possible, and stays an ordinary, readable gurobipy script that
follows the candidate protocol (``build_model()``, ``x[i,j]`` over every node pair, ``OutputFlag`` 0):

- the data block ``V`` has one row per node, keyed by the node's id *as the statement writes it*,
  in the statement's order, and each row holds that node's numbers in the order its statement line
  gives them (``Customer 1: location (88.81, 38.66); demand 5.96`` -> ``1: (88.81, 38.66, 5.96)``);
  the fleet's numbers follow in the order of the fleet sentence (``K``, then ``Q``);
- every number is written exactly as the statement writes it (``vrpcoder_synth.statements.fmt``),
  so copying the digits is the whole job;
- the model body after the data is the same for every instance of a variant.

A statement that renames its nodes (``index:*`` paths) gets the protocol's ``node_ids`` /
``id2idx`` table built from the keys of ``V``. Blocks between ``# @omit <family>`` and ``# @end
<family>`` can be left out, which gives the constraint-dropping mutants Stage 4 records (a capacity
omission that DIFF cannot see on an instance where capacity does not bind is what the no-injection
ablation admits into training).
"""

from __future__ import annotations

import hashlib
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

HEADER = "import math\nimport gurobipy as gp\nfrom gurobipy import GRB\n"

_TSP_BODY = '''
def build_model():
    P = list(V.values())
    N = range(len(P))
    d = {(i, j): math.dist(P[i], P[j]) for i in N for j in N}
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

_CVRP_BODY = '''
def build_model():
    P = list(V.values())
    N = range(len(P))
    d = {(i, j): math.dist(P[i][:2], P[j][:2]) for i in N for j in N}
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

_VRPHTW_BODY = '''
def build_model():
    P = list(V.values())
    N = range(len(P))
    d = {(i, j): math.dist(P[i][:2], P[j][:2]) for i in N for j in N}
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


@dataclass(frozen=True, slots=True)
class Skeleton:
    """One variant's compact script: what a row holds, the scalars after ``V``, the fixed body."""

    variant: str
    columns: tuple[str, ...]
    """Names of a row's numbers, in the order the statement line gives them (the row's comment)."""
    row: Row
    scalars: Callable[[Instance], tuple[tuple[str, float], ...]]
    body: str
    check: Callable[[Instance], str | None] = lambda _: None
    """Why this skeleton cannot state ``instance`` (None: it can)."""

    @property
    def omissions(self) -> tuple[str, ...]:
        return block_names(self.body)


def _positive_demands(instance: Instance) -> str | None:
    if any(c.demand <= 0 for c in instance.customers):
        return "a customer without demand (the load chain would admit a cycle through it)"
    return None


SKELETONS: dict[str, Skeleton] = {
    s.variant: s
    for s in (
        Skeleton("TSP", ("x", "y"), _xy, _no_scalars, _TSP_BODY),
        Skeleton("CVRP", ("x", "y", "demand"), _xy_demand, _fleet_and_capacity, _CVRP_BODY, _positive_demands),
        Skeleton("VRPHTW", ("x", "y", "demand", "opens", "closes", "service"), _xy_demand_window_service,
                 _fleet_and_capacity, _VRPHTW_BODY, _positive_demands),
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


def _key(label: str) -> str:
    """A node id as a dict key: integers bare, anything else quoted (``1``, ``'A'``)."""
    return label if label.isdigit() else repr(label)


def data_block(instance: Instance, labels: tuple[str, ...], *, renamed: bool) -> str:
    """``V`` (one row per node, in statement order) and the scalars, written as the statement writes numbers."""
    skeleton = skeleton_for(instance.spec.name)
    rows = [f"    {_key(labels[node])}: ({', '.join(fmt(v) for v in skeleton.row(instance, node))})," for node in range(instance.num_nodes)]
    lines = [f"# node: ({', '.join(skeleton.columns)})", "V = {", *rows, "}"]
    lines += [f"{name} = {fmt(value)}" for name, value in skeleton.scalars(instance)]
    if renamed:
        lines += ["node_ids = list(V)", "id2idx = {nid: i for i, nid in enumerate(node_ids)}"]
    return "\n".join(lines) + "\n"


def render_compact(instance: Instance, labels: tuple[str, ...] | None = None, *, renamed: bool = False, omit: str | None = None) -> str:
    """The compact script of ``instance`` (``labels``: the statement's node ids, default 0..N-1)."""
    skeleton = skeleton_for(instance.spec.name)
    if instance.distance.kind is not DistanceKind.EUCLIDEAN:
        raise ValueError(f"the compact script measures plain Euclidean distance, not {instance.distance.kind.value}")
    if instance.num_depots != 1:
        raise ValueError("the compact script has one depot, node 0")
    problem = skeleton.check(instance)
    if problem:
        raise ValueError(f"the compact {skeleton.variant} script cannot state this instance: {problem}")
    labels = labels or tuple(str(p) for p in range(instance.num_nodes))
    body = apply_omissions(skeleton.body, omit, name=f"compact {skeleton.variant}")
    return f"{HEADER}\n{data_block(instance, labels, renamed=renamed)}\n{body}"


@dataclass(frozen=True)
class CompactCoder:
    """Stage 3 for the small model's training data: the compact script, ``omit`` for its mutants."""

    omit: str | None = None
    name: str = "compact"

    def regenerate(self, sample: Sample, statement: Statement, key: str) -> Regenerated:
        variant = get_variant(sample.variant).name
        label = f"compact:{variant}" + (f"-{self.omit}" if self.omit else "")
        try:
            code = render_compact(sample.instance, statement.labels, renamed=statement.node_id_map is not None, omit=self.omit)
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
