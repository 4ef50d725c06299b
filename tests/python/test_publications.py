"""Vector publications through the module answer as the CLI does: build, search (vectors and text), verify."""

import json
import shutil
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import vigilo



def write_fvecs(path, vectors):
    vectors = np.asarray(vectors, dtype=np.float32)
    rows = np.empty((len(vectors), vectors.shape[1] + 1), dtype=np.float32)
    rows[:, 0] = np.array([vectors.shape[1]], dtype=np.int32).view(np.float32)[0]
    rows[:, 1:] = vectors
    rows.tofile(path)


@pytest.fixture(scope="module")
def data(home):
    rng = np.random.default_rng(7)
    base = rng.standard_normal((3000, 16)).astype(np.float32)
    queries = rng.standard_normal((12, 16)).astype(np.float32)
    write_fvecs(home / "base.fvecs", base)
    write_fvecs(home / "queries.fvecs", queries)
    return base, queries


@pytest.fixture(scope="module")
def built(ctx, cli, home, data):
    options = ["--nlist", "16", "--seed", "3", "--threads", "1", "--metric", "l2_squared", "--source"]
    cli.run("index", "build", str(home / "base.fvecs"), "-o", str(home / "pub-cli"), "-q", *options)
    record = ctx.build_index(home / "base.fvecs", home / "pub-py", nlist=16, seed=3, threads=1, metric="l2_squared",
                             source=True)
    return record


def test_build_makes_the_cli_bytes(built, home):
    for name in ("manifest.json",):
        assert (home / "pub-py" / name).read_bytes() == (home / "pub-cli" / name).read_bytes()
    assert built["ntotal"] == 3000 and built["nlist"] == 16


def test_search_equals_the_cli_query(ctx, cli, home, built):
    pub = ctx.open_publication(home / "pub-py")
    assert pub.info["dimension"] == 16 and pub.info["key"] == "_row"
    found = pub.search(np.fromfile(home / "queries.fvecs", dtype=np.float32).reshape(12, 17)[:, 1:], k=5, nprobe=4,
                       columns=["vector"])
    rows = cli.json_lines("index", "query", str(home / "pub-cli"), "--queries", str(home / "queries.fvecs"), "-k",
                          "5", "--nprobe", "4", "--columns", "vector", "--json")
    assert found.keys.dtype == np.int64 and found.keys.shape == (12, 5) and found.distances.dtype == np.float32
    ours = found.records()
    assert [(r["query"], r["rank"], r["_row"]) for r in ours] == [(r["query"], r["rank"], r["_row"]) for r in rows]
    # The CLI prints the shortest text of each float32; it reads back as the same float.
    assert [np.float32(r["_distance"]) for r in ours] == [np.float32(r["_distance"]) for r in rows]
    assert [r["vector"] for r in ours] == [r["vector"] for r in rows]


def test_batched_search_equals_one_at_a_time_and_threads(ctx, home, data, built):
    _, queries = data
    pub = ctx.open_publication(home / "pub-py")
    batch = pub.search(queries, k=7, nprobe=3)
    for q in range(len(queries)):
        one = pub.search(queries[q], k=7, nprobe=3)
        assert (one.keys[0] == batch.keys[q]).all() and (one.distances[0] == batch.distances[q]).all()
    answers = [None] * 4

    def worker(i):
        answers[i] = pub.search(queries, k=7, nprobe=3)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a in answers:
        assert (a.keys == batch.keys).all() and (a.distances == batch.distances).all()


def test_resident_objects_answer_the_same(ctx, home, data, built):
    _, queries = data
    mapped = ctx.open_publication(home / "pub-py").search(queries, k=7, nprobe=5)
    for budget in (1 << 30, "64MiB", 100):  # every object held; the first few; none fits
        held = ctx.open_publication(home / "pub-py", resident_max_bytes=budget).search(queries, k=7, nprobe=5)
        assert (held.keys == mapped.keys).all() and (held.distances == mapped.distances).all()
    for bad in (-1, "lots", 1.5, True):
        with pytest.raises((vigilo.InvalidArgument, TypeError), match="resident_max_bytes"):
            ctx.open_publication(home / "pub-py", resident_max_bytes=bad)


def test_short_answers_are_padded(ctx, home, data, built):
    pub = ctx.open_publication(home / "pub-py")
    found = pub.search(data[1][:2], k=3000 + 5, nprobe=16)
    assert list(found.counts) == [3000, 3000]
    assert (found.keys[:, 3000:] == -1).all() and np.isinf(found.distances[:, 3000:]).all()


def test_verify_levels_and_a_tampered_copy(ctx, cli, home, built):
    pub = ctx.open_publication(home / "pub-py")
    for level in ("manifest", "quick", "full"):
        outcome = pub.verify(level)
        assert outcome["ok"] and outcome["level"] == level and outcome["failures"] == []
    shutil.copytree(home / "pub-py", home / "pub-tampered")
    postings = sorted((home / "pub-tampered").rglob("*.parquet"))[0]
    raw = bytearray(postings.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    postings.write_bytes(bytes(raw))
    tampered = ctx.open_publication(home / "pub-tampered").verify("full")
    assert not tampered["ok"] and tampered["failures"]
    assert cli.run("index", "verify", str(home / "pub-tampered"), check=False).returncode != 0
    with pytest.raises(vigilo.InvalidArgument):
        pub.verify("deep")


def test_publication_errors(ctx, cli, home, built):
    with pytest.raises(vigilo.NotFound) as e:
        ctx.open_publication(home / "no-such-publication")
    assert str(e.value) == cli.error("index", "inspect", str(home / "no-such-publication"))
    pub = ctx.open_publication(home / "pub-py")
    with pytest.raises(vigilo.InvalidArgument) as e:
        pub.search(np.zeros((1, 16), dtype=np.float32), k=1, columns=["_row"])
    assert e.value.path == "columns"
    with pytest.raises(vigilo.Error):
        pub.search(np.zeros((1, 5), dtype=np.float32), k=1)
    with pytest.raises(vigilo.AlreadyExists):
        ctx.build_index(home / "base.fvecs", home / "pub-py", nlist=16, threads=1)


def test_text_search_equals_the_cli(ctx, cli, text_publication):
    pub = ctx.open_publication(text_publication)
    assert pub.info["text_model"] == "npm:wink-tiny@1.0.0"
    found = pub.search(["a cat", "the don"], k=3, columns="kind,text")
    rows = cli.json_lines("index", "query", str(text_publication), "--text", "a cat", "--text", "the don", "-k", "3",
                          "--columns", "kind,text", "--json")
    ours = found.records()
    for r in ours + rows:
        r["_distance"] = np.float32(r["_distance"])
    assert ours == rows
    assert pub.search("a cat", k=3).keys.tolist()[0] == found.keys.tolist()[0]


def test_ctrl_c_cancels_a_build(home, environ, data):
    """SIGINT during build_index: vigilo.Cancelled (a KeyboardInterrupt), and nothing is left."""
    rng = np.random.default_rng(1)
    write_fvecs(home / "big.fvecs", rng.standard_normal((200_000, 64)).astype(np.float32))
    script = textwrap.dedent("""
        import os, signal, sys, threading, vigilo
        ctx = vigilo.Context(environ=dict(os.environ))
        threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        try:
            ctx.build_index(sys.argv[1], sys.argv[2], nlist=1024, iterations=50, threads=1)
            print("finished")
        except vigilo.Cancelled as e:
            print("cancelled", isinstance(e, KeyboardInterrupt), e.code, e.message)
    """)
    out = home / "big-pub"
    done = subprocess.run([sys.executable, "-c", script, str(home / "big.fvecs"), str(out)], env=environ,
                          capture_output=True, timeout=60)
    text = done.stdout.decode()
    assert text.startswith("cancelled True cancelled interrupted by SIGINT"), (text, done.stderr.decode())
    assert not out.exists() or not any(out.iterdir())


def test_ctrl_c_stops_a_long_search(home, environ, built):
    """SIGINT during one search call of 300,000 queries (about 13 s whole): KeyboardInterrupt once the slice
    of queries being answered is done, and the publication answers on. A search writes nothing, so there is
    nothing to clean up."""
    script = textwrap.dedent("""
        import os, signal, sys, threading
        import numpy as np
        import vigilo
        pub = vigilo.Context(environ=dict(os.environ)).open_publication(sys.argv[1])
        queries = np.random.default_rng(5).standard_normal((300_000, 16)).astype(np.float32)
        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
        try:
            pub.search(queries, k=10, nprobe=16)
            print("finished")
        except KeyboardInterrupt as e:
            again = pub.search(queries[:3], k=10, nprobe=16)
            print("interrupted", type(e).__name__, again.keys.shape)
    """)
    done = subprocess.run([sys.executable, "-c", script, str(home / "pub-py")], env=environ, capture_output=True,
                          timeout=120)
    assert done.stdout.decode().strip() == "interrupted KeyboardInterrupt (3, 10)", done.stderr.decode()


def test_inspect_equals_the_cli(ctx, cli, home, built, text_publication):
    from test_datasets import canonical
    for path in (home / "pub-py", text_publication):
        assert canonical(ctx.open_publication(path).inspect()) == cli.run("index", "inspect", str(path),
                                                                          "--json").stdout


def test_publish_copies_as_the_cli_and_resumes(ctx, cli, home, built):
    ours = ctx.publish(home / "pub-py", home / "published-py")
    theirs = cli.record("index", "publish", str(home / "pub-py"), str(home / "published-cli"), "--json", "-q")
    assert ours["outcome"] == theirs["outcome"] == "published" and ours["copied"] == ours["objects"]
    assert {k: v for k, v in ours.items() if k != "manifest"} == {k: v for k, v in theirs.items() if k != "manifest"}
    assert ours["manifest"] == str(home / "published-py" / "manifest.json")
    assert (home / "published-py" / "manifest.json").read_bytes() == (home / "pub-py" / "manifest.json").read_bytes()
    again = ctx.publish(home / "pub-py", home / "published-py")
    assert again["outcome"] == "unchanged" and again["copied"] == 0
    assert ctx.open_publication(home / "published-py").verify()["ok"]
    with pytest.raises(vigilo.InvalidArgument) as e:
        ctx.publish(home / "pub-py", "http://127.0.0.1:9/pub")
    assert str(e.value) == cli.error("index", "publish", str(home / "pub-py"), "http://127.0.0.1:9/pub", "-q")


def test_a_catalog_name_opens_the_bound_publication(ctx, cli, home, data, built):
    """catalog:SOURCE/INDEX (bound here by the CLI, in the control state the module shares) is a locator like
    any other: the same answers as the directory it names."""
    cli.run("catalog", "bind", "pytest", "vectors", str(home / "pub-py"))
    by_name = ctx.open_publication("catalog:pytest/vectors")
    assert by_name.info == ctx.open_publication(home / "pub-py").info
    found = by_name.search(data[1], k=5, nprobe=4)
    direct = ctx.open_publication(home / "pub-py").search(data[1], k=5, nprobe=4)
    assert (found.keys == direct.keys).all() and (found.distances == direct.distances).all()
    with pytest.raises(vigilo.NotFound) as e:
        ctx.open_publication("catalog:pytest/no-such-index")
    assert str(e.value) == cli.error("index", "inspect", "catalog:pytest/no-such-index")


def test_evaluate_measures_what_the_cli_measures(ctx, cli, home, data, built):
    """Recall, list recall, bytes and requests per query equal `index eval --json`'s for the same queries and
    nprobes (QPS and seconds are timings), the postings held in memory by both (the CLI's default); exact
    neighbours given as an array give the recall of those computed from the build's input."""
    base, queries = data
    pub = ctx.open_publication(home / "pub-py", resident_max_bytes="1GiB")
    ours = pub.evaluate(queries, base=home / "base.fvecs", k=5, nprobe=[1, 4], warmup=0, threads=1)
    theirs = cli.json_lines("index", "eval", str(home / "pub-py"), "--queries", str(home / "queries.fvecs"), "--base",
                            str(home / "base.fvecs"), "-k", "5", "--nprobe", "1,4", "--warmup", "0", "--threads", "1",
                            "-q", "--json")
    timings = {"qps", "seconds", "cpu_seconds"}
    assert [{k: v for k, v in r.items() if k not in timings} for r in ours] == [
        {k: v for k, v in r.items() if k not in timings} for r in theirs]
    assert [r["nprobe"] for r in ours] == [1, 4] and ours[1]["recall"] >= ours[0]["recall"]
    exact = np.argsort(((queries[:, None, :] - base[None, :, :]) ** 2).sum(axis=2), axis=1)[:, :5]
    given = pub.evaluate(queries, ground_truth=exact, k=5, nprobe=[1, 4], warmup=0)
    assert [r["recall"] for r in given] == [r["recall"] for r in ours]
    with pytest.raises(vigilo.InvalidArgument) as e:
        pub.evaluate(queries, k=5)
    assert e.value.path == "ground_truth"
