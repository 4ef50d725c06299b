"""Datasets through the module answer as the CLI does for the same inputs."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

import vigilo
from conftest import DATASET

# The fields of a publication record that depend on the name and the attempt (the root's key is under
# datasets/NAME/attempts/ID/), not on the content.
ATTEMPT_FIELDS = {"root", "name", "attempt", "outcome", "version", "objects_written", "bytes_written", "objects_replayed",
                  "resumed", "cleanup_deleted", "verified_bytes"}


@pytest.fixture(scope="module")
def published(ctx, cli, home):
    py = ctx.ingest(DATASET, store=str(home / "store-py"), name="geo-py")
    cl = cli.record("dataset", "ingest", DATASET, "--store", str(home / "store-cli"), "--name", "geo-cli", "--json",
                    "-q")
    return py, cl


def test_ingest_gives_the_cli_identities(published):
    py, cl = published
    assert py["outcome"] == "published" and py["name"] == "geo-py"
    strip = lambda r: {k: v for k, v in r.items() if k not in ATTEMPT_FIELDS}
    assert strip(py) == strip(cl)  # dataset_hash, dataset_version_id, case_count, input_bytes
    assert py["root"]["key"].startswith("datasets/geo-py/attempts/")


def test_ingest_again_is_unchanged(ctx, home, published):
    again = ctx.ingest(DATASET, store=str(home / "store-py"), name="geo-py")
    assert again["outcome"] == "unchanged" and again["root"] == published[0]["root"]


def test_list_info_and_verify_equal_the_cli(ctx, cli, published):
    assert ctx.list_datasets() == cli.json_lines("dataset", "list", "--json")
    ds = ctx.dataset("geo-py")
    assert ds.info == cli.record("dataset", "show", "geo-py", "--json")
    assert ds.verify() == cli.record("dataset", "verify", "geo-py", "--json")
    assert ds.ref == published[0]["root"]


def test_cases_equal_the_cli_lines(ctx, cli, published):
    ds = ctx.dataset("geo-py")
    lines = cli.run("dataset", "cases", "geo-py").stdout.decode().splitlines()
    assert len(ds) == len(lines) == 2
    assert list(ds.cases()) == [json.loads(line) for line in lines]
    assert list(ds.cases(1, 2)) == [json.loads(line) for line in lines[1:2]]
    assert list(ds.cases(1, 1)) == []


def test_export_bytes_equal_the_cli(ctx, cli, home, published):
    ds = ctx.dataset("geo-py")
    summary = ds.export(home / "py-export.json")
    cli.run("dataset", "export", "geo-py", "-o", str(home / "cli-export.json"))
    ours, theirs = (home / "py-export.json").read_bytes(), (home / "cli-export.json").read_bytes()
    assert ours == theirs and summary["bytes_written"] == len(ours)
    assert summary["dataset_hash"] == ds.info["dataset_hash"]


def test_a_reference_reads_with_a_store(ctx, home, published):
    ref = published[0]["root"]
    ds = ctx.dataset(ref, store=ctx.open_store(str(home / "store-py")))
    assert len(ds) == ctx.dataset("geo-py").info["case_count"]
    assert "name" not in ds.info  # a reference is no publication record


def test_ingest_of_case_dicts_equals_the_cli_on_their_lines(ctx, cli, home):
    cases = [{"task_type": "generation", "id": "00000000-0000-4000-8000-00000000000%d" % i,
              "input": {"prompt": "q%d ü" % i}, "expected": {"answer": "a%d" % i}} for i in range(5)]
    path = home / "cases.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    py = ctx.ingest(iter(cases), store=str(home / "store-py"), name="lines-py", dataset_id="lines")
    cl = cli.record("dataset", "ingest", str(path), "--dataset-id", "lines", "--store", str(home / "store-cli"),
                    "--name", "lines-cli", "--json", "-q")
    assert py["dataset_hash"] == cl["dataset_hash"] and py["dataset_version_id"] == cl["dataset_version_id"]
    assert py["case_count"] == 5
    assert list(ctx.dataset("lines-py").cases()) == [json.loads(line) for line in cli.run(
        "dataset", "cases", "lines-cli").stdout.decode().splitlines()]


def test_errors_are_the_codes_classes_with_the_cli_messages(ctx, cli, home):
    with pytest.raises(vigilo.NotFound) as e:
        ctx.dataset("no-such-dataset")
    assert e.value.code == "not_found"
    assert str(e.value) == cli.error("dataset", "show", "no-such-dataset")
    bad = home / "bad.json"
    bad.write_text('{"dataset_id": "x", "cases": [}')
    with pytest.raises(vigilo.ParseError) as e:
        ctx.ingest(bad, store=str(home / "store-py"))
    assert e.value.offset is not None and e.value.message
    assert str(e.value) == cli.error("dataset", "ingest", str(bad), "--store", str(home / "store-cli"), "-q")
    with pytest.raises(vigilo.InvalidArgument):
        ctx.ingest(DATASET, store=str(home / "store-py"), dataset_id="not-for-a-document")
    with pytest.raises(vigilo.Error):
        ctx.ingest(DATASET, store=str(home / "store-py"), name="not a name")


@pytest.fixture(scope="module")
def large(ctx, home):
    """20,000 cases of 1.5 KB (about 30 MB of canonical lines)."""
    path = home / "large.jsonl"
    with open(path, "w") as out:
        for i in range(20_000):
            out.write('{"task_type":"generation","id":"00000000-0000-4000-8000-%012d","input":{"prompt":'
                      '"question %d %s"},"expected":{"answer":"%d"}}\n' % (i, i, "x" * 1500, i))
    ctx.ingest(path, store=str(home / "store-py"), name="large", dataset_id="large")
    return "large"


def test_iterating_a_large_dataset_holds_little(large, environ):
    """The cases iterate in a subprocess whose peak RSS does not grow by a fraction of them; the same cases
    held in a list grow it by more than the bound (so the measurement can tell)."""
    script = textwrap.dedent("""
        import os, resource, vigilo
        peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        ds = vigilo.Context(environ=dict(os.environ)).dataset("large")
        next(ds.cases(0, 1))
        before = peak()
        n = sum(1 for _ in ds.cases())
        streamed = peak() - before
        held = list(ds.cases())
        print(n, streamed, peak() - before)
    """)
    done = subprocess.run([sys.executable, "-c", script], env=environ, capture_output=True, check=True)
    count, streamed_kib, held_kib = map(int, done.stdout.split())
    assert count == 20_000
    bound_kib = 16 * 1024
    assert streamed_kib < bound_kib < held_kib, (streamed_kib, held_kib)


def test_iterators_interleave_and_stop_when_closed(ctx, large):
    ds = ctx.dataset(large)
    a, b = ds.cases(100, 5_000), ds.cases(100, 5_000)
    for x, y in zip(a, b):
        assert x == y
    first = ds.cases()
    head = [next(first) for _ in range(3)]
    first.close()  # stops the engine's read; the dataset stays usable
    assert [c["case_ordinal"] for c in head] == [0, 1, 2]
    assert ds.verify()["case_count"] == 20_000
    assert [c["case_ordinal"] for c in ds.cases(19_998)] == [19_998, 19_999]
    with pytest.raises(vigilo.InvalidArgument):
        next(ds.cases(-1, 3))


def test_budget_overrides_apply_and_bad_values_have_the_cli_messages(ctx, cli, home, published):
    """The CLI's budget flags as keywords: a writer's batch caps shape what is stored (the same batches as the
    CLI's flags), a reader's override is taken, and a bad value is InvalidArgument naming the keyword with the
    message the CLI prints after the flag."""
    py = ctx.ingest(DATASET, store=str(home / "store-py"), name="geo-small-batches", max_cases=1, max_bytes="64KiB")
    cl = cli.record("dataset", "ingest", DATASET, "--store", str(home / "store-cli"), "--name", "geo-small-cli",
                    "--max-cases", "1", "--max-bytes", "64KiB", "--json", "-q")
    small = ctx.dataset("geo-small-batches", resident_batches=1, staging_spool="8MiB")
    assert small.info["batch_limits"] == {"max_cases": 1, "max_bytes": 65536}
    assert small.info["batch_count"] == len(small) == 2
    assert py["objects_written"] == cl["objects_written"] and py["dataset_hash"] == cl["dataset_hash"]
    assert list(small.cases()) == list(ctx.dataset("geo-py").cases())
    bad = [({"resident_batches": 17}, ["--resident-batches", "17"]),
           ({"staging_spool": "1KiB"}, ["--staging-spool", "1KiB"]),
           ({"validation_spool": "12parsecs"}, ["--validation-spool", "12parsecs"]),
           ({"resident_batches": "two"}, ["--resident-batches", "two"])]
    for keywords, flags in bad:
        with pytest.raises(vigilo.InvalidArgument) as e:
            ctx.dataset("geo-py", **keywords)
        flag, keyword = flags[0], next(iter(keywords))
        assert e.value.path == keyword
        assert cli.error("dataset", "show", "geo-py", *flags) == "invalid_argument: %s: %s" % (flag, e.value.message)
    with pytest.raises(vigilo.InvalidArgument) as e:
        ctx.ingest(DATASET, store=str(home / "store-py"), max_bytes=100)
    assert cli.error("dataset", "ingest", DATASET, "--store", str(home / "store-cli"), "--max-bytes", "100",
                     "-q") == "invalid_argument: --max-bytes: " + e.value.message
    with pytest.raises(TypeError):  # a writer's cap is no reader's keyword
        ctx.dataset("geo-py", max_cases=5)


def canonical(value):
    """A record as the CLI's --json prints it: canonical JSON (sorted keys, no spaces, UTF-8), one line."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def test_records_and_cases_are_the_cli_bytes(ctx, cli, published):
    """Where the CLI prints JSON, the module's values written back canonically are its bytes exactly."""
    ds = ctx.dataset("geo-py")
    assert canonical(ds.info) == cli.run("dataset", "show", "geo-py", "--json").stdout
    assert canonical(ds.verify()) == cli.run("dataset", "verify", "geo-py", "--json").stdout
    assert b"".join(map(canonical, ctx.list_datasets())) == cli.run("dataset", "list", "--json").stdout
    assert b"".join(map(canonical, ds.cases())) == cli.run("dataset", "cases", "geo-py").stdout
