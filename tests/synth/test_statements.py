"""The offline statement writer: deterministic, complete on every path, ids per the scheme."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from vrpcoder.importers import import_instance
from vrpcoder.instances import Instance
from vrpcoder.sampling import sample_instance
from vrpcoder.variants import held_out_variants, train_variants

from vrpcoder_synth.fidelity import check_statement
from vrpcoder_synth.scenes import SCENES, UNITS, Style, choose_hint, plural
from vrpcoder_synth.statements import (
    IdScheme,
    StatementPath,
    fmt,
    index_path_for,
    letter_id,
    node_labels,
    write_statement,
)


def test_scene_pool_has_sixty_distinct_entries_and_three_styles() -> None:
    assert len(SCENES) == 60
    assert [s.id for s in SCENES] == list(range(1, 61))
    assert len(Style) == 3
    assert all("hour" not in u.plural and "minute" not in u.plural for u in UNITS)


def test_hint_depends_only_on_the_sample_triple() -> None:
    assert choose_hint("CVRP", 3, 5) == choose_hint("cvrp", 3, 5)
    hints = {choose_hint(v.name, seed, profile) for v in train_variants() for seed in range(4) for profile in range(1, 6)}
    assert len({h.scene.id for h in hints}) > 30
    assert {h.style for h in hints} == set(Style)


def test_letter_ids_never_run_out() -> None:
    assert [letter_id(p) for p in (0, 1, 25, 26, 27, 51, 52)] == ["A", "B", "Z", "AA", "AB", "AZ", "BA"]
    assert node_labels(3, IdScheme.FROM_TWO) == ("2", "3", "4")
    assert node_labels(3, IdScheme.ONE_BASED) == ("1", "2", "3")
    assert node_labels(3, None) == ("0", "1", "2")


def test_numbers_are_written_exactly() -> None:
    assert fmt(50.0) == "50"
    assert fmt(18.05) == "18.05"
    assert float(fmt(0.1 + 0.2)) == 0.1 + 0.2


@pytest.mark.parametrize("variant", [v.name for v in train_variants()])
def test_every_path_of_every_training_variant_passes_the_static_checks(variant: str) -> None:
    for profile, seed in ((1, 0), (9, 1), (13, 2)):
        instance = sample_instance(variant, profile, seed)
        for path in StatementPath:
            statement = write_statement(instance, path)
            report = check_statement(statement, instance)
            assert report.ok, f"{variant} p{profile} s{seed} {path}: {report.summary()}"


def test_same_input_gives_the_same_text_and_paths_differ() -> None:
    instance = sample_instance("VRPHTW", 5, 0)
    texts = {path: write_statement(instance, path).text for path in StatementPath}
    assert all(write_statement(instance, path).text == text for path, text in texts.items())
    assert len(set(texts.values())) == len(StatementPath)
    assert len(texts[StatementPath.CONDENSED]) < len(texts[StatementPath.SCENARIO])


def test_index_paths_rename_every_node_through_a_bijection() -> None:
    instance = sample_instance("PDP", 4, 1)
    for path, scheme in ((StatementPath.INDEX_ONE_BASED, IdScheme.ONE_BASED), (StatementPath.INDEX_FROM_TWO, IdScheme.FROM_TWO), (StatementPath.INDEX_LETTERS, IdScheme.LETTERS)):
        statement = write_statement(instance, path)
        id_map = statement.node_id_map
        assert id_map is not None
        assert sorted(id_map, key=int) == [str(p) for p in range(instance.num_nodes)]
        assert len(set(id_map.values())) == instance.num_nodes
        assert tuple(id_map[str(p)] for p in range(instance.num_nodes)) == node_labels(instance.num_nodes, scheme)
        for node, label in id_map.items():
            assert re.search(rf"\b{re.escape(label)}\b", statement.text), f"{path}: id {label} of node {node} unused"
    assert write_statement(instance, StatementPath.SCENARIO).node_id_map is None


def test_open_route_wording_per_path() -> None:
    instance = sample_instance("OVRP", 2, 0)
    strict = write_statement(instance, StatementPath.STRICT).text
    scenario = write_statement(instance, StatementPath.SCENARIO).text
    assert "do not need to return" in strict and "free return arc" not in strict
    assert "free return arc" in scenario


def test_statement_of_a_sample_uses_its_seed_and_profile(cvrp_sample) -> None:
    by_sample = write_statement(cvrp_sample)
    by_instance = write_statement(cvrp_sample.instance, seed=cvrp_sample.seed, profile=cvrp_sample.profile)
    assert by_sample.text == by_instance.text
    assert by_sample.hint == choose_hint("CVRP", cvrp_sample.seed, cvrp_sample.profile)


def test_index_scheme_is_one_of_three_and_deterministic() -> None:
    chosen = {index_path_for(v.name, s, p) for v in train_variants() for s in range(3) for p in range(1, 4)}
    assert chosen == {StatementPath.INDEX_ONE_BASED, StatementPath.INDEX_FROM_TWO, StatementPath.INDEX_LETTERS}
    assert index_path_for("CVRP", 1, 2) == index_path_for("CVRP", 1, 2)


def test_library_distance_conventions_are_stated(tmp_path) -> None:
    base = sample_instance("TSP", 1, 0, customers=4)
    data = base.model_dump()
    n = base.num_nodes
    data["distance"] = {"kind": "explicit", "matrix": [[0.0 if i == j else 10.0 + i + 0.5 * j for j in range(n)] for i in range(n)]}
    explicit = Instance.model_validate(data)
    statement = write_statement(explicit, StatementPath.SCENARIO)
    assert "distance table" in statement.text
    assert check_statement(statement, explicit).ok


def test_held_out_variants_are_not_training_variants() -> None:
    assert {v.name for v in held_out_variants()} == {"OVRPHTW", "MCVRPSTW", "DCVRPHTW"}


@pytest.mark.parametrize(
    "relative",
    ["tsplib/gr24.tsp", "tsplib/ulysses22.tsp", "cvrplib/P-n16-k8.vrp", "solomon/C101.txt", "mdvrp/p01", "sdvrp/SD1.txt"],
)
def test_statements_of_library_instances_pass_the_checks(relative: str) -> None:
    """Benchmark 3 writes statements of library sub-instances (explicit, GEO, rounded distances)."""
    instance = import_instance(Path(__file__).resolve().parents[1] / "data" / "instances" / relative, customers=8)
    for path in StatementPath:
        report = check_statement(write_statement(instance, path), instance)
        assert report.ok, f"{relative} {path}: {report.summary()}"


@pytest.mark.parametrize(
    ("noun", "plural_form"),
    [
        ("delivery address", "delivery addresses"),
        ("cold storage facility", "cold storage facilities"),
        ("school bus", "school buses"),
        ("hospital pharmacy", "hospital pharmacies"),
        ("bank branch/ATM", "bank branches/ATMs"),
        ("rescue helicopter/off-road vehicle", "rescue helicopters/off-road vehicles"),
        ("fabrication tool bay", "fabrication tool bays"),
        ("AGV cart", "AGV carts"),
    ],
)
def test_scene_nouns_are_spelt_right_in_the_plural(noun: str, plural_form: str) -> None:
    assert plural(noun) == plural_form


def test_no_statement_misspells_a_scene_noun() -> None:
    """Every scene's words, through every path: plurals ("delivery addresss", "facilitys", "school
    buss" were written before) and articles ("a AGV cart", "a e-commerce ...")."""
    seen: set[int] = set()
    for variant in ("CVRP", "SDVRP", "PDP", "OVRP"):
        for seed in range(200):
            hint = choose_hint(variant, seed, 1)
            if hint.scene.id in seen:
                continue
            seen.add(hint.scene.id)
            instance = sample_instance(variant, 1, seed, customers=4)
            for path in (StatementPath.SCENARIO, StatementPath.STRICT):
                text = write_statement(instance, path).text
                assert not re.search(r"(?:sss|[^aeiou]ys|buss|chs)\b", text), (hint.scene, text)
                assert not re.search(r"\b[Aa] [aeiouAEIOU]", text), (hint.scene, text)
    assert len(seen) == len(SCENES)


@pytest.mark.parametrize("path", list(StatementPath))
@pytest.mark.parametrize("variant", ["TSP", "CVRP", "VRPSTW"])
def test_every_path_states_the_distance_convention_and_every_depot_hour(variant: str, path: StatementPath) -> None:
    """DIFF compares optima exactly, so the rounding of distances must be in every statement, the
    condensed ones included; a timed variant states when its depot opens and closes."""
    instance = sample_instance(variant, 2, 0, customers=5)
    text = write_statement(instance, path).text
    assert "Euclidean" in text and "not rounded" in text and "travel time equals travel distance" in text
    depot = instance.depots[0]
    if depot.window is not None:
        assert f"opens at time {fmt(depot.window.start)}" in text and f"closes at time {fmt(depot.window.end)}" in text


def test_the_strict_tsp_statement_is_not_the_condensed_one() -> None:
    instance = sample_instance("TSP", 1, 0, customers=5)
    assert write_statement(instance, StatementPath.STRICT).text != write_statement(instance, StatementPath.CONDENSED).text
