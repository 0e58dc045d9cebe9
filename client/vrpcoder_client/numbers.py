"""Number types of the wire records: every float a caller sends must be finite.

Python's JSON reader takes ``NaN``, ``Infinity`` and ``-Infinity``, and pydantic accepts them for a
plain ``float``; serialised again they become ``null``, so a non-finite weight once reached the
workers as a configuration no drain could read. The request records use these types, so such a
value is refused where it enters (422 at the service, ``ValidationError`` in Python).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]
"""A float that is neither NaN nor infinite."""

NonNegativeFloat = Annotated[float, Field(ge=0.0, allow_inf_nan=False)]
"""A finite float of at least 0 (reward weights, tolerances, waits)."""
