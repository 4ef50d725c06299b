"""Fixtures of the Python module's tests: the CLI beside the module (VIGILO_BIN), a private environment
(control state, stores, caches under one temporary directory) that the CLI and the module's Context share,
so every answer of the module can be compared with the CLI's for the same inputs."""

import json
import os
import subprocess
import tarfile

import pytest

import vigilo

SOURCE_DIR = os.environ.get("VIGILO_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
DATASET = os.path.join(SOURCE_DIR, "examples", "demo", "dataset.json")
PROFILE = os.path.join(SOURCE_DIR, "examples", "profiles", "geography-qa.json")
EXAMPLES = os.path.join(SOURCE_DIR, "examples", "python")

# The CLI tests' tiny word-vector model (src/cli/cli_test_support.h): four words, two dimensions.
TINY_MODEL = ('{"precision":8,"l2NormIndex":2,"wordIndex":3,"size":4,"dimensions":2,"words":["a","the","don","cat"],'
              '"vectors":{"a":[0.1,0.2,1,0],"the":[0.3,-0.4,1,1],"don":[1,1,1,2],"cat":[0.7,0.1,1,3]},'
              '"unkVector":[0,0,-1]}')


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


@pytest.fixture(scope="session")
def text_publication(ctx, cli, home):
    """A text publication carrying the tiny model (imported by the CLI, built by the module)."""
    package = home / "tiny-model"
    (package / "package").mkdir(parents=True)
    (package / "package" / "package.json").write_text('{"name":"wink-tiny","version":"1.0.0","main":"./model.json"}')
    (package / "package" / "model.json").write_text(TINY_MODEL)
    with tarfile.open(home / "wink-tiny-1.0.0.tgz", "w:gz", format=tarfile.USTAR_FORMAT) as tar:
        for name in ("package/package.json", "package/model.json"):
            tar.add(package / name, arcname=name)
    cli.run("embed", "import", str(home / "wink-tiny-1.0.0.tgz"), "--out", str(home / "model"), "-q")
    (home / "texts.jsonl").write_text('{"id":0,"text":"the cat","kind":"pet"}\n'
                                      '{"id":1,"text":"a don","kind":"title"}\n'
                                      '{"id":2,"text":"The CAT, a cat","kind":null}\n')
    ctx.build_index(home / "texts.jsonl", home / "text-pub", embed_model=home / "model", text_field="text", key="id",
                    source=True, nlist=1)
    return home / "text-pub"
