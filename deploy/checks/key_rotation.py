"""Runs the key rotation CronJob (deploy/kubernetes/base/key-rotation.yaml) the way a cluster
would, without one: the `fetch` container's own go-template rendered by the real kubectl over a
fake Secret (as the API server returns it, resourceVersion included), then the `rotate`
container's own script with the real `issuer` binary, and checks the Secret it writes for the
`publish` container's `kubectl replace`:

1. on an empty Secret it creates a ring (an active and a next key);
2. run again the next day, it changes nothing (rotation is monthly);
3. with the keys made 40 days old, it rotates: the next key becomes active, and the old active
   key stays published as retired;
4. two days later it prunes that retired key (every token it signed has expired);
5. with EMERGENCY=key-leaked (a leaked key) it replaces every key the ring had, at once;
6. a Secret that holds key files but no ring.json, a fetch that wrote nothing, and a Secret
   without a resourceVersion each stop it before it writes anything: it never publishes a fresh
   ring over an existing one, nor an unconditional write;
and each Secret it writes carries the resourceVersion it read (so `kubectl replace` is a
conditional write) and, mounted again, is a ring `issuer keys list` reads. The rotate container
must mount no service-account token.

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

TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"


def cronjob_containers(rendered: Path) -> tuple[dict, dict, dict]:
    """The `fetch`, `rotate` and `publish` containers of the issuer-keys CronJob."""
    for document in yaml.safe_load_all(rendered.read_text()):
        if document and document["kind"] == "CronJob" and document["metadata"]["name"] == "issuer-keys":
            pod = document["spec"]["jobTemplate"]["spec"]["template"]["spec"]
            every = {c["name"]: c for c in pod.get("initContainers", []) + pod["containers"]}
            missing = {"fetch", "rotate", "publish"} - set(every)
            if missing:
                raise SystemExit(f"the issuer-keys CronJob has no {sorted(missing)} container(s): it must read the Secret "
                                 "with its resourceVersion (fetch), rotate without a token (rotate) and write conditionally (publish)")
            volumes = {v["name"]: v for v in pod.get("volumes", [])}
            tokened = pod.get("automountServiceAccountToken") is not False
            rotate = every["rotate"]
            for mount in rotate.get("volumeMounts", []):
                sources = volumes.get(mount["name"], {}).get("projected", {}).get("sources", [])
                tokened |= mount["mountPath"].startswith(TOKEN_PATH) or any("serviceAccountToken" in s for s in sources)
            if tokened:
                raise SystemExit("the rotate container has a service-account token mounted: only fetch and publish may")
            return every["fetch"], rotate, every["publish"]
    raise SystemExit("no CronJob issuer-keys")


def fetch_template(fetch: dict, rotate: dict) -> str:
    """The -o go-template= argument of fetch's `kubectl get secret issuer-keys`, after checking
    that it writes the file rotate reads."""
    command = fetch.get("command", []) + fetch.get("args", [])
    kubectl = next(i for i, a in enumerate(command) if a.endswith("kubectl"))
    get = command[kubectl + 1:]
    assert get[:3] == ["get", "secret", "issuer-keys"] and get[3] == "-o" and get[4].startswith("go-template="), get
    env = {e["name"]: e.get("value") for e in rotate.get("env", [])}
    assert f"-log-file={env['KEYS_SECRET_IN']}" in command[:kubectl], (command, env["KEYS_SECRET_IN"])
    return get[4]


def render_fetch(template: str, secret: dict | None, version: str | None, target: Path) -> None:
    """What fetch writes, rendered by kubectl from the Secret as the API server would return it."""
    obj = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "issuer-keys", "namespace": "issuer"}}
    if version is not None:
        obj["metadata"]["resourceVersion"] = version
    if (secret or {}).get("data"):
        obj["data"] = secret["data"]
    source = target.with_suffix(".api.json")
    source.write_text(json.dumps(obj))
    rendered = subprocess.run(["kubectl", "patch", "--local", "-f", str(source), "--type=merge", "-p", "{}", "-o", template],
                              capture_output=True, text=True, check=True).stdout
    target.write_text(rendered)


class Rotation:
    def __init__(self, rendered: Path, binary: Path, work: Path):
        self.fetch, self.rotate, self.publish = cronjob_containers(rendered)
        assert self.publish.get("args", [])[:2] == ["replace", "-f"], self.publish.get("args")
        self.template = fetch_template(self.fetch, self.rotate)
        self.binary, self.work, self.version = binary, work, 100

    def run(self, secret: dict | None, step: str, extra: dict | None = None, fetched: str | None = "rendered",
            version: str | None = "auto") -> dict | None:
        """Runs fetch and rotate on `secret`; the Secret written, or None when rotate refused."""
        step_dir = self.work / re.sub(r"[^A-Za-z0-9]+", "-", step)  # kubectl -f splits its argument at commas
        ring_dir, out_dir = step_dir / "ring", step_dir / "out"
        for d in (ring_dir, out_dir):
            d.mkdir(parents=True)
        fetched_file = step_dir / "issuer-keys"
        self.version += 1
        version = str(self.version) if version == "auto" else version
        if fetched == "rendered":
            render_fetch(self.template, secret, version, fetched_file)
        else:
            fetched_file.write_text(fetched or "")
        env = {"PATH": f"{self.binary.parent}:/usr/bin:/bin", "HOME": str(self.work)}
        env.update({e["name"]: e["value"] for e in self.rotate["env"]})
        # The container's paths, moved under the scratch directory.
        env.update(ISSUER_KEYS_DIR=str(ring_dir), KEYS_SECRET_IN=str(fetched_file), KEYS_SECRET_OUT=str(out_dir / "issuer-keys.json"))
        env.update(extra or {})
        assert self.rotate["command"][:2] == ["/bin/sh", "-c"], self.rotate["command"]
        result = subprocess.run(["/bin/sh", "-c", self.rotate["command"][2]], env=env, capture_output=True, text=True)
        print(f"--- {step}\n{result.stdout}{result.stderr}", end="")
        written_file = out_dir / "issuer-keys.json"
        if result.returncode != 0:
            assert not written_file.exists(), f"{step}: failed, yet wrote a Secret to publish"
            return None
        written = json.loads(written_file.read_text())
        assert written["kind"] == "Secret" and written["metadata"]["name"] == "issuer-keys", written["metadata"]
        assert written["metadata"].get("resourceVersion") == version, \
            f"{step}: the Secret to publish carries resourceVersion {written['metadata'].get('resourceVersion')!r}, not the {version!r} read: an unconditional write"
        names = set(written["data"])
        assert "ring.json" in names and all(re.fullmatch(r"[A-Za-z0-9_-]{43}\.pem", n) for n in names - {"ring.json"}), names
        return written

    def must_run(self, *args, **kwargs) -> dict:
        written = self.run(*args, **kwargs)
        if written is None:
            raise SystemExit(f"{args[1]}: the rotation script failed")
        return written


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
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        rotation = Rotation(rendered, binary, work)
        first = rotation.must_run(None, "first run, empty Secret")
        ring1 = ring_of(first, binary, work, "first")
        assert sorted(ring1.values()) == ["active", "next"], ring1

        second = rotation.must_run(first, "next day, not due")
        assert ring_of(second, binary, work, "second") == ring1, "a run before the rotation is due changed the ring"

        third = rotation.must_run(aged(second, 40), "40 days later, due")
        ring3 = ring_of(third, binary, work, "third")
        old_active = next(k for k, s in ring1.items() if s == "active")
        old_next = next(k for k, s in ring1.items() if s == "next")
        assert ring3[old_next] == "active", ring3
        assert ring3[old_active] == "retired", ring3
        assert sorted(ring3.values()) == ["active", "next", "retired"], ring3

        fourth = rotation.must_run(aged(third, 2), "2 days later, retired key expired")
        ring4 = ring_of(fourth, binary, work, "fourth")
        assert old_active not in ring4 and sorted(ring4.values()) == ["active", "next"], ring4

        fifth = rotation.must_run(fourth, "a key leaked", {"EMERGENCY": "key-leaked"})
        ring5 = ring_of(fifth, binary, work, "fifth")
        assert not set(ring5) & set(ring4) and sorted(ring5.values()) == ["active", "next"], (ring4, ring5)

        # Never a fresh ring over an existing one, never an unconditional write.
        keys_only = dict(fifth, data={k: v for k, v in fifth["data"].items() if k != "ring.json"})
        assert rotation.run(keys_only, "key files but no ring.json") is None, "a new ring was written over a Secret holding keys"
        assert rotation.run(fifth, "fetch wrote nothing", fetched="") is None, "rotated with nothing fetched"
        assert rotation.run(fifth, "no resourceVersion", version=None) is None, "wrote without the resourceVersion read"
        Path(os.environ.get("KEY_ROTATION_SECRET_OUT", work / "unused.json")).write_text(json.dumps(third))
    print("key rotation: creates, leaves alone when not due, rotates when due, prunes when expired, replaces every key after a leak, "
          "refuses a fresh ring over keys and any write without the resourceVersion read; every Secret it writes is a valid ring "
          "and a conditional write; no token in the rotate container")
    return 0


if __name__ == "__main__":
    sys.exit(main())
