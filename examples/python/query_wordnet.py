#!/usr/bin/env python3
"""Query the demo's WordNet publication by text, notebook style: the publication carries its word-vector
model, so plain English is embedded where it is read, and a batch of questions is one call.

    scripts/demo                                   # builds build/demo/www/wordnet-text once
    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/query_wordnet.py [PUBLICATION] [TEXT ...]

PUBLICATION is a directory, an http(s) URL (the demo serves it from nginx) or ALIAS:KEY.
"""

import sys

import vigilo

location = sys.argv[1] if len(sys.argv) > 1 else "build/demo/www/wordnet-text"
questions = sys.argv[2:] or ["a large wild cat", "a tool for cutting wood", "a sweet yellow fruit"]

pub = vigilo.open_publication(location)
print("%s: %d meanings, %d dimensions, model %s" % (location, pub.info["ntotal"], pub.info["dimension"],
                                                    pub.info["text_model"]))
# The payload columns the demo's build kept; a publication of your own may have others (info lists them).
columns = [c for c in ("lemmas", "gloss", "text") if c in pub.info["source_columns"]][:2]
found = pub.search(questions, k=3, nprobe=32, columns=columns)
for q, question in enumerate(questions):
    print("\n" + question)
    for rank in range(int(found.counts[q])):
        payload = "  ".join(str(found.payload[c][q][rank]) for c in found.columns)
        print("  %d. %-8s %.4f  %s" % (rank + 1, found.keys[q, rank], found.distances[q, rank], payload))
