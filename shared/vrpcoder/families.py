"""Constraint families: the unit in which gold scripts, the checker, attackers and reports speak.

A family is one logical rule of a routing problem (coverage, capacity, time windows, ...).
The gold script labels each code module with the family it encodes, the independent checker
reports violated families by the same names, and every attacker targets exactly one family.
Keeping one enum for all of them is what lets a disagreement between two of these parts be
detected mechanically instead of by string matching in several places.

A family may state several atomic rules (``Rule``; ``RULE_FAMILY`` says whose part each is): the
checker names the rule of each violation, so a probe can be built to break one part of a compound
family alone.
"""

from __future__ import annotations

from vrpcoder_client.verdicts import RULE_FAMILY, Family, Rule

__all__ = ["RULE_FAMILY", "Family", "Rule"]
