"""Scene, style and unit hints: the business dressing of a statement, chosen deterministically.

The scene pool (60 entries: a setting and its words for depot, customer and vehicle) is the
paper's table of scene hints; the three styles and the unit families are ours. All three are
drawn from a digest of (variant, seed, profile) alone, so the same sample always gets the same
dressing and no other randomness enters a statement.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import StrEnum


_SIBILANT = ("s", "x", "z", "ch", "sh")


def _plural_word(word: str) -> str:
    if word.isupper():  # an acronym: ATMs, AGVs
        return word + "s"
    if word.endswith(_SIBILANT):
        return word + "es"
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def plural(noun: str) -> str:
    """The plural of a scene noun: its head word (the last) takes the ending, and each alternative
    of a slashed noun is made plural ("bank branch/ATM" -> "bank branches/ATMs")."""
    parts = []
    for alternative in noun.split("/"):
        head, _, last = alternative.rpartition(" ")
        parts.append(f"{head} {_plural_word(last)}" if head else _plural_word(last))
    return "/".join(parts)


def article(word: str) -> str:
    """'a' or 'an' before ``word`` (by its first letter: "an AGV cart", "an e-commerce ...")."""
    return "an" if word[:1].lower() in "aeiou" else "a"


@dataclass(frozen=True, slots=True)
class Scene:
    id: int
    name: str
    depot: str
    customer: str
    vehicle: str

    @property
    def depots(self) -> str:
        return plural(self.depot)

    @property
    def customers(self) -> str:
        return plural(self.customer)

    @property
    def vehicles(self) -> str:
        return plural(self.vehicle)


SCENES: tuple[Scene, ...] = (
    Scene(1, "Classical Distribution Planning", "distribution center", "customer", "vehicle"),
    Scene(2, "Retail Store Replenishment", "warehouse", "retail store", "delivery truck"),
    Scene(3, "E-commerce Order Fulfillment", "fulfillment center", "delivery address", "delivery van"),
    Scene(4, "Wholesale Grocery Supply", "regional distribution hub", "grocery outlet", "supply truck"),
    Scene(5, "Cold-Chain Food Distribution", "cold storage facility", "supermarket", "refrigerated truck"),
    Scene(6, "Dairy Product Delivery", "dairy processing plant", "convenience store", "insulated vehicle"),
    Scene(7, "Urban Parcel Last-Mile Delivery", "local sorting station", "residential address", "courier van"),
    Scene(8, "Meal Delivery Dispatch", "cloud kitchen hub", "diner location", "delivery rider"),
    Scene(9, "Factory Parts Supply", "parts warehouse", "assembly workstation", "AGV cart"),
    Scene(10, "Construction Material Delivery", "building material yard", "construction site", "flatbed truck"),
    Scene(11, "Pharmaceutical Distribution", "pharma distribution center", "hospital pharmacy", "medical transport vehicle"),
    Scene(12, "Home Healthcare Visiting", "community health center", "patient residence", "nurse dispatch vehicle"),
    Scene(13, "Municipal Waste Collection", "waste treatment plant", "collection point", "garbage truck"),
    Scene(14, "School Bus Routing", "school campus", "student pickup stop", "school bus"),
    Scene(15, "Power Grid Maintenance", "maintenance depot", "substation", "service crew vehicle"),
    Scene(16, "Telecom Equipment Repair", "telecom operations center", "base station site", "field engineer van"),
    Scene(17, "Agricultural Produce Collection", "produce purchasing station", "farm", "collection truck"),
    Scene(18, "Livestock Feed Distribution", "feed mill", "livestock farm", "bulk feed truck"),
    Scene(19, "Disaster Relief Supply", "relief staging area", "shelter site", "relief vehicle"),
    Scene(20, "Hazardous Waste Transport", "licensed disposal facility", "industrial generator site", "hazmat transport vehicle"),
    Scene(21, "Urban Logistics Delivery", "distribution center", "delivery address", "freight truck"),
    Scene(22, "Food Delivery Dispatch", "delivery station", "merchant/customer", "delivery rider"),
    Scene(23, "Express Parcel Pickup", "courier hub", "pickup point", "pickup van"),
    Scene(24, "Furniture Last-Mile Delivery", "furniture warehouse", "customer apartment", "moving van"),
    Scene(25, "Laundry Pickup and Delivery", "laundry processing center", "hotel/household", "laundry van"),
    Scene(26, "Fresh Food Cold Chain", "cold storage warehouse", "grocery supermarket", "refrigerated truck"),
    Scene(27, "Seafood Cross-City Transport", "seafood wholesale market", "seafood restaurant", "live fish transport truck"),
    Scene(28, "Bakery Product Distribution", "central bakery", "cafe/pastry shop", "bread delivery van"),
    Scene(29, "Frozen Meal Delivery", "frozen food warehouse", "vending kiosk", "freezer van"),
    Scene(30, "Agricultural Product Collection", "produce purchasing station", "farm plantation", "farm transport vehicle"),
    Scene(31, "Flower Wholesale Distribution", "flower auction center", "florist shop", "climate-controlled van"),
    Scene(32, "Vending Machine Restocking", "restocking warehouse", "vending machine location", "restocking van"),
    Scene(33, "Bookstore Chain Replenishment", "book distribution center", "bookstore branch", "delivery truck"),
    Scene(34, "Bike-Sharing Battery Swap", "battery swap station", "bike parking spot", "maintenance dispatch vehicle"),
    Scene(35, "Ride-Hailing / Custom Bus", "vehicle hub", "boarding stop", "shuttle bus"),
    Scene(36, "Drone Last-Mile Delivery", "drone base station", "community receiving tower", "logistics drone"),
    Scene(37, "Autonomous Vehicle Delivery", "AGV dispatch station", "office building drop-off", "AGV delivery robot"),
    Scene(38, "EV Charging Truck Dispatch", "mobile charging depot", "stranded EV location", "mobile charger truck"),
    Scene(39, "Medical Supply Delivery", "pharmaceutical distribution center", "community clinic/hospital", "medical cold chain vehicle"),
    Scene(40, "Blood Bank Distribution", "central blood bank", "surgical hospital", "blood transport vehicle"),
    Scene(41, "Mobile Home Nursing", "community health center", "patient household", "visiting nurse"),
    Scene(42, "Mobile Vaccination Service", "disease control center", "temporary vaccination site", "mobile medical vehicle"),
    Scene(43, "Medical Waste Collection", "medical waste treatment plant", "fever clinic", "special collection truck"),
    Scene(44, "Organ Transport Coordination", "transplant coordination center", "recipient hospital", "emergency medical vehicle"),
    Scene(45, "Municipal Waste Collection", "landfill site", "residential waste station", "garbage truck"),
    Scene(46, "Snow Removal / De-icing", "municipal works depot", "major traffic intersection", "snowplow"),
    Scene(47, "School Bus Service", "school campus", "student pickup point", "school bus"),
    Scene(48, "Mobile Library Tour", "city central library", "remote community branch", "mobile library van"),
    Scene(49, "Street Light Maintenance", "city lighting depot", "faulty lamppost location", "maintenance bucket truck"),
    Scene(50, "Armored Cash Transport", "vault center", "bank branch/ATM", "armored transport vehicle"),
    Scene(51, "Factory JIT Parts Delivery", "line-side warehouse", "assembly line station", "AGV transport robot"),
    Scene(52, "Port Container Dispatch", "container yard", "berth/cargo ship", "straddle carrier"),
    Scene(53, "Semiconductor Wafer Transport", "cleanroom storage", "fabrication tool bay", "overhead transport robot"),
    Scene(54, "High-Voltage Grid Inspection", "power maintenance base", "transmission tower/substation", "drone/inspection vehicle"),
    Scene(55, "Telecom Base Station Repair", "telecom operations center", "faulty base station", "repair engineer"),
    Scene(56, "Wind Farm Turbine Maintenance", "wind farm service center", "wind turbine", "maintenance crew vehicle"),
    Scene(57, "Offshore Oil Platform Supply", "onshore supply base", "offshore drilling platform", "offshore supply vessel"),
    Scene(58, "Mine Ore Transport", "ore processing plant", "mining site", "heavy-duty mining truck"),
    Scene(59, "Earthquake Relief Distribution", "emergency relief tent/depot", "displaced persons shelter", "rescue helicopter/off-road vehicle"),
    Scene(60, "Forest Fire Patrol", "forestry fire prevention center", "key forest observation point", "forest patrol vehicle"),
)


class Style(StrEnum):
    """How the statement is worded (the facts are the same in every style)."""

    ACADEMIC = "academic"
    """Terse, like the problem definition of a methods paper."""
    FORMAL = "formal"
    """Fixed order: background, data, rules, objective, each under its own heading."""
    CONSERVATIVE = "conservative"
    """Plain and literal, one fact per sentence, no story: easy to turn into a model."""


STYLE_HINTS: dict[Style, str] = {
    Style.ACADEMIC: "Write tersely, the way a benchmark or methods paper defines its problem.",
    Style.FORMAL: "Write a formal optimization problem: background, then data, then rules, then objective, always in that order.",
    Style.CONSERVATIVE: "Write plainly and literally, one fact per sentence, with no storytelling, so the text maps directly onto a model.",
}


@dataclass(frozen=True, slots=True)
class Unit:
    """A continuous quantity unit (fractional demands must read naturally: never pallets or boxes)."""

    singular: str
    plural: str

    def of(self, value: str) -> str:
        return f"{value} {self.singular if value in ('1', '1.0') else self.plural}"


UNITS: tuple[Unit, ...] = (
    Unit("ton", "tons"),
    Unit("kilogram", "kilograms"),
    Unit("liter", "liters"),
    Unit("kWh", "kWh"),
    Unit("cubic meter", "cubic meters"),
    Unit("order-equivalent", "order-equivalents"),
    Unit("hundredweight", "hundredweight"),
    Unit("seat-kilometer", "seat-kilometers"),
)
"""None of them is a time unit, so a time-window variant never measures goods in hours."""


@dataclass(frozen=True, slots=True)
class Hint:
    scene: Scene
    style: Style
    unit: Unit

    def text(self) -> str:
        """The hint as a teacher prompt receives it."""
        return (
            f"Scene: {self.scene.name}. Call the depot a {self.scene.depot}, a customer a "
            f"{self.scene.customer} and a vehicle a {self.scene.vehicle}. Measure goods in "
            f"{self.unit.plural}. {STYLE_HINTS[self.style]}"
        )


def _draw(key: str, salt: str, size: int) -> int:
    digest = hashlib.sha256(f"{salt}|{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % size


def choose_hint(variant: str, seed: int | None, profile: int | None) -> Hint:
    """The one hint of (variant, seed, profile): scene, style and unit each from its own draw."""
    key = f"{variant.upper()}|{seed}|{profile}"
    return Hint(
        scene=SCENES[_draw(key, "scene", len(SCENES))],
        style=tuple(Style)[_draw(key, "style", len(Style))],
        unit=UNITS[_draw(key, "unit", len(UNITS))],
    )
