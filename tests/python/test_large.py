"""A million cases: ds.cases() stays within the reader's memory budget, and Ctrl-C stops the long calls over
them (reading the cases, ingesting them) as the CLI's interrupt does."""

import json
import subprocess
import sys
import textwrap

import pytest

import vigilo

MILLION = 1_000_000
CASE = ('{"task_type":"generation","id":"00000000-0000-4000-8000-%012d","input":{"prompt":"q%d"},'
        '"expected":{"answer":"%d"}}\n')
# The seed's reader memory budget (docs/format/case-storage-budgets.md, A4): resident_case_batches verified
# batches (4 by default) of at most the published max_bytes each.
DEFAULT_RESIDENT_BATCHES = 4


@pytest.fixture(scope="module")
def million_lines(home):
    """1,000,000 small cases as JSON Lines (131 MB, about a second to write)."""
    path = home / "million.jsonl"
    with open(path, "w") as out:
        for start in range(0, MILLION, 100_000):
            out.write("".join(CASE % (i, i, i) for i in range(start, start + 100_000)))
    return path


@pytest.fixture(scope="module")
def million(ctx, home, million_lines):
    """The million cases ingested with batches at the seed's byte cap (8 MiB, about 65,000 cases each) instead of
    100 cases: 29 batch objects instead of 10,000 (a 15 s ingest instead of 37 s on the trial machine), and every
    batch the reader holds is as large as the budget lets it be."""
    record = ctx.ingest(million_lines, store=str(home / "store-million"), name="million", dataset_id="million",
                        max_cases=65536)
    assert record["case_count"] == MILLION
    return "million"


def child(script, environ, *args, timeout=120):
    """Runs a Python script in a subprocess with the test's environment; its stdout."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script), *map(str, args)], env=environ,
                          capture_output=True, timeout=timeout)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def test_a_million_cases_stream_within_the_readers_memory_budget(ctx, cli, environ, million):
    """Peak RSS (VmHWM) of a subprocess, against its own baseline with the module imported and the dataset
    opened: iterating all 1,000,000 cases grows it by less than the reader's budget (4 x the published 8 MiB =
    32 MiB), while holding 50,000 of the same cases in a list grows it by more, so the measure can fail."""
    info = ctx.dataset(million).info
    budget_kib = DEFAULT_RESIDENT_BATCHES * info["batch_limits"]["max_bytes"] // 1024
    assert info["batch_count"] < 40 and budget_kib == 32 * 1024
    out = child("""
        import os, vigilo
        def peak_kib():
            with open("/proc/self/status") as status:
                return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
        ds = vigilo.Context(environ=dict(os.environ)).dataset("million")
        len(ds)
        baseline = peak_kib()
        n = 0
        for case in ds.cases():
            assert case["case_ordinal"] == n
            n += 1
        streamed = peak_kib() - baseline
        held = list(ds.cases(0, 50_000))
        print(n, streamed, peak_kib() - baseline)
    """, environ)
    count, streamed_kib, held_kib = map(int, out.split())
    assert count == MILLION
    assert streamed_kib < budget_kib < held_kib, (streamed_kib, budget_kib, held_kib)
    last = cli.run("dataset", "cases", million, "--from", str(MILLION - 2)).stdout.decode().splitlines()
    assert list(ctx.dataset(million).cases(MILLION - 2)) == [json.loads(line) for line in last]


def test_ctrl_c_stops_reading_cases(environ, million):
    """SIGINT while iterating: KeyboardInterrupt in the loop, the engine's read stopped with the iterator, and
    the dataset reads on."""
    out = child("""
        import os, signal, threading, vigilo
        ds = vigilo.Context(environ=dict(os.environ)).dataset("million")
        cases = ds.cases()
        n = 0
        threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
        try:
            for case in cases:
                n += 1
            print("finished")
        except KeyboardInterrupt:
            cases.close()
            print("interrupted", 0 < n < 1_000_000, [c["case_ordinal"] for c in ds.cases(999_998)])
    """, environ)
    assert out.strip() == "interrupted True [999998, 999999]", out


def test_ctrl_c_cancels_an_ingest_and_publishes_nothing(ctx, cli, environ, home, million_lines):
    """SIGINT during ingest: vigilo.Cancelled (a KeyboardInterrupt); the name is not published, and every object
    the attempt wrote before it stopped (none when it stopped while reading its input) is recorded for a rerun
    to resume or store cleanup to delete, as after the CLI's interrupt."""
    store = home / "store-cancelled"
    out = child("""
        import os, signal, sys, threading, vigilo
        ctx = vigilo.Context(environ=dict(os.environ))
        threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
        try:
            ctx.ingest(sys.argv[1], store=sys.argv[2], name="million-cancelled", dataset_id="million",
                       max_cases=65536)
            print("finished")
        except vigilo.Cancelled as e:
            print(isinstance(e, KeyboardInterrupt), e)
    """, environ, million_lines, store)
    assert out.strip() == "True cancelled: interrupted by SIGINT; the attempt is kept for a rerun", out
    with pytest.raises(vigilo.NotFound):
        ctx.dataset("million-cancelled")
    left = [p for p in store.rglob("*") if p.is_file()] if store.exists() else []
    pending = cli.json_lines("store", "cleanup", "--store", str(store), "--grace", "0", "--dry-run", "--json")
    assert {row["name"] for row in pending} <= {"datasets/million-cancelled"}, pending
    assert sum(row["objects"] for row in pending) == len(left), (pending, left)
    assert ctx.cleanup(store, grace=0, dry_run=True) == pending
    with pytest.raises(vigilo.InvalidArgument) as e:
        ctx.cleanup(store, grace=-1)
    assert e.value.path == "grace"
