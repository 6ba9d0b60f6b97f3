"""deploy/Containerfile cannot be built here (no container engine in CI), so this checks what can
be checked without one:

- the build stage installs the build prerequisites scripts/bootstrap names, then runs
  scripts/build-release and nothing else: the image's binary is built as that script builds it;
- the runtime stage copies the binary from where that script's `swift build -c release` puts it;
- every shared library the issuer links (outside the Swift runtime, which the release build links
  statically) belongs to a Debian package the runtime stage installs or debian:bookworm-slim has;
- the image's user is the uid the Kubernetes pods run as.

usage: containerfile.py ISSUER_BINARY RENDERED_MANIFESTS
"""
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
# Packages debian:bookworm-slim has without installing anything (apt and dpkg depend on them).
BASE_IMAGE = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g"}
problems: list[str] = []


def check(condition: bool, message: str) -> None:
    if not condition:
        problems.append(f"deploy/Containerfile: {message}")


def stages(text: str) -> list[list[tuple[str, str]]]:
    text = re.sub(r"\\\n\s*", " ", text)  # join continued lines
    result: list[list[tuple[str, str]]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        instruction, _, argument = line.partition(" ")
        if instruction.upper() == "FROM":
            result.append([])
        result[-1].append((instruction.upper(), argument.strip()))
    return result


def apt_packages(command: str) -> set[str]:
    match = re.search(r"apt-get install ([^&]*)", command)
    return {word for word in match[1].split() if not word.startswith("-")} if match else set()


def needed_libraries(binary: Path) -> set[str]:
    """NEEDED entries of the binary, and of the Swift runtime libraries it links (a static
    release build pulls their dependencies in), without the Swift runtime itself."""
    seen, libraries, queue = set(), set(), [binary]
    while queue:
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        dynamic = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True).stdout
        resolved = dict(re.findall(r"^\s*(\S+) => (\S+)", subprocess.run(["ldd", str(path)], capture_output=True, text=True).stdout, re.M))
        for name in re.findall(r"\(NEEDED\).*\[(.+)\]", dynamic):
            location = resolved.get(name, "")
            if "/usr/lib/swift/" in location or "/swift/linux/" in location or name.startswith(("libswift", "libFoundation", "libdispatch", "libBlocksRuntime")):
                if location:
                    queue.append(Path(location))
            elif name.startswith("ld-linux"):
                continue
            else:
                libraries.add(location or name)
    return libraries


def package_of(library: str) -> str:
    owner = subprocess.run(["dpkg", "-S", f"*/{Path(library).name}"], capture_output=True, text=True).stdout
    return owner.split(":")[0] if owner else f"(no package owns {library})"


def main() -> int:
    binary, rendered = Path(sys.argv[1]), Path(sys.argv[2])
    build, runtime = stages((ROOT / "deploy/Containerfile").read_text())
    runs = [argument for instruction, argument in build if instruction == "RUN"]
    check(len(runs) == 2 and runs[1] == "scripts/build-release",
          f"the build stage must install packages, then RUN scripts/build-release only (it runs {runs})")
    bootstrap = (ROOT / "scripts/bootstrap").read_text()
    build_packages = apt_packages(runs[0]) if runs else set()
    check({"libpq-dev", "libssl-dev", "pkg-config"} <= build_packages, f"the build stage installs {sorted(build_packages)}")
    check(all(f"missing+=({p})" in bootstrap for p in build_packages), "the build stage installs a package scripts/bootstrap does not name")

    script = (ROOT / "scripts/build-release").read_text()
    check("swift build -c release --product issuer" in script, "scripts/build-release no longer builds `issuer` in release")
    copies = [argument for instruction, argument in runtime if instruction == "COPY"]
    check(any(c.startswith("--from=build /src/.build/release/issuer ") for c in copies), f"the runtime stage must copy .build/release/issuer ({copies})")

    runtime_packages = set().union(*(apt_packages(a) for i, a in runtime if i == "RUN"))
    for library in sorted(needed_libraries(binary)):
        package = package_of(library)
        check(package in runtime_packages | BASE_IMAGE, f"{library} comes from {package}, which the runtime stage does not install")

    users = [argument for instruction, argument in runtime if instruction == "USER"]
    uid = next(o for o in yaml.safe_load_all(rendered.read_text()) if o and o["kind"] == "Deployment")["spec"]["template"]["spec"]["securityContext"]["runAsUser"]
    check(users == [f"{uid}:{uid}"], f"the image's USER {users} must be the pods' runAsUser {uid}")

    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print(f"deploy/Containerfile: builds with scripts/build-release; runtime packages {sorted(runtime_packages)} cover the issuer's libraries")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
