"""docker-compose.yml as an operator runs it: the jobs' token guard and the data folders' init step
are executed here with a real shell (Docker itself is not needed for them), and the rest of the
file is checked for what Docker would refuse or get wrong (redis user, restart policies, images)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
JOBS_UID = 10001


def _compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def _unescape(text: str) -> str:
    """Compose turns ``$$`` into ``$`` before the container sees it."""
    return text.replace("$$", "$")


def _run_entrypoint(service: str, command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    entrypoint = [_unescape(part) for part in _compose()["services"][service]["entrypoint"]]
    return subprocess.run([*entrypoint, *command], capture_output=True, text=True, env={"PATH": os.environ["PATH"], **env},
                          timeout=30, check=False)


@pytest.mark.parametrize("service", ["synth", "eval"])
@pytest.mark.parametrize(
    ("token", "refusal"),
    [("", "set VRPCODER_VERIFIER_TOKEN"), ("tok-a,tok-b", "comma-separated list")],
    ids=["missing", "the-whole-list"],
)
def test_jobs_refuse_a_missing_token_or_the_api_list(service: str, token: str, refusal: str) -> None:
    done = _run_entrypoint(service, ["echo", "ran"], {"VRPCODER_VERIFIER_TOKEN": token})
    assert done.returncode == 2 and refusal in done.stderr and "ran" not in done.stdout


@pytest.mark.parametrize("service", ["synth", "eval"])
def test_jobs_run_their_command_with_one_token(service: str) -> None:
    done = _run_entrypoint(service, ["sh", "-c", 'echo "token=$VRPCODER_VERIFIER_TOKEN"'], {"VRPCODER_VERIFIER_TOKEN": "tok-a"})
    assert done.returncode == 0 and done.stdout.strip() == "token=tok-a"
    assert _compose()["services"][service]["command"][:1] in (["vrpcoder"], ["sh"])


def test_no_public_development_token_anywhere() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    assert "local-dev-token" not in text
    env = _compose()["services"]["verifier-api"]["environment"]
    assert env["VRPCODER_VERIFIER_API_TOKENS"].startswith("${VRPCODER_VERIFIER_API_TOKENS:?"), "compose must refuse to start without tokens"
    for job in ("synth", "eval"):
        value = _compose()["services"][job]["environment"]["VRPCODER_VERIFIER_TOKEN"]
        assert value == "${VRPCODER_VERIFIER_TOKEN:-}", "a job sends its own single token, never the API's list"


@pytest.mark.skipif(os.geteuid() != 0, reason="the init step chowns as root, as Docker runs it")
def test_data_dirs_step_creates_the_job_folders_owned_by_the_jobs_uid(tmp_path: Path) -> None:
    service = _compose()["services"]["data-dirs"]
    mounts = dict(volume.rsplit(":", 1) for volume in service["volumes"])
    assert set(mounts) == {"${VRPCODER_SYNTH_DATA:-./synth-data}", "${VRPCODER_EVAL_DATA:-./eval-data}"}
    script = _unescape(service["entrypoint"][2]).replace("/dirs/", f"{tmp_path}/dirs/")
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    for target in mounts.values():
        folder = Path(str(tmp_path) + target)
        assert folder.is_dir() and folder.stat().st_uid == JOBS_UID and folder.stat().st_gid == JOBS_UID
    for job in ("synth", "eval"):
        spec = _compose()["services"][job]
        assert spec["depends_on"]["data-dirs"]["condition"] == "service_completed_successfully"
        assert any(v.rsplit(":", 1)[0] in mounts for v in spec["volumes"])
    assert service["cap_drop"] == ["ALL"] and service["cap_add"] == ["CHOWN"] and service["network_mode"] == "none"


def test_data_dirs_step_leaves_a_users_own_folder_alone(tmp_path: Path) -> None:
    own = tmp_path / "dirs" / "synth-data"
    own.mkdir(parents=True)
    os.chown(own, 1234, 1234) if os.geteuid() == 0 else None
    before = own.stat().st_uid
    script = _unescape(_compose()["services"]["data-dirs"]["entrypoint"][2]).replace("/dirs/", f"{tmp_path}/dirs/")
    subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=30, check=False)
    assert own.stat().st_uid == before


def test_redis_runs_as_the_redis_user_under_cap_drop_all() -> None:
    redis = _compose()["services"]["redis"]
    assert redis["user"] == "redis", "the official image's entrypoint changes user only as root, which cap_drop ALL forbids"
    assert redis["cap_drop"] == ["ALL"] and "no-new-privileges:true" in redis["security_opt"]


def test_offline_redis_stand_in_has_the_official_redis_uid() -> None:
    """The official image's redis user is uid 999 (k8s/redis.yaml runs as 999): the stand-in matches it."""
    script = (ROOT / "deploy" / "offline-bases.sh").read_text()
    assert "--uid 999" in script and "USER redis" in script


def test_long_running_services_restart_and_jobs_do_not() -> None:
    services = _compose()["services"]
    for name in ("redis", "verifier-api", "verifier-worker"):
        assert services[name]["restart"] == "unless-stopped", name
    for name in ("synth", "eval", "data-dirs", "trainer"):
        assert services[name]["restart"] == "no", name


def test_eval_runs_the_light_eval_image() -> None:
    service = _compose()["services"]["eval"]
    assert service["build"]["target"] == "eval" and service["image"].startswith("vrpcoder-eval:")
    dockerfile = (ROOT / "Dockerfile").read_text()
    stage = dockerfile.split("FROM synth AS eval", 1)[1].split("\nFROM ", 1)[0]
    assert "./services/eval" in stage and "trainer" not in stage and "torch" not in stage


def test_no_latest_tag_in_compose() -> None:
    for name, service in _compose()["services"].items():
        if "image" in service and "VRPCODER_REDIS_IMAGE" not in service["image"]:
            assert not service["image"].endswith(":latest") and ":" in service["image"], name


def test_smoke_synth_config_is_a_valid_service_backed_run() -> None:
    import tomllib

    from vrpcoder_synth.config import SynthConfig

    script = (ROOT / "deploy" / "smoke.sh").read_text()
    text = script.split("<<'TOML'\n", 1)[1].split("\nTOML\n", 1)[0]
    config = SynthConfig.model_validate(tomllib.loads(text))
    assert config.verifier.backend == "service" and config.grid.variants
