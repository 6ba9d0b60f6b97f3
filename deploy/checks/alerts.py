"""The alert rules (deploy/prometheus/issuer.rules.yml) against their runbook and their tests:
every alert has a runbook_url naming a section of docs/operations.md that exists, every alert is
seen firing in at least one promtool test (issuer.rules.test.yml), and a target that vanished
is caught (an alert on `absent(up...)`, which `up == 0` cannot see). Run by scripts/check-deploy;
exits 1 with one line per problem.

usage: alerts.py [REPOSITORY]
"""
import re
import sys
from pathlib import Path

import yaml


def anchors(markdown: str) -> set[str]:
    """GitHub's anchors for the headings of a Markdown file."""
    found = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*$", markdown, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        found.add(slug)
    return found


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]
    rules = yaml.safe_load((root / "deploy/prometheus/issuer.rules.yml").read_text())
    tests = yaml.safe_load((root / "deploy/prometheus/issuer.rules.test.yml").read_text())
    sections = anchors((root / "docs/operations.md").read_text())
    alerts = [rule for group in rules["groups"] for rule in group["rules"] if "alert" in rule]
    fired = {case["alertname"] for test in tests["tests"] for case in test.get("alert_rule_test", []) if case.get("exp_alerts")}
    problems = []
    for alert in alerts:
        name, url = alert["alert"], alert.get("annotations", {}).get("runbook_url", "")
        match = re.fullmatch(r"(?:.*/)?docs/operations\.md#([\w-]+)", url)
        if not match:
            problems.append(f"{name}: runbook_url {url!r} does not point into docs/operations.md")
        elif match[1] not in sections:
            problems.append(f"{name}: runbook_url {url!r}: docs/operations.md has no section #{match[1]}")
        if name not in fired:
            problems.append(f"{name}: no test in issuer.rules.test.yml sees it fire")
    if not any(re.search(r"\babsent\s*\(\s*up\b", alert["expr"]) for alert in alerts):
        problems.append("no alert on absent(up{...}): a scrape target that vanished (no up series) goes unnoticed")
    for p in problems:
        print(f"deploy/prometheus: {p}", file=sys.stderr)
    if not problems:
        print(f"deploy/prometheus: {len(alerts)} alerts, each with its runbook section and a firing test; absent targets alert")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
