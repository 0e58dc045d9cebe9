"""Gold scripts: exact gurobipy models of every variant, written as standalone script text.

A gold script is the reference for differential testing, the oracle that labels probes, and the
seed the natural-language statements are written from. It is organised as a CVRP backbone plus one
marked code module per constraint family so that mutants can be made by deleting one module.
"""

from vrpcoder.gold.code import JOINT_MODULES, AuxModule
from vrpcoder.gold.extract import extract_solution
from vrpcoder.gold.markers import module_names, remove_family, remove_module, strip_joint_modules
from vrpcoder.gold.render import is_two_index, render_gold
from vrpcoder.gold.run import GoldResult, GoldStatus, solve_gold, solve_script

__all__ = [
    "JOINT_MODULES",
    "AuxModule",
    "GoldResult",
    "GoldStatus",
    "extract_solution",
    "is_two_index",
    "module_names",
    "remove_family",
    "remove_module",
    "render_gold",
    "solve_gold",
    "solve_script",
    "strip_joint_modules",
]
