"""WordNet's 82,115 noun glosses (Debian's wordnet-base, read as scripts/demo reads them) as an evaluation dataset
through the module, from a generator of dicts, against the CLI's ingest of the same cases as JSON Lines: the same
identities, records and case lines, and a run planned over them whose chunks are the CLI's."""

import json
import os

import pytest

from conftest import PROFILE

DATA_NOUN = "/usr/share/wordnet/data.noun"
pytestmark = pytest.mark.skipif(not os.path.exists(DATA_NOUN), reason="wordnet-base is not installed")
IDENTITY = dict(dataset_id="wordnet-noun-glosses", dataset_version="3.0", derive_ids="metadata.synset")


def glosses():
    """One case per noun synset: its first word's meaning, the synset as the id's source."""
    with open(DATA_NOUN, encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("  "):  # the licence
                continue
            head, gloss = line.rstrip("\n").split(" | ", 1)
            fields = head.split(" ")
            definition = gloss.rstrip().split('; "')[0]
            yield {"task_type": "generation", "input": {"prompt": 'What does the noun "%s" mean?' %
                                                                 fields[4].replace("_", " ")},
                   "expected": {"answer": definition},
                   "metadata": {"synset": "wn30-noun-" + fields[0], "lexicographer_file": int(fields[1])}}


@pytest.fixture(scope="module")
def wordnet(ctx, cli, home):
    path = home / "wordnet-nouns.jsonl"
    with open(path, "w", encoding="utf-8") as out:
        for case in glosses():
            out.write(json.dumps(case, ensure_ascii=False) + "\n")
    py = ctx.ingest(glosses(), store=str(home / "store-py"), name="wordnet-py", **IDENTITY)
    cl = cli.record("dataset", "ingest", str(path), "--store", str(home / "store-cli"), "--name", "wordnet-cli",
                    "--dataset-id", IDENTITY["dataset_id"], "--dataset-version", IDENTITY["dataset_version"],
                    "--derive-ids", IDENTITY["derive_ids"], "--json", "-q")
    return py, cl


def test_the_glosses_have_the_cli_identities_and_records(ctx, cli, wordnet):
    py, cl = wordnet
    assert py["case_count"] == cl["case_count"] == 82_115
    for field in ("dataset_hash", "dataset_version_id", "dataset_id"):
        assert py[field] == cl[field]
    ours, theirs = ctx.dataset("wordnet-py").info, cli.record("dataset", "show", "wordnet-cli", "--json")
    # What names the attempt: the name itself, and the object keys (datasets/NAME/attempts/…), which the
    # manifests and index pages hold, so object_bytes differs by the names' lengths.
    differ = {"name", "root", "published_at", "version", "object_bytes"}
    assert {k: v for k, v in ours.items() if k not in differ} == {k: v for k, v in theirs.items() if k not in differ}


def test_the_glosses_read_back_as_the_cli_prints_them(ctx, cli, wordnet):
    lines = cli.run("dataset", "cases", "wordnet-cli", "--from", "41000", "--to", "41500").stdout.decode().splitlines()
    assert list(ctx.dataset("wordnet-py").cases(41_000, 41_500)) == [json.loads(line) for line in lines]
    assert ctx.dataset("wordnet-py").verify()["case_count"] == 82_115


def test_a_run_over_the_glosses_has_the_cli_chunks(ctx, cli, home, wordnet):
    ctx.plan("wordnet-py", PROFILE, store=str(home / "store-py"), name="wordnet-run")
    run = ctx.run("wordnet-run")
    assert run.info == cli.record("run", "show", "wordnet-run", "--json")
    last = len(run) - 1
    for index in (0, last):
        lines = cli.run("run", "chunk", "wordnet-run", "--index", str(index), "-q").stdout.decode().splitlines()
        assert list(run.chunk(index)) == [json.loads(line) for line in lines]
