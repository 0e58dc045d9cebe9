"""Constraint families: the unit in which gold scripts, the checker, attackers and reports speak.

A family is one logical rule of a routing problem (coverage, capacity, time windows, ...).
The gold script labels each code module with the family it encodes, the independent checker
reports violated families by the same names, and every attacker targets exactly one family.
Keeping one enum for all of them is what lets a disagreement between two of these parts be
detected mechanically instead of by string matching in several places.
"""

from __future__ import annotations

from enum import StrEnum


class Family(StrEnum):
    """A constraint family of the VRP variants (feasibility rules only; objective terms are not families)."""

    COVERAGE = "coverage"
    """Every customer is served exactly once (split delivery: its whole demand is delivered)."""

    ROUTE_STRUCTURE = "route_structure"
    """Each used vehicle leaves its own depot once, returns to it (unless routes are open) and
    visits each node at most once; the fleet size is respected."""

    SUBTOUR = "subtour"
    """Every visited customer is connected to a depot: no customer-only cycles."""

    CAPACITY = "capacity"
    """Per-vehicle load limit (homogeneous Q or vehicle-specific Q_k; linehaul and backhaul loads
    separately for VRPB; the running on-board load for pickup-and-delivery)."""

    COMPARTMENT = "compartment"
    """Per-vehicle, per-compartment load limit."""

    DISTANCE = "distance"
    """Per-route travelled distance limit D_max."""

    TIME_WINDOW = "time_window"
    """Hard time windows at customers and the depot horizon."""

    PRECEDENCE = "precedence"
    """The pickup of a pair is served before its delivery."""

    PAIRING = "pairing"
    """The pickup and delivery of a pair are served by the same vehicle."""

    BACKHAUL = "backhaul"
    """On each route every linehaul customer precedes every backhaul customer."""

    DELIVERY_COUPLING = "delivery_coupling"
    """Split delivery: a vehicle delivers to a customer only if it visits that customer, and never
    more than the customer's demand."""
