"""The container files: docker-compose.yml runs ``python -m server`` on port 8000 with the
SQLite file on a volume; the Dockerfile runs the same command."""

from __future__ import annotations

import json

import yaml

from tests.support.srvkit import ROOT


def test_docker_compose() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    service = compose["services"]["casino"]
    assert service["command"] == ["python", "-m", "server"]
    assert "8000:8000" in service["ports"]
    env = service["environment"]
    assert env["PORT"] == "8000"
    db_url = env["DATABASE_URL"]
    assert db_url.startswith("sqlite+aiosqlite:////")
    db_dir = db_url.removeprefix("sqlite+aiosqlite:///").rsplit("/", 1)[0]
    volumes = {v.split(":")[1]: v.split(":")[0] for v in service["volumes"]}
    assert db_dir in volumes
    assert volumes[db_dir] in compose["volumes"]  # a named volume, not the image's layer


def test_dockerfile_runs_the_server() -> None:
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    cmd = [line for line in lines if line.startswith("CMD ")]
    assert len(cmd) == 1 and json.loads(cmd[0][4:]) == ["python", "-m", "server"]
    assert "EXPOSE 8000" in lines
    text = "\n".join(lines)
    for needed in ("COPY migrations", "COPY alembic.ini", "COPY client", "COPY server"):
        assert needed in text
