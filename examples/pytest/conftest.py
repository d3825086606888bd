"""A pytest fixture that runs Bonsai for the test session.

`bonsai serve --port 0 --data :memory: --output json` prints one JSON line on stdout once the API, controllers,
scheduler and simulated nodes have started: {"url", "port", "kubeconfig", "token", "pid", "data"}. SIGTERM stops
the server; with --data :memory: it removes its temporary folder (the kubeconfig) as it exits.

The command defaults to `npx bonsai` (Bonsai installed in the project's node_modules); set BONSAI to another
command line, e.g. BONSAI="node /path/to/bonsai/dist/src/cli/bin.js".
"""
import json
import os
import shlex
import signal
import subprocess

import pytest
from kubernetes import client, config


@pytest.fixture(scope="session")
def bonsai():
    cmd = shlex.split(os.environ.get("BONSAI", "npx bonsai"))
    proc = subprocess.Popen(
        cmd + ["serve", "--port", "0", "--data", ":memory:", "--output", "json"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"bonsai exited with {proc.wait()} before it was ready")
        info = json.loads(line)
        yield info
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)


@pytest.fixture(scope="session")
def api_client(bonsai):
    return config.new_client_from_config(config_file=bonsai["kubeconfig"])


@pytest.fixture
def core(api_client):
    return client.CoreV1Api(api_client)


@pytest.fixture
def apps(api_client):
    return client.AppsV1Api(api_client)
