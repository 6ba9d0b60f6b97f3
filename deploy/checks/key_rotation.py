"""Runs the key rotation CronJob's own script (deploy/kubernetes/key-rotation.yaml, container
`rotate`) with the real `issuer` binary against a fake Secret volume, the way the kubelet lays
one out (files linked through `..data`), and checks the Secret it writes for `kubectl replace`:

1. on an empty Secret it creates a ring (an active and a next key);
2. run again the next day, it changes nothing (rotation is monthly);
3. with the keys made 40 days old, it rotates: the next key becomes active, and the old active
   key stays published as retired;
4. two days later it prunes that retired key (every token it signed has expired);
5. with EMERGENCY=key-leaked (a leaked key) it replaces every key the ring had, at once;
and each Secret it writes, mounted again, is a ring `issuer keys list` reads.

usage: key_rotation.py RENDERED_MANIFESTS ISSUER_BINARY
"""
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import yaml


def rotate_container(rendered: Path) -> dict:
    for document in yaml.safe_load_all(rendered.read_text()):
        if document and document["kind"] == "CronJob" and document["metadata"]["name"] == "issuer-keys":
            pod = document["spec"]["jobTemplate"]["spec"]["template"]["spec"]
            return next(c for c in pod["initContainers"] if c["name"] == "rotate")
    raise SystemExit("no CronJob issuer-keys with a `rotate` init container")


def mount_secret(secret: dict | None, directory: Path) -> None:
    """Lays out a Secret volume as the kubelet does: data in a timestamped directory, `..data`
    linking to it, and one link per key through `..data`."""
    directory.mkdir(parents=True)
    payload = directory / "..2026_01_01_00_00_00.000000001"
    payload.mkdir()
    (directory / "..data").symlink_to(payload.name)
    for name, value in ((secret or {}).get("data") or {}).items():
        (payload / name).write_bytes(base64.b64decode(value))
        (payload / name).chmod(0o440)
        (directory / name).symlink_to(f"..data/{name}")


def run_rotation(container: dict, binary: Path, work: Path, secret: dict | None, step: str, extra: dict | None = None) -> dict:
    secret_dir, ring_dir, out_dir = work / step / "secret", work / step / "ring", work / step / "out"
    mount_secret(secret, secret_dir)
    ring_dir.mkdir()
    out_dir.mkdir()
    env = {"PATH": f"{binary.parent}:/usr/bin:/bin", "HOME": str(work)}
    env.update({e["name"]: e["value"] for e in container["env"]})
    # The container's paths, moved under the scratch directory.
    env.update(ISSUER_KEYS_DIR=str(ring_dir), KEYS_SECRET_DIR=str(secret_dir), KEYS_SECRET_OUT=str(out_dir / "issuer-keys.json"))
    env.update(extra or {})
    assert container["command"][:2] == ["/bin/sh", "-c"], container["command"]
    result = subprocess.run(["/bin/sh", "-c", container["command"][2]], env=env, capture_output=True, text=True)
    print(f"--- {step}\n{result.stdout}{result.stderr}", end="")
    if result.returncode != 0:
        raise SystemExit(f"{step}: the rotation script failed with status {result.returncode}")
    written = json.loads((out_dir / "issuer-keys.json").read_text())
    assert written["kind"] == "Secret" and written["metadata"]["name"] == "issuer-keys", written["metadata"]
    names = set(written["data"])
    assert "ring.json" in names and all(re.fullmatch(r"[A-Za-z0-9_-]{43}\.pem", n) for n in names - {"ring.json"}), names
    return written


def ring_of(secret: dict, binary: Path, work: Path, step: str) -> dict[str, str]:
    """kid -> state, as `issuer keys list` reads the Secret once mounted."""
    mounted = work / step / "mounted"
    mount_secret(secret, mounted)
    listing = subprocess.run([str(binary), "keys", "list"], env={"ISSUER_KEYS_DIR": str(mounted), "PATH": "/usr/bin:/bin"},
                             capture_output=True, text=True, check=True).stdout
    state = json.loads(base64.b64decode(secret["data"]["ring.json"]))
    kids = {key["kid"]: key["state"] for key in state["keys"]}
    for kid in kids:
        assert kid in listing, f"{kid} missing from `issuer keys list`:\n{listing}"
        assert f"{kid}.pem" in secret["data"], f"{kid}.pem missing from the Secret"
    assert len(secret["data"]) == len(kids) + 1, "the Secret holds files the ring does not name"
    return kids


def aged(secret: dict, days: int) -> dict:
    """The same Secret with every timestamp in ring.json moved `days` into the past."""
    state = json.loads(base64.b64decode(secret["data"]["ring.json"]))
    for key in state["keys"]:
        for field in ("createdAt", "activatedAt", "retiredAt", "publishedUntil"):
            if field in key:
                moment = datetime.strptime(key[field], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
                key[field] = (moment - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")
    data = dict(secret["data"], **{"ring.json": base64.b64encode(json.dumps(state).encode()).decode()})
    return dict(secret, data=data)


def main() -> int:
    rendered, binary = Path(sys.argv[1]), Path(sys.argv[2]).resolve()
    container = rotate_container(rendered)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        first = run_rotation(container, binary, work, None, "first run, empty Secret")
        ring1 = ring_of(first, binary, work, "first")
        assert sorted(ring1.values()) == ["active", "next"], ring1

        second = run_rotation(container, binary, work, first, "next day, not due")
        assert ring_of(second, binary, work, "second") == ring1, "a run before the rotation is due changed the ring"

        third = run_rotation(container, binary, work, aged(second, 40), "40 days later, due")
        ring3 = ring_of(third, binary, work, "third")
        old_active = next(k for k, s in ring1.items() if s == "active")
        old_next = next(k for k, s in ring1.items() if s == "next")
        assert ring3[old_next] == "active", ring3
        assert ring3[old_active] == "retired", ring3
        assert sorted(ring3.values()) == ["active", "next", "retired"], ring3

        fourth = run_rotation(container, binary, work, aged(third, 2), "2 days later, retired key expired")
        ring4 = ring_of(fourth, binary, work, "fourth")
        assert old_active not in ring4 and sorted(ring4.values()) == ["active", "next"], ring4

        fifth = run_rotation(container, binary, work, fourth, "a key leaked", {"EMERGENCY": "key-leaked"})
        ring5 = ring_of(fifth, binary, work, "fifth")
        assert not set(ring5) & set(ring4) and sorted(ring5.values()) == ["active", "next"], (ring4, ring5)
        Path(os.environ.get("KEY_ROTATION_SECRET_OUT", work / "unused.json")).write_text(json.dumps(third))
    print("key rotation: creates, leaves alone when not due, rotates when due, prunes when expired, replaces every key after a leak; every Secret it writes is a valid ring")
    return 0


if __name__ == "__main__":
    sys.exit(main())
