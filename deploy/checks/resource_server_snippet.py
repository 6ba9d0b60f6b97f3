"""Runs docs/resource-servers.md's Python verifier, extracted from the page, against a live
issuer: `issuer serve` on its embedded default in a scratch directory, trusting `issuer dev apple`,
signed in with `issuer dev token --curl` (README, "Try it without Apple"). Checks that the
verifier accepts the access token, and refuses the ID token, another audience or issuer, a
forged signature and `alg: none`; that after a forced key rotation (the next key was already
published) it verifies a token from the new key without refetching; and that after revocation
the token still verifies offline while /userinfo refuses it, as the page says. On the way, it
checks what deploy/ assumes of a live server's management port and metrics. Then the page's DPoP
block: a session bound by a real proof, the bound token accepted with its device's proof and
refused replayed, with another key's, for another request or token. Also checks that the page's
Swift verifier is, character for character, the one the Swift test runs.

usage: resource_server_snippet.py ISSUER_BINARY
"""
import base64
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import jwt

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs/resource-servers.md"
SWIFT_TEST = ROOT / "Tests/IssuerServerTests/ResourceServerSnippetTests.swift"


def snippet(name: str, language: str | None = None) -> str:
    language = language or name
    match = re.search(rf"<!-- tested-snippet: {name} -->\n```{language}\n(.*?)```\n", PAGE.read_text(), re.S)
    if not match:
        raise SystemExit(f"{PAGE}: no tested {name} snippet")
    return match[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.3)
    raise SystemExit(f"{url} never answered")


def post(url: str, fields: dict) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=urllib.parse.urlencode(fields).encode())
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def userinfo(url: str, token: str) -> int:
    request = urllib.request.Request(f"{url}/userinfo", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def refused(verifier, token: str, why: str) -> None:
    try:
        verifier.verify(token)
    except jwt.InvalidTokenError:
        return
    raise SystemExit(f"the Python verifier accepted {why}")


def b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def dpop_proof(key, method: str, url: str, access_token: str | None = None, jti: str | None = None) -> str:
    """A device's proof (RFC 9449 §4.2), built as an app would, with the `cryptography` EC key `key`."""
    numbers = key.public_key().public_numbers()
    jwk = {"kty": "EC", "crv": "P-256", "x": b64bytes(numbers.x.to_bytes(32, "big")), "y": b64bytes(numbers.y.to_bytes(32, "big"))}
    claims = {"htm": method, "htu": url, "iat": int(time.time()), "jti": jti or os.urandom(12).hex()}
    if access_token is not None:
        claims["ath"] = b64bytes(hashlib.sha256(access_token.encode()).digest())
    return jwt.encode(claims, key, algorithm="ES256", headers={"typ": "dpop+jwt", "jwk": jwk})


def b64bytes(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def check_dpop_snippet(binary: Path, scratch: Path, env: dict, url: str, verifier) -> None:
    """docs/resource-servers.md's DPoP block: a session bound by a real proof at the live issuer,
    then the block's checks at a made-up API URL, each way a stolen or replayed token could come."""
    from cryptography.hazmat.primitives.asymmetric import ec

    namespace: dict = {}
    exec(compile(snippet("python-dpop", "python"), f"{PAGE}:python-dpop", "exec"), namespace)
    proofs = namespace["DPoPProofVerifier"]()
    device, thief = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    id_token = subprocess.run([binary, "dev", "token", "--sub", "resource-server-dpop"], cwd=scratch, env=env,
                              capture_output=True, text=True, check=True).stdout.strip()
    request = urllib.request.Request(
        f"{url}/auth/apple/exchange", data=json.dumps({"id_token": id_token}).encode(),
        headers={"Content-Type": "application/json", "DPoP": dpop_proof(device, "POST", f"{url}/auth/apple/exchange")})
    with urllib.request.urlopen(request, timeout=10) as answer:
        tokens = json.load(answer)
    assert tokens["token_type"] == "DPoP", tokens["token_type"]
    token = tokens["access_token"]
    claims = verifier.verify(token)
    assert claims["cnf"]["jkt"] == namespace["jwk_thumbprint"](jwt.get_unverified_header(
        dpop_proof(device, "GET", "https://api.example.com/things"))["jwk"]), claims["cnf"]

    api = "https://api.example.com/things"
    good = dpop_proof(device, "GET", api, token)
    proofs.verify(claims, token, good, "GET", api)

    def refused(proof: str, why: str, method: str = "GET", request_url: str = api, for_claims: dict | None = None) -> None:
        try:
            proofs.verify(for_claims if for_claims is not None else claims, token, proof, method, request_url)
        except jwt.InvalidTokenError:
            return
        raise SystemExit(f"the DPoP verifier of {PAGE.name} accepted {why}")

    refused(good, "a replayed proof")
    refused(dpop_proof(thief, "GET", api, token), "another key's proof")
    refused(dpop_proof(device, "GET", api, token), "a proof for another method", method="POST")
    refused(dpop_proof(device, "GET", api, token), "a proof for another URL", request_url="https://api.example.com/other")
    refused(dpop_proof(device, "GET", api, tokens["id_token"]), "a proof for another token")
    refused(dpop_proof(device, "GET", api), "a proof without ath")
    # Malformed proofs are refusals, never another exception: a jwk without its coordinates, an EC
    # key under RS256, claims of the wrong type.
    numbers = device.public_key().public_numbers()
    bare_jwk = {"kty": "EC", "crv": "P-256", "x": b64bytes(numbers.x.to_bytes(32, "big"))}
    refused(jwt.encode({"htm": "GET", "htu": api, "iat": int(time.time()), "jti": "j1",
                        "ath": b64bytes(hashlib.sha256(token.encode()).digest())},
                       device, algorithm="ES256", headers={"typ": "dpop+jwt", "jwk": bare_jwk}), "a jwk without y")
    full_jwk = jwt.get_unverified_header(good)["jwk"]
    refused(f"{b64({'typ': 'dpop+jwt', 'alg': 'RS256', 'jwk': full_jwk})}.{good.split('.')[1]}.{good.split('.')[2]}",
            "an EC jwk under RS256")
    refused(jwt.encode({"htm": "GET", "htu": 7, "iat": "now", "jti": "j2", "ath": 1}, device, algorithm="ES256",
                       headers={"typ": "dpop+jwt", "jwk": full_jwk}), "claims of the wrong type")
    unbound = {key: value for key, value in claims.items() if key != "cnf"}
    refused(dpop_proof(device, "GET", api, token), "a proof for a token without cnf", for_claims=unbound)
    # The issuer's own resource endpoint agrees: the bound token as Bearer is refused there too.
    assert userinfo(url, token) == 401, "/userinfo accepts a DPoP-bound token as Bearer"
    print("resource servers: the DPoP verifier accepts a bound token with its device's proof and refuses a replay, "
          "another key, another method, URL or token, no ath, no cnf, malformed proofs; /userinfo refuses the bound token as Bearer")


def check_management_port(url: str, ops: str) -> None:
    """What deploy/ assumes of a live server: /readyz and /metrics on the management port only
    (probes, ServiceMonitor, a public Service without /metrics), and the labels the alert rules
    select on (route="/readyz" with its status, tokens by grant, the pool gauges)."""
    for path in ("/metrics", "/readyz", "/healthz"):
        try:
            urllib.request.urlopen(f"{url}{path}", timeout=5)
            raise SystemExit(f"the public port serves {path} although ISSUER_OPS_PORT is set")
        except urllib.error.HTTPError as error:
            assert error.code == 404, (path, error.code)
    with urllib.request.urlopen(f"{ops}/metrics", timeout=5) as answer:
        metrics = answer.read().decode()
    for pattern in (r'issuer_http_requests_total\{[^}]*route="/readyz"[^}]*status="200"',
                    r'issuer_http_requests_total\{[^}]*route="/oauth2/token"',
                    r'issuer_http_request_duration_seconds_bucket\{', r'issuer_tokens_issued_total\{grant="apple_exchange"\}',
                    r"issuer_db_pool_size_connections ", r"issuer_db_pool_in_use_connections ", r"issuer_db_pool_waiting_requests ",
                    r'issuer_jwks_fetches_total\{provider="apple"\}'):
        assert re.search(pattern, metrics), f"/metrics has no {pattern}:\n{metrics}"
    print("management port: /healthz, /readyz, /metrics only there; the series the alerts select are exported as they expect")


def check_swift_snippet() -> None:
    test = SWIFT_TEST.read_text()
    match = re.search(r"// tested-snippet:begin\n(.*?)// tested-snippet:end\n", test, re.S)
    if not match or match[1] != snippet("swift"):
        raise SystemExit(f"{SWIFT_TEST} no longer runs the Swift verifier of {PAGE.name}: copy the page's block between its markers")
    print("docs/resource-servers.md: the Swift verifier is the one ResourceServerSnippetTests runs")


def main() -> int:
    check_swift_snippet()
    binary = Path(sys.argv[1]).resolve()
    scratch = Path(tempfile.mkdtemp(prefix="issuer-resource-server."))
    scratch.chmod(0o755)  # run as root, the embedded cluster's postgres user must reach it
    processes: list[subprocess.Popen] = []
    try:
        apple_port, port, ops_port = free_port(), free_port(), free_port()
        url, ops = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{ops_port}"
        base_env = {"PATH": os.environ["PATH"], "HOME": str(scratch)}
        log = open(scratch / "issuer.log", "w")
        processes.append(subprocess.Popen([binary, "dev", "apple", "--port", str(apple_port)], cwd=scratch, env=base_env, stdout=log, stderr=log))
        wait_for(f"http://127.0.0.1:{apple_port}/auth/keys")
        server_env = dict(base_env, ISSUER_PORT=str(port), ISSUER_OPS_PORT=str(ops_port), ISSUER_URL=url, ISSUER_KEYS_RELOAD_SECONDS="1",
                          ISSUER_APPLE_JWKS_URL=f"http://127.0.0.1:{apple_port}/auth/keys", ISSUER_APPLE_CLIENT_IDS="dev.issuer.local")
        processes.append(subprocess.Popen([binary, "serve"], cwd=scratch, env=server_env, stdout=log, stderr=log))
        wait_for(f"{ops}/readyz")

        def sign_in(subject: str) -> dict:
            curl = subprocess.run([binary, "dev", "token", "--sub", subject, "--issuer-url", url, "--curl"],
                                  cwd=scratch, env=base_env, capture_output=True, text=True, check=True).stdout
            return json.loads(subprocess.run(["sh"], input=curl, capture_output=True, text=True, check=True).stdout)

        namespace: dict = {}
        exec(compile(snippet("python"), f"{PAGE}:python", "exec"), namespace)
        Verifier = namespace["IssuerTokenVerifier"]
        verifier = Verifier(url, audience="clanboards-mobile")
        tokens = sign_in("resource-server-1")

        claims = verifier.verify(tokens["access_token"])
        assert claims["iss"] == url and claims["aud"] == "clanboards-mobile" and claims["sid"], claims
        refused(verifier, tokens["id_token"], "an ID token")
        refused(Verifier(url, audience="another-api"), tokens["access_token"], "a token for another audience")
        refused(Verifier(url + "/", audience="clanboards-mobile"), tokens["access_token"], "a token of another issuer")
        head, body, signature = tokens["access_token"].split(".")
        refused(verifier, f"{head}.{body}.{signature[::-1]}", "a forged signature")
        refused(verifier, f"{b64({'alg': 'none', 'typ': 'at+jwt'})}.{body}.", "alg none")
        print("resource servers: the Python verifier accepts an access token and refuses an ID token, another audience or issuer, a forged signature and alg none")

        # The next key is published before it signs: after a forced rotation (the servers reload
        # within a second) a new token verifies with the keys cached before it.
        fetched_at = verifier.fetched_at
        subprocess.run([binary, "keys", "rotate", "--force"], cwd=scratch, env=base_env, capture_output=True, check=True)
        time.sleep(2.5)
        rotated = sign_in("resource-server-2")
        new_kid = jwt.get_unverified_header(rotated["access_token"])["kid"]
        assert new_kid != jwt.get_unverified_header(tokens["access_token"])["kid"], "the rotation did not change the signing key"
        verifier.verify(rotated["access_token"])
        assert verifier.fetched_at == fetched_at, "the verifier had to refetch the JWKS after a rotation"
        print("resource servers: after a rotation, the new key's tokens verify from the cached JWKS")

        # Revocation: the refresh token stops at once; the access token verifies offline until
        # its exp, and /userinfo (which looks at the session) refuses it.
        status, _ = post(f"{url}/oauth2/revoke", {"token": tokens["refresh_token"], "client_id": "clanboards-mobile"})
        assert status == 200, status
        verifier.verify(tokens["access_token"])
        assert userinfo(url, tokens["access_token"]) == 401, "userinfo still accepts a revoked session's token"
        status, _ = post(f"{url}/oauth2/token", {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": "clanboards-mobile"})
        assert status == 400, status
        print("resource servers: after revocation the token still verifies offline, /userinfo answers 401, the refresh token is dead")

        check_dpop_snippet(binary, scratch, base_env, url, verifier)

        check_management_port(url, ops)
        return 0
    except BaseException:
        print((scratch / "issuer.log").read_text() if (scratch / "issuer.log").exists() else "", file=sys.stderr)
        raise
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
