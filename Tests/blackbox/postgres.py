"""The test cluster scripts/test.sh starts (scripts/postgres-cluster.sh): a fresh database per use, and outages.
Without LATCHKEY_TEST_POSTGRES_URL the replica tests fail, saying how to run them: they never skip."""
import glob
import os
import subprocess
import uuid
from urllib.parse import urlsplit

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLUSTER = os.path.join(ROOT, "scripts", "postgres-cluster.sh")


def cluster_url():
    url = os.environ.get("LATCHKEY_TEST_POSTGRES_URL")
    if not url:
        pytest.fail("LATCHKEY_TEST_POSTGRES_URL is not set: run scripts/test.sh, or `scripts/postgres-cluster.sh start` and export it")
    return url


def psql(url, sql):
    binary = (sorted(glob.glob("/usr/lib/postgresql/*/bin/psql")) or ["psql"])[-1]
    out = subprocess.run([binary, url, "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-c", sql],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def fresh_database(url=None):
    """A new empty database on the cluster; returns its URL."""
    url = url or cluster_url()
    name = "bb_" + uuid.uuid4().hex[:16]
    psql(url, f"CREATE DATABASE {name}")
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/{name}"


class OwnCluster:
    """A cluster of its own, for a test that takes the database down."""

    def __init__(self):
        out = subprocess.run([CLUSTER, "start"], check=True, capture_output=True, text=True)
        self.url, self.dir = out.stdout.strip(), out.stderr.strip().splitlines()[-1]

    def halt(self):
        subprocess.run([CLUSTER, "halt", self.dir], check=True)

    def resume(self):
        subprocess.run([CLUSTER, "resume", self.dir], check=True)

    def stop(self):
        subprocess.run([CLUSTER, "stop", self.dir], check=False)
