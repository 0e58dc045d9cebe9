"""The rendered script text: protocol, modules per family, settings, embedded data."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable

import pytest
from vrpcoder.distances import DistanceKind, pair_distance
from vrpcoder.gold import AuxModule, is_two_index, module_names, render_gold
from vrpcoder.gold.render import two_index_allowed
from vrpcoder.instances import DistanceSpec, Instance
from vrpcoder.variants import VARIANTS

ALL_VARIANTS = list(VARIANTS)


def _top_level_functions(script: str) -> set[str]:
    return {node.name for node in ast.parse(script).body if isinstance(node, ast.FunctionDef)}


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_script_follows_the_protocol(variant: str, tiny_instance: Callable[..., Instance]) -> None:
    script = render_gold(tiny_instance(variant))
    assert "build_model" in _top_level_functions(script)
    assert "import gurobipy as gp" in script and "from gurobipy import GRB" in script
    if two_index_allowed(tiny_instance(variant)):
        assert 'x = m.addVars(N, N, vtype=GRB.BINARY, name="x")' in script and is_two_index(script)
    else:
        assert 'x = m.addVars(N, N, K, vtype=GRB.BINARY, name="x")' in script and not is_two_index(script)
    assert 'if __name__ == "__main__":' in script
    assert "    # >>> module: variables" in script.splitlines()


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_every_family_has_its_module(variant: str, tiny_instance: Callable[..., Instance]) -> None:
    names = module_names(render_gold(tiny_instance(variant)))
    families = [f.value for f in VARIANTS[variant].families]
    assert set(families) <= set(names)
    assert len(names) == len(set(names)), "a module name appears twice"
    assert names[0] == AuxModule.VARIABLES and names[-1] == AuxModule.OBJECTIVE
    assert set(names) - set(families) <= {m.value for m in AuxModule}


def test_symmetry_breaking_only_for_interchangeable_vehicles(tiny_instance: Callable[..., Instance]) -> None:
    assert AuxModule.SYMMETRY_BREAKING in module_names(render_gold(tiny_instance("CVRP"), two_index=False))
    assert AuxModule.SYMMETRY_BREAKING not in module_names(render_gold(tiny_instance("CVRP")))  # no vehicle index
    for variant in ("HFVRP", "HFMDVRP", "HFMCVRP", "HFVRPHTW", "TSP"):
        assert AuxModule.SYMMETRY_BREAKING not in module_names(render_gold(tiny_instance(variant)))


def test_solver_settings_follow_the_arguments(tiny_instance: Callable[..., Instance]) -> None:
    inst = tiny_instance("CVRP")
    default = render_gold(inst)
    assert "m.Params.Threads = 1" in default and "m.Params.TimeLimit = 60.0" in default
    assert "MIPFocus" not in default
    tuned = render_gold(inst, time_limit=15, threads=2, mip_focus=1)
    assert "m.Params.Threads = 2" in tuned
    assert "m.Params.TimeLimit = 15.0" in tuned
    assert "m.Params.MIPFocus = 1" in tuned


INVALID_SETTINGS: list[tuple[dict[str, float | int | None], str]] = [
    ({"time_limit": 0.0}, "time_limit"),
    ({"time_limit": -1.0}, "time_limit"),
    ({"threads": 0}, "threads"),
    ({"mip_focus": 4}, "mip_focus"),
]


@pytest.mark.parametrize(("kwargs", "message"), INVALID_SETTINGS)
def test_invalid_settings_are_refused(
    kwargs: dict[str, float | int | None], message: str, tiny_instance: Callable[..., Instance]
) -> None:
    with pytest.raises(ValueError, match=message):
        render_gold(tiny_instance("CVRP"), **kwargs)  # type: ignore[arg-type]


def test_coordinate_distances_embed_the_shared_definition(tiny_instance: Callable[..., Instance]) -> None:
    script = render_gold(tiny_instance("CVRP"))
    assert inspect.getsource(pair_distance).rstrip() in script
    namespace: dict[str, object] = {"__name__": "render_test"}
    exec(compile(script, "<gold>", "exec"), namespace)
    assert namespace["DIST"] == tiny_instance("CVRP").distances


def test_explicit_distances_are_embedded_as_a_matrix(tiny_instance: Callable[..., Instance]) -> None:
    base = tiny_instance("CVRP")
    matrix = tuple(tuple(float(10 * i + j) for j in range(base.num_nodes)) for i in range(base.num_nodes))
    spec = DistanceSpec(kind=DistanceKind.EXPLICIT, matrix=matrix)
    inst = Instance.model_validate({**base.model_dump(), "distance": spec.model_dump()})
    script = render_gold(inst)
    assert "def pair_distance" not in script
    namespace: dict[str, object] = {"__name__": "render_test"}
    exec(compile(script, "<gold>", "exec"), namespace)
    expected = [
        [0.0 if i == j else matrix[i][j] for j in range(inst.num_nodes)] for i in range(inst.num_nodes)
    ]
    assert namespace["DIST"] == expected
