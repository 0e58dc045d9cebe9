"""Import real library instances (TSPLIB, CVRPLIB, Solomon, Cordeau, SDVRPLIB, VRPB) as ``Instance``.

Benchmark 3 of the paper cuts small sub-instances out of public library files. Each library
measures distance its own way, and a published optimum is only reproducible under that exact
convention, so the importer records it in ``instance.distance``:

=========  ===========================================================  =====================
format     read by                                                      default distance
=========  ===========================================================  =====================
TSPLIB     ``vrplib`` (explicit matrices parsed here: vrplib lacks most  EUC_2D, CEIL_2D, ATT,
           triangular layouts and GEO)                                  GEO, or explicit
CVRPLIB    ``vrplib``                                                   EUC_2D (rounded)
Solomon    ``vrplib`` (``instance_format="solomon"``)                   Euclidean truncated
                                                                        to one decimal
Cordeau    a parser here (MDVRP files)                                  Euclidean, unrounded
SDVRPLIB   a parser here                                                EUC_2D (rounded)
VRPB       a parser here (Goetschalckx & Jacobs-Blecha layout)          Euclidean, unrounded
=========  ===========================================================  =====================

Every choice below is an option (``distance=``, ``vehicles=``, ``customers=``), and
:func:`import_library` returns a :class:`Convention` for each, with its reason, which
``vrpcoder instance import`` prints:

* Solomon distance (``euclidean`` / ``euclidean_trunc1`` / ``euc_2d``): the default is the one
  under which the published optima were proven: the exact-methods literature (Kohl, Desrosiers,
  Madsen, Solomon & Soumis 1999; Kallehauge, Larsen & Madsen 2006; the SINTEF TOP table of
  optima) truncates every distance to one decimal, and the C101 solution file priced that way
  gives exactly its published 827.3 (828.94 with exact distances).
* SDVRPLIB: the files scale the original coordinates by 100 so that distances rounded to the
  nearest integer keep two decimals of precision; we record ``euc_2d``. The problem has an
  unlimited fleet, so the fleet is one that cannot bind (:func:`non_binding_fleet`), not the
  ``ceil(D / Q)`` vehicles that carry the demand (those bind: SDVRP optima often use more).
* CVRPLIB: the fleet is the ``-kN`` of the name, else the VEHICLES field; a file with neither
  (eil22, eil23) gets a fleet that cannot bind, and the note says which.
* VRPB: the exact methods that published the Goetschalckx & Jacobs-Blecha optima use real-valued
  Euclidean distances; the coordinates are large (tens of thousands), so rounding would barely
  matter anyway. In that literature (Goetschalckx & Jacobs-Blecha 1989; Toth & Vigo 1997;
  Mingozzi, Giorgi & Baldacci 1999) no route serves backhaul customers only, so a sub-instance
  whose kept customers are all backhauls (A1's first five) has no plan and is refused, as is one
  whose backhauls need more routes than it has linehaul customers.
* TSPLIB files with only an explicit matrix and no display coordinates get (0, 0) for every node:
  their coordinates are meaningless and only the matrix counts.

Sub-instances keep every depot and either the first K customers in file order (``customers=K``)
or the customers the file numbers as listed (``customers=[3, 17, 42]``); their
``provenance.published_optimum`` is None because the library's optimum is for the whole file.


One module per library format (``tsplib``, ``solomon``, ``cordeau``, ``sdvrplib``, ``vrpb``), the
conventions a library leaves open (``conventions``), published solutions (``solutions``), and the
entry points that put them together (``library``).
"""

from vrpcoder.importers.conventions import COORDINATE_CONVENTIONS, non_binding_fleet
from vrpcoder.importers.detection import detect_format
from vrpcoder.importers.library import (
    build_instance,
    import_instance,
    import_library,
    parse_customer_selection,
    parse_library_file,
    select_customers,
)
from vrpcoder.importers.records import Convention, CustomerSelection, ImportResult, InstanceFormat, LibraryFile
from vrpcoder.importers.solutions import read_reference_solution
from vrpcoder.importers.tsplib import explicit_matrix

__all__ = [
    "COORDINATE_CONVENTIONS",
    "Convention",
    "CustomerSelection",
    "ImportResult",
    "InstanceFormat",
    "LibraryFile",
    "build_instance",
    "detect_format",
    "explicit_matrix",
    "import_instance",
    "import_library",
    "non_binding_fleet",
    "parse_customer_selection",
    "parse_library_file",
    "read_reference_solution",
    "select_customers",
]
