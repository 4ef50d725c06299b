#!/usr/bin/env python3
"""A worker of one shard of a run: reads the shard's chunks, one verified chunk at a time, and writes one
result line per case (JSON Lines).

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/worker.py RUN SHARD results.jsonl

RUN is a published run name (`vigilo run plan ... --name RUN`); the run's shards are in `vigilo run show RUN`.
`evaluate` is where a harness calls its agent and evaluators; here it only measures the prompt.
"""

import json
import sys

import vigilo


def evaluate(case):
    """One case's result. A real worker runs the agent on case["source"]["input"] and the run's evaluators."""
    prompt = case["source"].get("input", {}).get("prompt", "")
    return {"prompt_chars": len(prompt)}


def main(run_name, shard, out_path):
    run = vigilo.run(run_name)
    run_id = run.info["run_id"]
    written = 0
    with open(out_path, "w", encoding="utf-8") as out:
        for listed in run.shard_chunks(shard):
            chunk = run.chunk(listed["chunk_index"])  # raises vigilo.IntegrityError if its projection is wrong
            for case in chunk:
                line = {"run_id": run_id, "chunk_id": chunk.chunk_id, "case_ordinal": case["case_ordinal"],
                        "case_hash": case["case_hash"], "result": evaluate(case)}
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
                written += 1
    print("shard %d of %s: %d cases" % (shard, run_name, written), file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
