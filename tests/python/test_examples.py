"""The examples in examples/python run against real data and say what they should."""

import json
import os
import subprocess
import sys

import pytest

from conftest import DATASET, EXAMPLES, PROFILE


def test_the_worker_writes_one_line_per_case_of_its_shard(ctx, home, environ):
    ctx.ingest(DATASET, store=str(home / "store-py"), name="geo-worker")
    ctx.plan("geo-worker", PROFILE, store=str(home / "store-py"), name="geo-worker-run")
    run = ctx.run("geo-worker-run")
    out = home / "results.jsonl"
    subprocess.run([sys.executable, os.path.join(EXAMPLES, "worker.py"), "geo-worker-run", "0", str(out)],
                   env=environ, check=True, capture_output=True)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    shard = next(s for s in run.info["shards"] if s["run_shard"] == 0)
    assert len(lines) == shard["case_count"]
    assert {line["run_id"] for line in lines} == {run.info["run_id"]}
    expected = [c["case_hash"] for listed in run.shard_chunks(0) for c in run.chunk(listed["chunk_index"])]
    assert [line["case_hash"] for line in lines] == expected


def test_the_text_query_example_prints_the_nearest_texts(environ, text_publication):
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, "query_wordnet.py"), str(text_publication),
                           "a cat"], env=environ, check=True, capture_output=True)
    text = done.stdout.decode()
    assert "3 meanings, 2 dimensions, model npm:wink-tiny@1.0.0" in text
    assert "1. " in text and "cat" in text.split("a cat", 1)[1]


def test_the_suite_runs_over_the_installed_package():
    """CTest installs the package and the CLI into a prefix first (python_install) and points PYTHONPATH there."""
    import vigilo
    prefix = os.environ.get("VIGILO_INSTALLED_PREFIX")
    if not prefix:
        pytest.skip("not run by CTest")
    assert os.path.realpath(vigilo.__file__).startswith(os.path.realpath(prefix) + os.sep)
    assert os.path.realpath(os.environ["VIGILO_BIN"]) == os.path.realpath(os.path.join(prefix, "bin", "vigilo"))
