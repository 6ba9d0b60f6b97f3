"""What kubernetes-validate (schemas) and checkov (policies) cannot see: that the objects of
deploy/kubernetes agree with each other, with the issuer, and with the apply steps that
docs/operations.md gives. Run by scripts/check-deploy; exits 1 with one line per problem.

RENDERED is `kubectl kustomize` of the example overlay with the monitoring component added. The
apply steps are read from docs/operations.md and each path they name is rendered again here, so
the check exercises exactly the documented commands:
  - every object a selected workload needs (its ServiceAccount, the RoleBindings and Roles of
    that account, every ConfigMap it reads, the NetworkPolicies that select its pods) is in the
    same selection, every Secret it reads was created by an earlier step, the namespace exists;
  - the servers are applied only after the migration Job and a key ring Job have completed;
  - every volume a container mounts is defined, every ConfigMap or Secret a pod reads exists or
    is created by the steps, with the keys it reads;
  - every file or directory a container's configuration names (`*_FILE`, `*_DIR`) is under one
    of that container's mounts (the migration Job loads the servers' whole configuration);
  - the rotation's write is conditional (fetch reads the resourceVersion, publish replaces with
    it) and its `rotate` container has no service-account token;
  - ISSUER_TRUSTED_PROXIES names no range as wide as a node's pod range; egress to PostgreSQL
    (5432) goes to named peers only;
  - the documented apply needs no Prometheus Operator: its objects are an optional component,
    whose PrometheusRule carries exactly deploy/prometheus/issuer.rules.yml's groups;
  - every program a container of a third-party image runs by absolute path is where that image
    installs it (IMAGE_LAYOUTS, read off each image's own build files).

usage: kubernetes_consistency.py RENDERED [--root REPOSITORY]
"""
import argparse
import ipaddress
import posixpath
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

problems: list[str] = []
TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
# Where each third-party image installs the programs our commands name. registry.k8s.io/kubectl:
# kubernetes/kubernetes build/server-image/kubectl/Dockerfile copies the binary to /bin/ on a
# go-runner base (KUBECTL_BASE_IMAGE in build/common.sh), whose runner is /go-runner.
IMAGE_LAYOUTS = {"registry.k8s.io/kubectl": {"/bin/kubectl", "/go-runner"}}
WORKLOADS = {"Deployment": lambda o: o["spec"]["template"], "Job": lambda o: o["spec"]["template"],
             "CronJob": lambda o: o["spec"]["jobTemplate"]["spec"]["template"]}


def check(condition: bool, message: str) -> None:
    if not condition:
        problems.append(message)


def matches(selector: dict, labels: dict) -> bool:
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items()) and all(
        (labels.get(e["key"]) in e["values"]) == (e["operator"] == "In") for e in selector.get("matchExpressions", []))


def label_selector(text: str):
    """A kubectl -l selector (=, ==, !=, in, notin, exists, !exists) as a predicate on labels."""
    terms = [t.strip() for t in re.split(r",(?![^()]*\))", text) if t.strip()]
    tests = []
    for term in terms:
        if m := re.fullmatch(r"([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)", term):
            key, op, values = m[1], m[2], {v.strip() for v in m[3].split(",")}
            tests.append(lambda l, k=key, o=op, v=values: (l.get(k) in v) if o == "in" else (l.get(k) not in v))
        elif m := re.fullmatch(r"([\w./-]+)\s*(==|=|!=)\s*([\w./-]*)", term):
            key, op, value = m[1], m[2], m[3]
            tests.append(lambda l, k=key, o=op, v=value: (l.get(k) == v) if o != "!=" else (l.get(k) != v))
        elif m := re.fullmatch(r"(!?)([\w./-]+)", term):
            tests.append(lambda l, k=m[2], n=bool(m[1]): (k in l) != n)
        else:
            raise ValueError(f"cannot read the selector {text!r}")
    return lambda labels: all(t(labels) for t in tests)


def key(o: dict) -> tuple[str, str]:
    return o["kind"], o["metadata"]["name"]


def pod_of(o: dict) -> dict | None:
    return WORKLOADS[o["kind"]](o) if o["kind"] in WORKLOADS else None


def containers(pod_spec: dict) -> list[dict]:
    return pod_spec.get("initContainers", []) + pod_spec["containers"]


def needs(o: dict, by: dict) -> tuple[set, set]:
    """The rendered objects and the Secrets a workload's pods need to start and run."""
    template = pod_of(o)
    spec, labels = template["spec"], template["metadata"].get("labels", {})
    objects, secrets = set(), set()
    account = spec.get("serviceAccountName", "default")
    if account != "default":
        objects.add(("ServiceAccount", account))
    for (kind, name), binding in by.items():
        if kind == "RoleBinding" and any(s.get("kind") == "ServiceAccount" and s["name"] == account for s in binding.get("subjects", [])):
            objects |= {(kind, name), (binding["roleRef"]["kind"], binding["roleRef"]["name"])}
        if kind == "NetworkPolicy" and matches(binding["spec"]["podSelector"], labels):
            objects.add((kind, name))
    for volume in spec.get("volumes", []):
        if "configMap" in volume:
            objects.add(("ConfigMap", volume["configMap"]["name"]))
        if "secret" in volume:
            secrets.add(volume["secret"]["secretName"])
        for source in volume.get("projected", {}).get("sources", []):
            if "configMap" in source and source["configMap"]["name"] != "kube-root-ca.crt":
                objects.add(("ConfigMap", source["configMap"]["name"]))
            if "secret" in source:
                secrets.add(source["secret"]["name"])
    for c in containers(spec):
        for source in c.get("envFrom", []):
            if "configMapRef" in source:
                objects.add(("ConfigMap", source["configMapRef"]["name"]))
            if "secretRef" in source:
                secrets.add(source["secretRef"]["name"])
        for e in c.get("env", []):
            ref = e.get("valueFrom", {})
            if "configMapKeyRef" in ref:
                objects.add(("ConfigMap", ref["configMapKeyRef"]["name"]))
            if "secretKeyRef" in ref:
                secrets.add(ref["secretKeyRef"]["name"])
    return objects, secrets


def render(root: Path, path: str) -> list[dict]:
    rendered = subprocess.run(["kubectl", "kustomize", str(root / path)], capture_output=True, text=True)
    if rendered.returncode != 0:
        raise ValueError(f"kubectl kustomize {path} failed: {rendered.stderr.strip()}")
    return [o for o in yaml.safe_load_all(rendered.stdout) if o]


def documented_commands(operations: str) -> list[list[str]]:
    """The shell block of operations.md's first "### On Kubernetes" section, one argv per command."""
    section = operations.split("### On Kubernetes", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    if not block:
        raise ValueError("docs/operations.md, On Kubernetes: no ```sh block of apply steps")
    text = block[1].replace("\\\n", " ")
    return [argv for line in text.splitlines() if (argv := shlex.split(line, comments=True))]


def option(argv: list[str], *names: str) -> str | None:
    for i, a in enumerate(argv):
        for n in names:
            if a == n and i + 1 < len(argv):
                return argv[i + 1]
            if a.startswith(n + "="):
                return a[len(n) + 1:]
    return None


def check_apply_steps(root: Path, operations: str) -> dict[str, set[str]]:
    """Follows the documented first deployment; returns the keys of each Secret it creates."""
    commands = documented_commands(operations)
    applied: set = set()
    secrets: dict[str, set[str]] = {}
    completed: set[str] = set()       # jobs waited for
    from_cronjob: dict[str, str] = {}  # job -> cronjob it was created from
    applies = 0
    for argv in commands:
        if argv[0] != "kubectl":
            continue
        words = [a for a in argv[1:] if not a.startswith("-")]
        if "create" in words and "secret" in words:
            name = words[words.index("secret") + 2]
            check(("Namespace", option(argv, "-n", "--namespace")) in applied,
                  f"operations.md creates Secret {name} before its namespace is applied")
            secrets[name] = {f.split("=", 1)[0] for f in [a.split("=", 1)[1] for a in argv if a.startswith("--from-file=")] + [
                argv[i + 1] for i, a in enumerate(argv) if a == "--from-file"]}
        elif "create" in words and "job" in words and (source := option(argv, "--from")):
            from_cronjob[words[-1]] = source.split("/", 1)[1]
        elif "wait" in words and "--for=condition=complete" in argv:
            completed.add(words[-1].split("/", 1)[1])
        elif "apply" in words and (file := option(argv, "-f")):
            applied |= {key(o) for o in yaml.safe_load_all((root / file).read_text()) if o}
        elif "apply" in words and (path := option(argv, "-k")):
            applies += 1
            objects = render(root, path)
            selector = option(argv, "-l", "--selector")
            chosen = [o for o in objects if selector is None or label_selector(selector)(o["metadata"].get("labels", {}))]
            step = f"`kubectl apply -k {path}" + (f" -l {selector}`" if selector else "`")
            check(bool(chosen), f"{step} selects nothing")
            by = {key(o): o for o in objects}
            names = {key(o) for o in chosen}
            namespaces = {o["metadata"].get("namespace") for o in chosen} - {None}
            for namespace in namespaces:
                check(("Namespace", namespace) in applied | names, f"{step} applies into namespace {namespace}, which no earlier step created")
            for o in chosen:
                if o["kind"] not in WORKLOADS:
                    continue
                wanted, read_secrets = needs(o, by)
                for missing in sorted(wanted - names):
                    what = "is not rendered at all" if missing not in by else "is not in this selection (it lacks the label)"
                    problems.append(f"{step}: {o['kind']}/{o['metadata']['name']} needs {missing[0]}/{missing[1]}, which {what}")
                for secret in sorted(read_secrets - set(secrets)):
                    problems.append(f"{step}: {o['kind']}/{o['metadata']['name']} reads Secret {secret}, which no earlier step creates")
                if o["kind"] == "Deployment":
                    check("issuer-migrate" in completed, f"{step} starts the servers before the issuer-migrate Job has completed")
                    check(any(from_cronjob.get(j) == "issuer-keys" for j in completed),
                          f"{step} starts the servers before a Job from cronjob/issuer-keys has created the key ring")
            applied |= names
    check(applies > 0, "docs/operations.md, On Kubernetes: no `kubectl apply -k` step")
    # Every other documented selection (upgrades) is closed too.
    for path, selector in set(re.findall(r"kubectl apply -k ([^\s`]+) -l ('[^']+'|[^\s`]+)", operations)):
        selector = selector.strip("'`")
        try:
            objects = render(root, path.strip("`"))
        except ValueError as error:
            problems.append(str(error))
            continue
        by = {key(o): o for o in objects}
        chosen = [o for o in objects if label_selector(selector)(o["metadata"].get("labels", {}))]
        names = {key(o) for o in chosen}
        for o in chosen:
            if o["kind"] in WORKLOADS:
                for missing in sorted(needs(o, by)[0] - names):
                    problems.append(f"`kubectl apply -k {path} -l {selector}`: {o['kind']}/{o['metadata']['name']} needs {missing[0]}/{missing[1]}, not in that selection")
    return secrets


def check_mounts(objects: list[dict], by: dict, secret_keys: dict[str, set[str]]) -> None:
    """Every mount is defined; every path a configuration names is mounted, with its key present."""
    for o in objects:
        template = pod_of(o)
        if not template:
            continue
        spec = template["spec"]
        where = f"{o['kind']}/{o['metadata']['name']}"
        volumes = {v["name"]: v for v in spec.get("volumes", [])}
        for v in volumes.values():
            if "configMap" in v and v["configMap"]["name"] not in {n for k, n in by if k == "ConfigMap"}:
                problems.append(f"{where}: volume {v['name']} reads ConfigMap {v['configMap']['name']}, which is not rendered")
            if "secret" in v and v["secret"]["secretName"] not in secret_keys:
                problems.append(f"{where}: volume {v['name']} reads Secret {v['secret']['secretName']}, which operations.md never creates")
        for c in containers(spec):
            cwhere = f"{where} container {c['name']}"
            mounts = {}
            for m in c.get("volumeMounts", []):
                if m["name"] not in volumes:
                    problems.append(f"{cwhere}: mounts volume {m['name']}, which the pod does not define")
                else:
                    mounts[m["mountPath"].rstrip("/")] = volumes[m["name"]]
            env = {}
            for source in c.get("envFrom", []):
                if "configMapRef" in source:
                    env.update(by.get(("ConfigMap", source["configMapRef"]["name"]), {}).get("data", {}))
            env.update({e["name"]: e["value"] for e in c.get("env", []) if "value" in e})
            for name, value in sorted(env.items()):
                if not re.search(r"_(FILE|DIR)$", name) or not str(value).startswith("/"):
                    continue
                value = posixpath.normpath(value)
                mount = max((p for p in mounts if value == p or value.startswith(p + "/")), key=len, default=None)
                if mount is None:
                    problems.append(f"{cwhere}: {name}={value} is not under any of its mounts {sorted(mounts) or '(none)'}")
                    continue
                if not name.endswith("_FILE") or posixpath.dirname(value) != mount:
                    continue
                volume, file = mounts[mount], posixpath.basename(value)
                if "configMap" in volume:
                    data = by.get(("ConfigMap", volume["configMap"]["name"]), {}).get("data", {})
                    check(file in data, f"{cwhere}: {name}={value}, but ConfigMap {volume['configMap']['name']} has no key {file}")
                if "secret" in volume and volume["secret"]["secretName"] in secret_keys:
                    known = secret_keys[volume["secret"]["secretName"]]
                    check(file in known, f"{cwhere}: {name}={value}, but operations.md creates Secret {volume['secret']['secretName']} with keys {sorted(known)}")


def check_rotation(by: dict) -> None:
    cron = by.get(("CronJob", "issuer-keys"))
    if not cron:
        problems.append("no CronJob issuer-keys")
        return
    spec = pod_of(cron)["spec"]
    every = {c["name"]: c for c in containers(spec)}
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    account = by.get(("ServiceAccount", spec.get("serviceAccountName", "default")), {})
    automount = spec.get("automountServiceAccountToken", account.get("automountServiceAccountToken", True))
    check(automount is False, "CronJob/issuer-keys: the pod mounts a service-account token into every container, the rotate one included")
    rotate = every.get("rotate", {})
    for m in rotate.get("volumeMounts", []):
        sources = volumes.get(m["name"], {}).get("projected", {}).get("sources", [])
        check(not m["mountPath"].startswith(TOKEN_PATH) and not any("serviceAccountToken" in s for s in sources),
              "CronJob/issuer-keys: the rotate container mounts a service-account token")
    fetch = every.get("fetch")
    check(fetch is not None and "resourceVersion" in " ".join(fetch.get("command", []) + fetch.get("args", [])),
          "CronJob/issuer-keys: no fetch container reads the Secret's resourceVersion, so the write cannot be conditional")
    publish = every.get("publish", {})
    out = {e["name"]: e.get("value") for e in rotate.get("env", [])}.get("KEYS_SECRET_OUT")
    check(publish.get("args", [])[:2] == ["replace", "-f"] and out in publish.get("args", []),
          "CronJob/issuer-keys: publish must `kubectl replace -f` the file rotate writes (with the resourceVersion read)")
    check("resourceVersion" in " ".join(rotate.get("command", [])), "CronJob/issuer-keys: the Secret rotate writes carries no resourceVersion")


def check_image_layouts(objects: list[dict]) -> None:
    for o in objects:
        pod = pod_of(o)
        if pod is None:
            continue
        for c in containers(pod["spec"]):
            image = c.get("image", "").rsplit(":", 1)[0]
            if image not in IMAGE_LAYOUTS:
                continue
            for word in c.get("command", []) + c.get("args", []):
                program = word.split("=", 1)[-1] if word.startswith("-") else word
                if program.startswith("/") and posixpath.basename(program) in {posixpath.basename(p) for p in IMAGE_LAYOUTS[image]}:
                    check(program in IMAGE_LAYOUTS[image],
                          f"{o['kind']}/{o['metadata']['name']} container {c['name']}: {image} has no {program} (it installs {', '.join(sorted(IMAGE_LAYOUTS[image]))})")


def check_network(by: dict, server: dict) -> None:
    # X-Forwarded-For is believed only from narrow ranges: never as wide as a node's pod range.
    for cidr in filter(None, server.get("ISSUER_TRUSTED_PROXIES", "").split(",")):
        network = ipaddress.ip_network(cidr.strip())
        widest = 24 if network.version == 4 else 64
        check(network.prefixlen > widest, f"ISSUER_TRUSTED_PROXIES {cidr} is as wide as a whole pod range (/{widest} or wider): name the ingress controller's addresses")
    for (kind, name), policy in by.items():
        if kind != "NetworkPolicy":
            continue
        for rule in policy["spec"].get("egress", []):
            ports = {p.get("port") for p in rule.get("ports", [])}
            if ports and 5432 not in ports:
                continue
            peers = rule.get("to", [])
            narrow = bool(peers) and all(
                (p.get("namespaceSelector", {}).get("matchLabels") or p.get("podSelector", {}).get("matchLabels"))
                or ("ipBlock" in p and ipaddress.ip_network(p["ipBlock"]["cidr"]).prefixlen >= 24) for p in peers)
            check(narrow, f"NetworkPolicy/{name}: egress to 5432 (PostgreSQL) must name its peers (a namespace, pods or an address), not any host")


def check_monitoring(root: Path, documented: list[dict], objects: list[dict]) -> None:
    operator = [f"{o['kind']}/{o['metadata']['name']}" for o in documented if o["apiVersion"].startswith("monitoring.coreos.com/")]
    check(not operator, f"the documented apply contains {operator}: it fails on a cluster without the Prometheus Operator's CRDs; make them an optional component")
    component = root / "deploy/kubernetes/components/monitoring/kustomization.yaml"
    check(component.exists() and yaml.safe_load(component.read_text()).get("kind") == "Component",
          "deploy/kubernetes/components/monitoring must be a kustomize Component")
    rule = next((o for o in objects if o["kind"] == "PrometheusRule"), None)
    rules = yaml.safe_load((root / "deploy/prometheus/issuer.rules.yml").read_text())
    check(rule is not None and rule["spec"]["groups"] == rules["groups"],
          "the monitoring component's PrometheusRule must carry exactly deploy/prometheus/issuer.rules.yml's groups")


def kustomization_lists_files(directory: Path) -> None:
    listed = set(yaml.safe_load((directory / "kustomization.yaml").read_text()).get("resources", []))
    present = {p.name for p in directory.glob("*.yaml")} - {"kustomization.yaml"}
    check(listed == present, f"{directory.name}/kustomization.yaml resources {sorted(listed)} differ from the files {sorted(present)}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("rendered")
    parser.add_argument("--root", default=Path(__file__).resolve().parents[2], type=Path)
    arguments = parser.parse_args()
    root = arguments.root.resolve()
    objects = [o for o in yaml.safe_load_all(Path(arguments.rendered).read_text()) if o]
    by = {key(o): o for o in objects}
    operations = (root / "docs/operations.md").read_text()

    # Each group of checks runs even when another one could not: every defect is reported at once.
    def guarded(what, *args):
        try:
            return what(*args)
        except (KeyError, StopIteration, ValueError, IndexError, TypeError, AssertionError) as error:
            problems.append(f"{what.__name__}: could not run ({type(error).__name__}: {error})")

    secret_keys = guarded(check_apply_steps, root, operations) or {}
    guarded(check_mounts, objects, by, secret_keys)
    guarded(check_rotation, by)
    guarded(check_image_layouts, objects)
    server = by.get(("ConfigMap", "issuer-server"), {}).get("data", {})
    guarded(check_network, by, server)
    documented_paths = {option(argv, "-k") for argv in guarded(documented_commands, operations) or [] if argv[0] == "kubectl"} - {None}
    for path in documented_paths:
        guarded(lambda p=path: check_monitoring(root, render(root, p), objects))
    for directory in ("deploy/kubernetes/base", "deploy/kubernetes/components/monitoring"):
        if (root / directory).exists():
            kustomization_lists_files(root / directory)
        else:
            problems.append(f"no {directory}")
    # The Secrets are the operator's: applying the kustomization must never overwrite them.
    check(not [o for o in objects if o["kind"] == "Secret"], "the kustomization must not contain a Secret (it would overwrite the key ring)")
    check("ISSUER_CLIENTS_FILE" in server, "issuer-server sets no ISSUER_CLIENTS_FILE: operations.md requires a clients file")
    guarded(check_servers, by, server)

    for p in problems:
        print(f"deploy/kubernetes: {p}", file=sys.stderr)
    if not problems:
        print(f"deploy/kubernetes: {len(objects)} objects agree with each other, with the issuer's settings and with operations.md's apply steps")
    return 1 if problems else 0


def check_servers(by: dict, server: dict) -> None:
    deployment = by[("Deployment", "issuer")]
    pod = deployment["spec"]["template"]["spec"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    container = next(c for c in pod["containers"] if c["name"] == "issuer")
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    check(ports.get("http") == int(server["ISSUER_PORT"]), "container port http must be ISSUER_PORT")
    check(ports.get("ops") == int(server.get("ISSUER_OPS_PORT", 0)), "container port ops must be ISSUER_OPS_PORT")
    check("--no-migrate" in container["args"], "the Deployment must run `serve --no-migrate` (the Job migrates)")
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        check(container.get(probe, {}).get("httpGet", {}).get("port") == "ops", f"{probe} must use the management port")
    check(container["readinessProbe"]["httpGet"]["path"] == "/readyz", "readiness must be /readyz")
    check(container["livenessProbe"]["httpGet"]["path"] == "/healthz", "liveness must be /healthz, never the database")
    check(container["readinessProbe"]["timeoutSeconds"] > 5, "the readiness timeout must outlast the 5 s database deadline")
    check(matches(deployment["spec"]["selector"], labels), "the Deployment's selector must match its pods")
    check(len(pod.get("topologySpreadConstraints", [])) > 0, "pods must spread across nodes")

    # Every pod: non-root, read-only root, no capabilities, requests and limits.
    for o in by.values():
        template = pod_of(o)
        if not template:
            continue
        pod_spec = template["spec"]
        check(pod_spec["securityContext"].get("runAsNonRoot") is True, f"{o['kind']}/{o['metadata']['name']}: runAsNonRoot")
        for c in containers(pod_spec):
            where = f"{o['kind']}/{o['metadata']['name']} container {c['name']}"
            sc = c.get("securityContext", {})
            check(sc.get("readOnlyRootFilesystem") is True, f"{where}: readOnlyRootFilesystem")
            check(sc.get("allowPrivilegeEscalation") is False, f"{where}: allowPrivilegeEscalation false")
            check(sc.get("capabilities", {}).get("drop") == ["ALL"], f"{where}: drop ALL capabilities")
            check({"requests", "limits"} <= set(c.get("resources", {})), f"{where}: requests and limits")
            for e in c.get("env", []):
                check("secretKeyRef" not in e.get("valueFrom", {}), f"{where}: secrets are files (_FILE), not environment values")

    # The public Service carries the public port only; the ops Service the management port only.
    public = by[("Service", "issuer")]
    check([p["targetPort"] for p in public["spec"]["ports"]] == ["http"], "the public Service must carry only the http port")
    check(matches({"matchLabels": public["spec"]["selector"]}, labels), "the public Service must select the server pods")
    ops = by[("Service", "issuer-ops")]
    check([p["targetPort"] for p in ops["spec"]["ports"]] == ["ops"], "issuer-ops must carry only the management port")
    check(ops["spec"].get("clusterIP") == "None", "issuer-ops must be headless")
    monitor = by[("ServiceMonitor", "issuer")]
    check(matches(monitor["spec"]["selector"], ops["metadata"]["labels"]), "the ServiceMonitor must select issuer-ops")
    check(matches(monitor["spec"]["selector"], public["metadata"]["labels"]) is False, "the ServiceMonitor must not select the public Service")
    check({e["port"] for e in monitor["spec"]["endpoints"]} <= {p["name"] for p in ops["spec"]["ports"]}, "ServiceMonitor endpoints must name issuer-ops ports")
    check(all(e.get("path") == "/metrics" for e in monitor["spec"]["endpoints"]), "the ServiceMonitor scrapes /metrics")

    for kind, name in (("PodDisruptionBudget", "issuer"), ("NetworkPolicy", "issuer")):
        o = by[(kind, name)]
        selector = o["spec"]["selector"] if kind == "PodDisruptionBudget" else o["spec"]["podSelector"]
        check(matches(selector, labels), f"{kind}/{name} must select the server pods")
    hpa = by[("HorizontalPodAutoscaler", "issuer")]["spec"]
    check(hpa["scaleTargetRef"]["name"] == "issuer" and hpa["minReplicas"] >= 2, "the HPA scales the Deployment, never below 2")
    pool = int(server["ISSUER_DATABASE_POOL_SIZE"])
    check(hpa["maxReplicas"] * pool <= 90, f"maxReplicas x pool size = {hpa['maxReplicas'] * pool} exceeds PostgreSQL's default max_connections (100, less reserved)")
    policy = by[("NetworkPolicy", "issuer")]["spec"]
    admitted = {p["port"] for rule in policy["ingress"] for p in rule["ports"]}
    check(admitted == {ports["http"], ports["ops"]}, f"the NetworkPolicy admits ports {admitted}, expected http and ops")

    # The rotation job and the servers read the same token timing.
    cron = pod_of(by[("CronJob", "issuer-keys")])["spec"]
    rotate = next(c for c in containers(cron) if c["name"] == "rotate")
    for who, c in (("Deployment", container), ("CronJob rotate", rotate)):
        check({"configMapRef": {"name": "issuer-tokens"}} in c.get("envFrom", []), f"{who} must read the issuer-tokens ConfigMap")
    check(by[("CronJob", "issuer-keys")]["spec"]["concurrencyPolicy"] == "Forbid", "the key rotation must never run twice at once")
    role = by[("Role", "issuer-keys")]
    check(role["rules"] == [{"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["issuer-keys"], "verbs": ["get", "update"]}],
          "the rotation's Role must be get/update of the issuer-keys Secret, nothing more")
    job = by[("Job", "issuer-migrate")]["spec"]["template"]["spec"]["containers"][0]
    check(job["args"] == ["migrate"], "the migration Job runs `issuer migrate`")


if __name__ == "__main__":
    sys.exit(main())
