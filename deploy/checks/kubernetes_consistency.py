"""What kubernetes-validate (schemas) and checkov (policies) cannot see: that the objects of
deploy/kubernetes agree with each other and with the issuer. Run on `kubectl kustomize` output by
scripts/check-deploy; exits 1 with one line per problem.

usage: kubernetes_consistency.py RENDERED_MANIFESTS
"""
import ipaddress
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
KUBERNETES = ROOT / "deploy/kubernetes"
problems: list[str] = []


def check(condition: bool, message: str) -> None:
    if not condition:
        problems.append(message)


def matches(selector: dict, labels: dict) -> bool:
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items()) and all(
        (labels.get(e["key"]) in e["values"]) == (e["operator"] == "In") for e in selector.get("matchExpressions", []))


def main() -> int:
    objects = [o for o in yaml.safe_load_all(Path(sys.argv[1]).read_text()) if o]
    by = {(o["kind"], o["metadata"]["name"]): o for o in objects}

    # Every manifest file is in the kustomization, and nothing else is.
    listed = set(yaml.safe_load((KUBERNETES / "kustomization.yaml").read_text())["resources"])
    present = {p.name for p in KUBERNETES.glob("*.yaml")} - {"kustomization.yaml"}
    check(listed == present, f"kustomization.yaml resources {sorted(listed)} differ from the files {sorted(present)}")
    # The Secrets are the operator's: applying the kustomization must never overwrite them.
    check(not [o for o in objects if o["kind"] == "Secret"], "the kustomization must not contain a Secret (it would overwrite the key ring)")

    deployment = by[("Deployment", "issuer")]
    pod = deployment["spec"]["template"]["spec"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    server = by[("ConfigMap", "issuer-server")]["data"]
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
    for o in objects:
        spec = {"Deployment": lambda o: o["spec"]["template"]["spec"], "Job": lambda o: o["spec"]["template"]["spec"],
                "CronJob": lambda o: o["spec"]["jobTemplate"]["spec"]["template"]["spec"]}.get(o["kind"])
        if not spec:
            continue
        pod_spec = spec(o)
        check(pod_spec["securityContext"].get("runAsNonRoot") is True, f"{o['kind']}/{o['metadata']['name']}: runAsNonRoot")
        for c in pod_spec.get("initContainers", []) + pod_spec["containers"]:
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

    # X-Forwarded-For is believed only from narrow ranges.
    for cidr in filter(None, server.get("ISSUER_TRUSTED_PROXIES", "").split(",")):
        check(ipaddress.ip_network(cidr.strip()).prefixlen >= 16, f"ISSUER_TRUSTED_PROXIES {cidr} is too wide to trust")

    # The rotation job and the servers read the same token timing.
    cron = by[("CronJob", "issuer-keys")]["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    rotate = next(c for c in cron["initContainers"] if c["name"] == "rotate")
    for who, c in (("Deployment", container), ("CronJob rotate", rotate)):
        check({"configMapRef": {"name": "issuer-tokens"}} in c.get("envFrom", []), f"{who} must read the issuer-tokens ConfigMap")
    check(by[("CronJob", "issuer-keys")]["spec"]["concurrencyPolicy"] == "Forbid", "the key rotation must never run twice at once")
    role = by[("Role", "issuer-keys")]
    check(role["rules"] == [{"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["issuer-keys"], "verbs": ["get", "update"]}],
          "the rotation's Role must be get/update of the issuer-keys Secret, nothing more")
    job = by[("Job", "issuer-migrate")]["spec"]["template"]["spec"]["containers"][0]
    check(job["args"] == ["migrate"], "the migration Job runs `issuer migrate`")

    for p in problems:
        print(f"deploy/kubernetes: {p}", file=sys.stderr)
    if not problems:
        print(f"deploy/kubernetes: {len(objects)} objects agree with each other and with the issuer's settings")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
