"""Every metric name the alert rules and the Grafana dashboard use must be one that
Sources/IssuerServer/ServerMetrics.swift (with its ServerMetrics+*.swift extensions) or
ProcessStatistics.swift exports, so a renamed metric cannot leave a silent alert or an empty panel
behind. Run by scripts/check-deploy; exits 1 naming each unknown metric.

The names are read from the Swift source, as swift-prometheus composes them:
`issuer_<subsystem>_<metric>_<unit>` (MetricNameDescriptor.name, an empty unit left out),
counters through `count(...)` with the unit `total`, histograms with the `_bucket`, `_sum` and
`_count` series; the process metrics are the `process_...` names ProcessStatistics.swift lists.
"""
import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "Sources/IssuerServer").glob("ServerMetrics*.swift"))
PROCESS = ROOT / "Sources/IssuerServer/ProcessStatistics.swift"
RULES = ROOT / "deploy/prometheus/issuer.rules.yml"
DASHBOARD = ROOT / "deploy/grafana/issuer.json"
# Series Prometheus itself makes, not the issuer.
PROMETHEUS_OWN = {"up"}
LITERAL = r'"(\w+)"'


def exported_metrics(source: str) -> set[str]:
    names: set[str] = set()
    # Split into functions, so a name built from loop variables finds its own tuples.
    for body in re.split(r"\n\s*(?:private |static |public )*func ", source):
        for match in re.finditer(rf"\bcount\({LITERAL}, {LITERAL},", body):
            names.add(f"issuer_{match[1]}_{match[2]}_total")
        for match in re.finditer(rf'Self\.name\({LITERAL}, (\w+|{LITERAL}), (\w+|"(\w*)"),', body):
            subsystem, metric, unit = match[1], match[3], match[5]
            if metric and unit is not None:
                found = [(metric, unit)]
            else:  # e.g. for (metric, unit, help, value) in [("size", "connections", ...), ...]
                found = re.findall(rf'\({LITERAL}, {LITERAL}, "[^"]*", [\w.]+\)', body)
            histogram = "Histogram(" in body[max(0, match.start() - 120):match.start()]
            for metric, unit in found:
                name = "_".join(part for part in ("issuer", subsystem, metric, unit) if part)
                names.update({name + s for s in ("_bucket", "_sum", "_count")} if histogram else {name})
    return names


def referenced(expressions) -> set[str]:
    found: set[str] = set()
    for expression in expressions:
        # Metric names: identifiers not followed by '(' (functions) and not label names or keywords.
        text = re.sub(r'"[^"]*"', '""', expression)  # label values are not names
        text = re.sub(r"\{[^}]*\}", "{}", text)      # nor are label names
        text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)
        for token in re.findall(r"\b[a-zA-Z_:][a-zA-Z0-9_:]*\b(?!\s*\()", text):
            if token.startswith(("issuer_", "process_")) or token in PROMETHEUS_OWN:
                found.add(token)
            elif token not in {"and", "or", "unless", "bool", "offset", "le", "__rate_interval", "instance",
                               "on", "ignoring", "group_left", "group_right", "by", "without"}:
                raise SystemExit(f"unexpected identifier {token!r} in: {expression}")
    return found


def main() -> int:
    exported = exported_metrics("\n".join(source.read_text() for source in SOURCES))
    process = set(re.findall(r'"(process_\w+)"', PROCESS.read_text()))
    if len(exported) < 10 or len(process) < 4:
        print(f"read only {sorted(exported | process)} from {[str(s) for s in SOURCES]} and {PROCESS}: the parser no longer understands them", file=sys.stderr)
        return 1
    exported |= process
    rules = yaml.safe_load(RULES.read_text())
    rule_exprs = [rule["expr"] for group in rules["groups"] for rule in group["rules"]]
    dashboard = json.loads(DASHBOARD.read_text())
    panel_exprs = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    panel_exprs += [v["definition"] for v in dashboard["templating"]["list"] if "definition" in v]
    problems = 0
    for what, exprs in (("deploy/prometheus/issuer.rules.yml", rule_exprs), ("deploy/grafana/issuer.json", panel_exprs)):
        used = referenced(exprs)
        for name in sorted(used - exported - PROMETHEUS_OWN):
            print(f"{what}: {name} is not a metric ServerMetrics*.swift or ProcessStatistics.swift exports", file=sys.stderr)
            problems += 1
        print(f"{what}: {len(used)} metric names, all exported" if not used - exported - PROMETHEUS_OWN else "")
    unused = {n for n in exported if not n.endswith(("_sum", "_count"))} - referenced(panel_exprs)
    unused = {n for n in unused if not (n.endswith("_bucket") and n[:-7] + "_bucket" in referenced(panel_exprs))}
    if unused:
        print("not on the dashboard (informational): " + ", ".join(sorted(unused)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
