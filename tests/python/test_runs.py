"""Run plans through the module answer as the CLI does."""

import json

import pytest

import vigilo
from conftest import DATASET, PROFILE


@pytest.fixture(scope="module")
def run_name(ctx, home):
    ctx.ingest(DATASET, store=str(home / "store-py"), name="geo-runs")
    record = ctx.plan("geo-runs", PROFILE, store=str(home / "store-py"), name="geo-run")
    assert record["outcome"] == "published" and record["name"] == "geo-run"
    return "geo-run"


def test_info_verify_and_shard_chunks_equal_the_cli(ctx, cli, run_name):
    run = ctx.run(run_name)
    assert run.info == cli.record("run", "show", run_name, "--json")
    assert run.verify() == cli.record("run", "verify", run_name, "--json")
    assert run.verify(cases=True) == cli.record("run", "verify", run_name, "--cases", "--json")
    assert ctx.list_runs() == cli.json_lines("run", "list", "--json")
    for shard in run.info["shards"]:
        assert run.shard_chunks(shard["run_shard"]) == cli.json_lines(
            "run", "chunks", run_name, "--shard", str(shard["run_shard"]), "--json")


def test_chunks_equal_the_cli_and_cover_the_dataset(ctx, cli, run_name):
    run = ctx.run(run_name)
    seen = []
    for i in range(len(run)):
        chunk = run.chunk(i)
        lines = cli.run("run", "chunk", run_name, "--index", str(i), "-q").stdout.decode().splitlines()
        assert list(chunk) == [json.loads(line) for line in lines]
        assert chunk.index == i and chunk.info["case_count"] == len(chunk)
        seen.extend(chunk)
    assert sorted(c["ordinal"] if "ordinal" in c else json.dumps(c, sort_keys=True) for c in seen) == sorted(
        c["ordinal"] if "ordinal" in c else json.dumps(c, sort_keys=True) for c in ctx.dataset("geo-runs").cases())


def test_a_profile_as_a_dict_plans_the_same_configuration(ctx, home, run_name):
    with open(PROFILE) as f:
        profile = json.load(f)
    ctx.plan("geo-runs", profile, store=str(home / "store-py"), name="geo-run-dict")
    a, b = ctx.run(run_name).info, ctx.run("geo-run-dict").info
    assert a["profile_hash"] == b["profile_hash"] and a["chunk_count"] == b["chunk_count"]


def test_run_errors(ctx, cli, run_name):
    run = ctx.run(run_name)
    with pytest.raises(vigilo.InvalidArgument) as e:
        run.chunk(len(run))
    assert str(e.value) == cli.error("run", "chunk", run_name, "--index", str(len(run)), "-q")
    with pytest.raises(vigilo.NotFound) as e:
        ctx.run("no-such-run")
    assert str(e.value) == cli.error("run", "show", "no-such-run")
    with pytest.raises(vigilo.InvalidFormat):
        ctx.plan("geo-runs", {"profile_id": "p", "no_such_field": 1}, store="./nowhere")


def test_shard_routes_equal_the_cli(ctx, cli, home, run_name):
    run = ctx.run(run_name)
    moved = run.move_shard(0, "pool-a")
    assert moved["name"] == run_name and moved["route"] == "pool-a" and moved["run_shard"] == 0
    assert run.routes() == cli.json_lines("run", "routes", run_name, "--json")
    assert run.shard_chunks(0) == cli.json_lines("run", "chunks", run_name, "--shard", "0", "--json")
    assert {c["route"] for c in run.shard_chunks(0)} == {"pool-a"}
    with pytest.raises(vigilo.Fenced) as e:
        run.move_shard(0, "pool-b", epoch=moved["epoch"] - 1)
    assert str(e.value) == cli.error("run", "move", run_name, "--shard", "0", "--to", "pool-b", "--epoch",
                                     str(moved["epoch"] - 1))
    again = run.move_shard(0, "pool-b", epoch=moved["epoch"])
    assert again["epoch"] == moved["epoch"] + 1
    with pytest.raises(vigilo.InvalidArgument):  # routes belong to a name
        ctx.run(run.ref, store=str(home / "store-py")).routes()


def test_retiring_names_as_the_cli_does(ctx, cli, home, run_name):
    """A dataset a live run reads is refused with the CLI's message (which renders the setting `force` as its
    flag); a run and a dataset are retired and resolve no more; retiring again is the CLI's already_retired
    record."""
    with pytest.raises(vigilo.InvalidArgument) as e:
        ctx.retire_dataset("geo-runs")
    assert "`force`" in e.value.message
    assert str(e.value).replace("`force`", "--force") == cli.error("dataset", "retire", "geo-runs")
    ctx.plan("geo-runs", PROFILE, store=str(home / "store-py"), name="geo-run-retired")
    retired = ctx.retire_run("geo-run-retired")
    assert retired["outcome"] == "retired" and retired["name"] == "geo-run-retired" and retired["retired_at"]
    with pytest.raises(vigilo.NotFound):
        ctx.run("geo-run-retired")
    assert ctx.retire_run("geo-run-retired") == cli.record("run", "retire", "geo-run-retired", "--json")
    ctx.ingest(DATASET, store=str(home / "store-py"), name="geo-retired")
    first = ctx.retire_dataset("geo-retired")
    assert first["outcome"] == "retired" and first["read_by_runs"] == []
    assert ctx.retire_dataset("geo-retired") == cli.record("dataset", "retire", "geo-retired", "--json")
    assert "geo-retired" not in {d["name"] for d in ctx.list_datasets()}
    with pytest.raises(vigilo.Error) as e:
        ctx.retire_dataset("not a name")
    assert str(e.value) == cli.error("dataset", "retire", "not a name")


def test_run_records_and_chunks_are_the_cli_bytes(ctx, cli, run_name):
    from test_datasets import canonical
    run = ctx.run(run_name)
    assert canonical(run.info) == cli.run("run", "show", run_name, "--json").stdout
    assert canonical(run.verify(cases=True)) == cli.run("run", "verify", run_name, "--cases", "--json").stdout
    assert b"".join(map(canonical, run.shard_chunks(0))) == cli.run("run", "chunks", run_name, "--shard", "0",
                                                                     "--json").stdout
    assert b"".join(map(canonical, run.chunk(0))) == cli.run("run", "chunk", run_name, "--index", "0", "-q").stdout
