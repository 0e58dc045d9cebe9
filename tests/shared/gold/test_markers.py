"""Module markers: listing, deleting one module, and dropping a family with the joint cuts."""

from __future__ import annotations

import pytest
from vrpcoder.gold import module_names, remove_family, remove_module, strip_joint_modules

SCRIPT = """def build_model():
    m = make()
    # >>> module: variables
    x = 1
    # <<< module: variables
    # >>> module: capacity
    m.cap = x
    # <<< module: capacity
    # >>> module: valid_inequalities
    m.cut = x
    # <<< module: valid_inequalities
    return m
"""


def test_module_names_in_script_order() -> None:
    assert module_names(SCRIPT) == ["variables", "capacity", "valid_inequalities"]


def test_remove_module_cuts_exactly_the_marked_lines() -> None:
    out = remove_module(SCRIPT, "capacity")
    assert "m.cap" not in out and "module: capacity" not in out
    assert "m.cut = x" in out and "x = 1" in out
    assert module_names(out) == ["variables", "valid_inequalities"]
    compile(out, "<test>", "exec")


def test_remove_family_also_drops_the_joint_cuts() -> None:
    out = remove_family(SCRIPT, "capacity")
    assert module_names(out) == ["variables"]
    assert "m.cut" not in out


def test_strip_joint_modules_keeps_the_families() -> None:
    assert module_names(strip_joint_modules(SCRIPT)) == ["variables", "capacity"]
    without = remove_module(SCRIPT, "valid_inequalities")
    assert strip_joint_modules(without) == without


def test_remove_missing_module_names_it() -> None:
    with pytest.raises(ValueError, match="no module named 'subtour'"):
        remove_module(SCRIPT, "subtour")


BROKEN: list[tuple[str, str, str]] = [
    ("never closed", "    # >>> module: a\n    x = 1\n", "never closed"),
    ("closed without opening", "    x = 1\n    # <<< module: a\n", "closes without being open"),
    ("wrong name closes", "    # >>> module: a\n    # <<< module: b\n", "closes without being open"),
    (
        "nested",
        "    # >>> module: a\n    # >>> module: b\n    # <<< module: b\n    # <<< module: a\n",
        "opens inside module 'a'",
    ),
]


@pytest.mark.parametrize(("case", "script", "message"), BROKEN, ids=[b[0] for b in BROKEN])
def test_unbalanced_markers_are_refused(case: str, script: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        module_names(script)
