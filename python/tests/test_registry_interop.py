"""toolhost pull and push against an independent OCI client: the ORAS project's Python
SDK (``oras``) pushes a component in the CNCF Wasm layout that ``toolhost pull`` then
installs and serves, and pulls what ``toolhost push`` published. Signatures the same
way: one made in cosign's format by ``cryptography`` and pushed by ``oras`` is
verified by ``toolhost pull --key``, and one made by ``toolhost push --sign`` is checked
here with ``cryptography``. Debian's docker-registry serves on loopback."""

import base64
import hashlib
import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import oras.client
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

import toolhost

from conftest import CACHE, PLUGINS, ROOT

REGISTRY = Path("/usr/bin/docker-registry")
TOOLHOST = Path(os.environ.get("TOOLHOST_BIN", ROOT / "target" / "debug" / "toolhost"))
WASM_CONFIG = "application/vnd.wasm.config.v0+json"
SIMPLE_SIGNING = "application/vnd.dev.cosign.simplesigning.v1+json"
SIGNATURE_ANNOTATION = "dev.cosignproject.cosign/signature"


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    """``host:port`` of a docker-registry on loopback, stopped after the module."""
    if not REGISTRY.is_file():
        pytest.fail("docker-registry is not installed: `apt-get install docker-registry` (scripts/test.sh does it)")
    folder = tmp_path_factory.mktemp("registry")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = folder / "config.yml"
    config.write_text(
        f"version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {folder / 'data'}\n"
        f"http:\n  addr: 127.0.0.1:{port}\n"
    )
    server = subprocess.Popen([REGISTRY, "serve", config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    else:
        server.kill()
        pytest.fail(f"docker-registry did not listen on port {port} within 10 s")
    yield f"127.0.0.1:{port}"
    server.kill()
    server.wait()


@pytest.fixture(scope="module")
def oras_client(registry):
    return oras.client.OrasClient(hostname=registry, insecure=True)


def run_toolhost(*args, cwd=None):
    """The toolhost command's output; fails the test when it does not succeed."""
    if not TOOLHOST.is_file():
        pytest.fail(f"{TOOLHOST} is missing: build it first (cargo build), or name it in TOOLHOST_BIN")
    env = dict(os.environ, DOCKER_CONFIG=str(cwd or ROOT), TOOLHOST_CACHE_DIR=str(CACHE))
    done = subprocess.run([TOOLHOST, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_component_pushed_by_oras_is_pulled_locked_and_served(registry, oras_client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(PLUGINS / "calculator.wasm", "calculator.wasm")
    Path("config.json").write_text(json.dumps({"architecture": "wasm", "os": "wasip2", "layerDigests": []}))
    reference = f"{registry}/oras/calculator:1.0"
    oras_client.push(
        target=reference,
        files=["calculator.wasm:application/wasm"],
        manifest_config=f"config.json:{WASM_CONFIG}",
    )

    plugins = tmp_path / "plugins"
    printed = run_toolhost("pull", reference, "--plugins", plugins)
    assert "calculator.wasm <- " in printed
    assert (plugins / "calculator.wasm").read_bytes() == (PLUGINS / "calculator.wasm").read_bytes()
    lock = (plugins / "toolhost.lock").read_text()
    digest = "sha256:" + hashlib.sha256((PLUGINS / "calculator.wasm").read_bytes()).hexdigest()
    assert f'sha256 = "{digest}"' in lock
    host = toolhost.Host(plugins, cache_dir=CACHE)
    assert host.call("gcd", {"a": 12, "b": 18}) == 6


def test_a_component_pushed_by_toolhost_is_pulled_by_oras_in_the_wasm_layout(registry, oras_client, tmp_path):
    reference = f"{registry}/toolhost/stats-py:2"
    run_toolhost("push", PLUGINS / "stats-py.wasm", reference)

    manifest = oras_client.get_manifest(reference)
    assert manifest["config"]["mediaType"] == WASM_CONFIG
    assert [layer["mediaType"] for layer in manifest["layers"]] == [
        "application/wasm",
        "application/vnd.toolhost.manifest.v1+toml",
    ]
    assert "ratio" in manifest["annotations"]["dev.toolhost.tools"].split(",")
    config = json.loads(oras_client.get_blob(reference, manifest["config"]["digest"]).content)
    assert (config["architecture"], config["os"]) == ("wasm", "wasip2")
    assert config["layerDigests"] == [layer["digest"] for layer in manifest["layers"]]

    pulled = oras_client.pull(target=reference, outdir=str(tmp_path))
    by_digest = {Path(path).name: Path(path).read_bytes() for path in pulled}
    assert by_digest[manifest["layers"][0]["digest"]] == (PLUGINS / "stats-py.wasm").read_bytes()
    assert by_digest[manifest["layers"][1]["digest"]] == (PLUGINS / "stats-py.toml").read_bytes()


def simple_signing(reference: str, digest: str) -> bytes:
    """cosign's simple-signing payload for the artifact ``digest``."""
    repository = reference.rsplit(":", 1)[0] if "@" not in reference else reference.split("@")[0]
    return json.dumps(
        {
            "critical": {
                "identity": {"docker-reference": repository},
                "image": {"docker-manifest-digest": digest},
                "type": "cosign container image signature",
            },
            "optional": None,
        }
    ).encode()


def test_a_cosign_signature_made_elsewhere_is_verified_and_ours_verifies_elsewhere(
    registry, oras_client, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    key = ec.generate_private_key(ec.SECP256R1())
    Path("author.pub").write_bytes(
        key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    other = ec.generate_private_key(ec.SECP256R1())
    Path("other.pub").write_bytes(
        other.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )

    # Pushed unsigned, then signed here: the payload signed with ECDSA P-256 and pushed
    # by oras at cosign's `sha256-DIGEST.sig` tag, the signature in its annotation.
    reference = f"{registry}/elsewhere/units:1"
    run_toolhost("push", PLUGINS / "units.wasm", reference)
    response = oras_client.do_request(
        f"http://{registry}/v2/elsewhere/units/manifests/1",
        "HEAD",
        headers={"Accept": "application/vnd.oci.image.manifest.v1+json"},
    )
    digest = response.headers["Docker-Content-Digest"]
    payload = simple_signing(reference, digest)
    Path("payload.json").write_bytes(payload)
    signature = base64.b64encode(key.sign(payload, ec.ECDSA(hashes.SHA256()))).decode()
    Path("annotations.json").write_text(json.dumps({"payload.json": {SIGNATURE_ANNOTATION: signature}}))
    Path("empty.json").write_text("{}")
    oras_client.push(
        target=f"{registry}/elsewhere/units:{digest.replace(':', '-')}.sig",
        files=[f"payload.json:{SIMPLE_SIGNING}"],
        manifest_config="empty.json:application/vnd.oci.image.config.v1+json",
        annotation_file="annotations.json",
    )

    plugins = tmp_path / "plugins"
    verified = run_toolhost("pull", reference, "--plugins", plugins, "--key", "author.pub")
    assert ", signed by sha256:" in verified
    wrong = subprocess.run(
        [TOOLHOST, "pull", reference, "--plugins", tmp_path / "other", "--key", "other.pub"],
        capture_output=True,
        text=True,
        env=dict(os.environ, DOCKER_CONFIG=str(tmp_path)),
        timeout=300,
    )
    assert wrong.returncode == 2 and "was made with the key(s) given" in wrong.stderr, wrong.stderr

    # The other way: `toolhost push --sign` with a key of cosign's kind, checked here.
    Path("signer.key").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    signed = f"{registry}/ours/calculator:1"
    printed = run_toolhost("push", PLUGINS / "calculator.wasm", signed, "--sign", "signer.key")
    digest = printed.split("@", 1)[1].split(" ", 1)[0]
    tag = f"{registry}/ours/calculator:{digest.replace(':', '-')}.sig"
    manifest = oras_client.get_manifest(tag)
    [layer] = manifest["layers"]
    assert layer["mediaType"] == SIMPLE_SIGNING
    body = oras_client.get_blob(tag, layer["digest"]).content
    assert json.loads(body)["critical"]["image"]["docker-manifest-digest"] == digest
    key.public_key().verify(
        base64.b64decode(layer["annotations"][SIGNATURE_ANNOTATION]), body, ec.ECDSA(hashes.SHA256())
    )


def test_the_package_pulls_and_pushes_and_says_why_not(registry, tmp_path):
    key = ec.generate_private_key(ec.SECP256R1())
    (tmp_path / "author.key").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    (tmp_path / "author.pub").write_bytes(
        key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    reference = f"{registry}/package/calculator:3"
    pushed = toolhost.push(PLUGINS / "calculator.wasm", reference, sign=tmp_path / "author.key")
    assert pushed["tools"] == ["evaluate", "factorial", "gcd", "percentage", "plot", "statistics"]
    assert pushed["signed_by"].startswith("sha256:")

    plugins = tmp_path / "plugins"
    [pulled] = toolhost.pull(reference, plugins, keys=[tmp_path / "author.pub"])
    assert (pulled["name"], pulled["artifact"], pulled["signed_by"]) == (
        "calculator",
        pushed["artifact"],
        [pushed["signed_by"]],
    )
    assert toolhost.Host(plugins, cache_dir=CACHE).call("gcd", {"a": 21, "b": 14}) == 7
    (plugins / "calculator.wasm").unlink()
    [again] = toolhost.pull(None, plugins)
    assert again["sha256"] == pulled["sha256"]

    with pytest.raises(toolhost.RegistryError, match="was not found in its registry"):
        toolhost.pull(f"{registry}/package/calculator:9", plugins)
    toolhost.push(PLUGINS / "units.wasm", f"{registry}/package/units:1")
    with pytest.raises(toolhost.RegistryError, match="carries no cosign signature"):
        toolhost.pull(f"{registry}/package/units:1", plugins, keys=[tmp_path / "author.pub"])
    (tmp_path / "junk.wasm").write_bytes(b"\0asm junk")
    with pytest.raises(toolhost.RegistryError, match="not pushed, it does not load"):
        toolhost.push(tmp_path / "junk.wasm", f"{registry}/package/junk:1")
