"""Fixtures of the Python module's tests: the CLI beside the module (VIGILO_BIN), a private environment
(control state, stores, caches under one temporary directory) that the CLI and the module's Context share,
so every answer of the module can be compared with the CLI's for the same inputs."""

import json
import os
import subprocess

import pytest

import vigilo

SOURCE_DIR = os.environ.get("VIGILO_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
DATASET = os.path.join(SOURCE_DIR, "examples", "demo", "dataset.json")
PROFILE = os.path.join(SOURCE_DIR, "examples", "profiles", "geography-qa.json")


class Cli:
    def __init__(self, binary, env):
        self.binary, self.env = binary, env

    def run(self, *args, check=True):
        done = subprocess.run([self.binary, *args], env=self.env, capture_output=True)
        if check and done.returncode != 0:
            raise AssertionError("vigilo %s: %s" % (" ".join(args), done.stderr.decode()))
        return done

    def json_lines(self, *args):
        return [json.loads(line) for line in self.run(*args).stdout.decode().splitlines() if line]

    def record(self, *args):
        rows = self.json_lines(*args)
        assert len(rows) == 1, rows
        return rows[0]

    def error(self, *args):
        """The status text the CLI printed (after "vigilo: ") of a command that must fail."""
        done = self.run(*args, check=False)
        assert done.returncode != 0, done.stdout
        line = done.stderr.decode().strip().splitlines()[-1]
        assert line.startswith("vigilo: "), line
        return line[len("vigilo: "):]


@pytest.fixture(scope="session")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("vigilo-py")


@pytest.fixture(scope="session")
def environ(home):
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGILO_") or k == "VIGILO_BIN"}
    env.update({"VIGILO_CONTROL": str(home / "control.sqlite3"), "XDG_CONFIG_HOME": str(home / "config"),
                "XDG_DATA_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache"), "TMPDIR": str(home)})
    return env


@pytest.fixture(scope="session")
def cli(environ):
    binary = os.environ.get("VIGILO_BIN")
    if not binary:
        pytest.skip("VIGILO_BIN is not set (ctest sets it)")
    return Cli(binary, environ)


@pytest.fixture(scope="session")
def ctx(environ, home):
    return vigilo.Context(environ=environ, scratch=str(home))
