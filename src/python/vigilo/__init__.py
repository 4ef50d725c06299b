"""vigilo from Python: datasets, run chunks and vector publications on the engine.

A thin package over the C++ engine (the extension ``vigilo._vigilo``): every
operation is one engine call, with the GIL released around its I/O and
scoring. docs/python.md has the API and the decisions behind it.

    import vigilo
    ds = vigilo.dataset("demo")                      # a published name (or a reference)
    for case in ds.cases(0, 10): print(case["id"])
    pub = vigilo.open_publication("build/demo/wordnet")
    hits = pub.search("a large cat", k=5, columns=["word"])
"""

import json
import os
import socket
import tempfile
import threading

import numpy as np

from . import _vigilo
from ._errors import (AlreadyExists, Cancelled, DeadlineExceeded, Error, Fenced, IntegrityError, Internal,
                      InvalidArgument, InvalidFormat, IoError, LimitExceeded, NotCanonical, NotFound, OutOfRange,
                      ParseError, Unavailable, Unimplemented)

__all__ = [
    "Context", "Store", "Dataset", "Run", "Chunk", "Publication", "SearchResult", "default_context",
    "open_store", "ingest", "list_datasets", "list_runs", "dataset", "plan", "run", "open_publication",
    "build_index", "publish", "retire_dataset", "retire_run", "cleanup", "Error", "InvalidArgument", "ParseError",
    "InvalidFormat", "NotCanonical", "IntegrityError",
    "LimitExceeded", "OutOfRange", "NotFound", "AlreadyExists", "IoError", "Unavailable", "DeadlineExceeded",
    "Cancelled", "Fenced", "Unimplemented", "Internal",
]


def _spec(store):
    """A store argument: a spec string, a Store, or None (""; the engine decides)."""
    if store is None:
        return ""
    if isinstance(store, Store):
        return store.spec
    return os.fspath(store)


def _budget(**overrides):
    """Budget overrides (the CLI's --max-cases, --max-bytes, --resident-batches, --staging-spool,
    --validation-spool, by their names with '_'): counts as ints, byte sizes as ints or text such as
    "16MiB". The engine parses and validates them, so a bad value is the CLI's error."""
    return {name: str(value) for name, value in overrides.items() if value is not None}


def _target(name_or_ref):
    """A NAME, a reference's JSON text, or a reference as a dict."""
    if isinstance(name_or_ref, dict):
        return json.dumps(name_or_ref, ensure_ascii=False)
    return str(name_or_ref)


class Context:
    """One engine Context: the stores config, the control state, the governors.

    Built from ``environ`` (default: ``os.environ`` now) as the CLI builds
    its own from the process environment, so VIGILO_STORES, VIGILO_CONTROL,
    VIGILO_CACHE and the XDG directories mean what they mean to the CLI.
    ``stores`` is the CLI's ``--stores FILE``; ``control`` overrides the
    control state's locator (a path, or ``memory:`` for a private one).
    """

    def __init__(self, stores=None, control=None, environ=None, host=None, scratch=None):
        env = dict(os.environ if environ is None else environ)
        self._session = _vigilo.Session(env, host if host is not None else socket.gethostname(),
                                        scratch or tempfile.gettempdir(),
                                        None if stores is None else os.fspath(stores),
                                        None if control is None else str(control))

    @property
    def control(self):
        """The control state's locator in force ("" when none can be placed)."""
        return self._session.control

    def open_store(self, spec):
        """A store by the CLI's ``--store SPEC`` rules: a configured alias, else a directory."""
        opened = self._session.open_store(_spec(spec))
        return Store(self, _spec(spec), opened["alias"], opened["display"])

    # ---- datasets ----
    def ingest(self, source, store, name="", replace=False, format=None, dataset_id=None, dataset_version=None,
               derive_ids=None, max_cases=None, max_bytes=None, staging_spool=None, validation_spool=None):
        """Ingest a dataset and publish it under ``name`` (default: its dataset_id).

        ``source`` is a file (a dataset document, or JSON Lines of cases by
        extension or ``format="jsonl"``), a dataset document as a dict, or an
        iterable of case dicts (JSON Lines: ``dataset_id`` needed). The budget
        overrides are the CLI's writer flags (``max_bytes=16 << 20`` or
        ``"16MiB"``). Returns ``dataset ingest --json``'s record: outcome,
        name, version, root, ... Ctrl-C cancels it (``vigilo.Cancelled``; the
        attempt is kept for a rerun to resume, as the CLI keeps it).
        """
        budget = _budget(max_cases=max_cases, max_bytes=max_bytes, staging_spool=staging_spool,
                         validation_spool=validation_spool)
        if isinstance(source, (str, os.PathLike)):
            return self._ingest_file(os.fspath(source), store, name, replace, format, dataset_id, dataset_version,
                                     derive_ids, budget)
        document = isinstance(source, dict)
        fd, path = tempfile.mkstemp(prefix=".vigilo-ingest-", suffix=".json" if document else ".jsonl")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                if document:
                    json.dump(source, out, ensure_ascii=False, allow_nan=False)
                else:
                    for case in source:
                        out.write(json.dumps(case, ensure_ascii=False, allow_nan=False))
                        out.write("\n")
            return self._ingest_file(path, store, name, replace, "json" if document else "jsonl", dataset_id,
                                     dataset_version, derive_ids, budget)
        finally:
            os.unlink(path)

    def _ingest_file(self, path, store, name, replace, format, dataset_id, dataset_version, derive_ids, budget):
        return self._session.ingest(path, _spec(store), name or "", bool(replace), format or "", dataset_id or "",
                                    dataset_version, derive_ids or "", budget)

    def list_datasets(self):
        """``dataset list --json``: every published dataset name, its version, store and root."""
        return self._session.list("datasets")

    def dataset(self, name_or_ref, store=None, resident_batches=None, staging_spool=None, validation_spool=None):
        """A published dataset by name (read where it was written) or by reference (needs ``store``
        unless its storage_alias is configured). The budget overrides are the CLI's reader flags."""
        budget = _budget(resident_batches=resident_batches, staging_spool=staging_spool,
                         validation_spool=validation_spool)
        return Dataset(self, self._session.open_dataset(_target(name_or_ref), _spec(store), budget))

    # ---- runs ----
    def plan(self, dataset, profile, store, name="", replace=False, resident_batches=None, staging_spool=None,
             validation_spool=None):
        """Plan a run of ``profile`` (a file path, a profile dict, or its JSON text) over a published dataset
        and publish it under ``name``. Returns ``run plan --json``'s record, plus ``warning`` when the plan's
        chunks are small (engine::ChunkSizeWarning)."""
        if isinstance(profile, dict):
            profile_file, profile_text = "", json.dumps(profile, ensure_ascii=False)
        elif isinstance(profile, str) and profile.lstrip().startswith("{"):
            profile_file, profile_text = "", profile
        else:
            profile_file, profile_text = os.fspath(profile), ""
        budget = _budget(resident_batches=resident_batches, staging_spool=staging_spool,
                         validation_spool=validation_spool)
        record, warning = self._session.plan(_target(dataset), profile_file, profile_text, _spec(store),
                                             name or "", bool(replace), budget)
        if warning:
            record["warning"] = warning
        return record

    def list_runs(self):
        """``run list --json``."""
        return self._session.list("runs")

    def run(self, name_or_ref, store=None, resident_batches=None, staging_spool=None, validation_spool=None):
        """A published run plan by name or reference; the budget overrides are the CLI's reader flags."""
        budget = _budget(resident_batches=resident_batches, staging_spool=staging_spool,
                         validation_spool=validation_spool)
        return Run(self, self._session.open_run(_target(name_or_ref), _spec(store), budget))

    # ---- publications ----
    def open_publication(self, location, cache=True, resident_max_bytes=0):
        """A vector publication: its directory or manifest.json, an http(s) URL, or ALIAS:KEY.

        resident_max_bytes (an int or the CLI's text, "1GiB"): hold a local publication's objects in memory
        (2 MiB pages) once first read, up to this many bytes, for many queries; 0 reads them in place."""
        location = os.fspath(location)
        if isinstance(resident_max_bytes, bool) or not isinstance(resident_max_bytes, (int, str)):
            raise TypeError("resident_max_bytes: an int or a size such as \"1GiB\"")
        return Publication(self, self._session.open_publication(location, bool(cache), str(resident_max_bytes)))

    def publish(self, source, destination):
        """``index publish SRC DEST --json``: copy a publication (any locator) to a directory or ALIAS:KEY of a
        writable store, every object checked, manifest.json last; a rerun resumes. Ctrl-C cancels it
        (``vigilo.Cancelled``): DEST has no manifest, and a rerun skips what was copied."""
        return self._session.publish(os.fspath(source), os.fspath(destination))

    # ---- names and stores ----
    def retire_dataset(self, name, force=False):
        """``dataset retire NAME [--force] --json``: the name no longer resolves; its history and objects stay.
        Refused (``vigilo.InvalidArgument``) while a live run plan reads it, unless ``force``."""
        return self._session.retire("datasets", name, bool(force))

    def retire_run(self, name):
        """``run retire NAME --json``: the run name no longer resolves and its shards take no routes."""
        return self._session.retire("runs", name, False)

    def cleanup(self, store=None, grace=3600, dry_run=False):
        """``store cleanup [--store SPEC] [--grace] [--dry-run] --json``: delete what unpublished upload
        attempts left (in one store, or every store the ledger has work on), attempts idle past their lease for
        ``grace`` seconds included. Returns the CLI's rows: one per store, or with ``dry_run`` one per attempt
        that would be cleaned (nothing changed). A store that failed has its ``error`` in its row."""
        return self._session.cleanup(_spec(store), int(grace), bool(dry_run))

    def build_index(self, input, out, **options):
        """``index build``: ``out`` is a directory or ALIAS:KEY; options by the CLI's names with '_' for '-'
        (vector_field, key, id_column, metric, encoding, format, nlist, roots, sample, iterations, seed,
        threads, scratch, source, columns, source_row_group_rows, embed_model, text_field,
        skip_unembeddable)."""
        if "columns" in options and isinstance(options["columns"], str):
            options["columns"] = options["columns"].split(",")
        for path in ("embed_model", "scratch"):
            if path in options:
                options[path] = os.fspath(options[path])
        return self._session.build_index(os.fspath(input), os.fspath(out), **options)


class Store:
    """A store a spec names (``open_store``); pass it as ``store=``."""

    def __init__(self, context, spec, alias, display):
        self.context, self.spec, self.alias, self.display = context, spec, alias, display

    def __repr__(self):
        return "vigilo.Store(%r, alias=%r)" % (self.display, self.alias)


_INT32_MAX = 2**31 - 1


def _closing(stream):
    """A generator over an engine stream that stops the stream when it is closed or dropped."""
    try:
        yield from stream
    finally:
        stream.close()


class Dataset:
    """A published dataset: ``info``, ``verify()``, ``len()``, ``cases()``, ``export()``."""

    def __init__(self, context, root):
        self.context, self._root, self._info = context, root, None

    @property
    def ref(self):
        """The dataset manifest's reference (what ``dataset ingest`` prints)."""
        return self._root.ref

    @property
    def info(self):
        """``dataset show --json``'s record (read once)."""
        if self._info is None:
            self._info = self._root.dataset_info()
        return self._info

    def verify(self):
        """``dataset verify``: every object, record and identity; raises on the first failure."""
        return self._root.dataset_verify()

    def __len__(self):
        return self.info["case_count"]

    def cases(self, start=0, stop=None):
        """The stored case records with ordinals in [start, stop) as dicts, lazily: one engine read fetches
        only the batches that hold them, verifies each, and hands the cases over a short queue, so memory
        stays bounded whatever the dataset's size. Closing the iterator stops the read."""
        stop = _INT32_MAX if stop is None else stop
        if 0 <= start and start >= min(stop, len(self)):
            return iter(())  # Python's empty slice (the CLI refuses --from >= --to)
        return _closing(self._root.dataset_cases(start, stop))

    def export(self, path):
        """``dataset export -o PATH``: the exact submitted document (its BLAKE3 is dataset_hash), replacing
        PATH only once the whole export verified."""
        return self._root.dataset_export(os.fspath(path))

    def __repr__(self):
        return "vigilo.Dataset(%r)" % (self._root.ref["key"],)


class Chunk(list):
    """One execution chunk's cases (a list of dicts) with the chunk's ``info`` (index, id, shard, ordinal
    range, profile group)."""

    def __init__(self, info, cases):
        super().__init__(cases)
        self.info = info

    @property
    def index(self):
        return self.info["chunk_index"]

    @property
    def chunk_id(self):
        return self.info["chunk_id"]


class Run:
    """A published run plan: ``info``, ``verify()``, ``shard_chunks()``, ``chunk()``."""

    def __init__(self, context, root):
        self.context, self._root, self._info = context, root, None

    @property
    def ref(self):
        return self._root.ref

    @property
    def info(self):
        """``run show --json``'s record (read once)."""
        if self._info is None:
            self._info = self._root.run_info()
        return self._info

    def __len__(self):
        return self.info["chunk_count"]

    def verify(self, cases=False):
        """``run verify [--cases]``: activation; with ``cases`` every chunk's projection too."""
        return self._root.run_verify(bool(cases))

    def shard_chunks(self, shard):
        """``run chunks --shard N``: the shard's chunks in chunk order; for a named run each with the shard's
        route and epoch."""
        chunks = self._root.run_shard_chunks(int(shard))
        if "name" in self.info:
            route = next((r for r in self._root.run_routes() if r["run_shard"] == shard), None)
            for c in chunks:
                c["route"] = route["route"] if route else "default"
                c["epoch"] = route["epoch"] if route else 0
        return chunks

    def routes(self):
        """``run routes --json``: the route and epoch of each moved shard (the others are on route default,
        epoch 0). Routes belong to a run name: a run opened by reference has none."""
        return self._root.run_routes()

    def move_shard(self, shard, route, epoch=None):
        """``run move --shard N --to ROUTE [--epoch E]``: control metadata only, no object changes. With
        ``epoch`` a compare-and-set: ``vigilo.Fenced`` when another move came first."""
        return self._root.run_move(int(shard), route, epoch)

    def chunk(self, index):
        """``run chunk --index N``: the chunk's cases, returned only after its case projection verified."""
        info, cases = self._root.run_chunk(int(index))
        return Chunk(info, cases)

    def __repr__(self):
        return "vigilo.Run(%r)" % (self._root.ref["key"],)


class SearchResult:
    """The answer to a batch of queries.

    ``keys`` and ``distances`` are (queries, k) arrays, rank by rank; a query
    with fewer than k hits is padded (-1 and +inf; None when keys are not
    integers, in an object array). ``counts`` holds the hits per query and
    ``payload`` maps each payload column to a list per query of the hits'
    values (JSON values as Python values: long ids stay exact ints).
    """

    def __init__(self, key_name, keys, distances, counts, columns, payload):
        self.key_name, self.keys, self.distances, self.counts = key_name, keys, distances, counts
        self.columns = list(columns)
        self.payload = dict(zip(self.columns, payload))

    def __len__(self):
        return len(self.counts)

    def records(self):
        """One dict per hit, as ``index query --json`` prints them: query, rank, the key, _distance, then the
        payload columns."""
        out = []
        for q in range(len(self.counts)):
            for r in range(int(self.counts[q])):
                key = self.keys[q, r]
                row = {"query": q, "rank": r, self.key_name: key.item() if isinstance(key, np.generic) else key,
                       "_distance": float(self.distances[q, r])}
                for c in self.columns:
                    row[c] = self.payload[c][q][r]
                out.append(row)
        return out


class Publication:
    """An open vector publication. Searches may run from several threads at once."""

    def __init__(self, context, handle):
        self.context, self._handle = context, handle
        self.info = handle.info()

    @property
    def locator(self):
        return self._handle.locator

    @property
    def manifest(self):
        """manifest.json, parsed."""
        return json.loads(self._handle.manifest_text)

    def search(self, query=None, k=10, nprobe=16, columns=(), *, vectors=None, text=None, screen=True):
        """Nearest neighbours of a batch of queries in one engine call.

        ``query`` is an array of vectors ((n, dimension), or one vector), a text, or a list of texts (embedded
        by the publication's own model); or say which with ``vectors=`` / ``text=``. ``columns`` are payload
        columns from the source table (a str is split at commas).
        """
        if query is not None:
            if isinstance(query, str) or (isinstance(query, (list, tuple)) and query and
                                          all(isinstance(t, str) for t in query)):
                text = query
            else:
                vectors = query
        if isinstance(text, str):
            text = [text]
        if isinstance(columns, str):
            columns = [c for c in columns.split(",") if c]
        keys, distances, counts, names, payload = self._handle.search(
            vectors, list(text or []), int(k), int(nprobe), list(columns), bool(screen))
        return SearchResult(self.info["key"], keys, distances, counts, names, payload)

    def inspect(self):
        """``index inspect --json``: counts, list-size distribution and bytes per part (the manifest and the
        postings footers are read)."""
        return self._handle.inspect()

    def evaluate(self, queries, ground_truth=None, base=None, k=10, nprobe=(1, 2, 4, 8, 16, 32, 64), batch=1,
                 warmup=100, screen=True, base_format="", base_vector_field="", threads=None):
        """``index eval --json``: recall@k, single-thread QPS and bytes read per query, one record per nprobe.

        ``queries`` is an (n, dimension) array. The exact neighbours are ``ground_truth`` (an (n, >= k) array of
        row ids nearest first, or a .ivecs/.npy/.jsonl file of them, as ``--ground-truth``), or computed by brute
        force over the build's input ``base`` (a vector file, as ``--base``) and cached. Ctrl-C cancels it
        (``vigilo.Cancelled``); nothing is written."""
        if isinstance(ground_truth, os.PathLike):
            ground_truth = os.fspath(ground_truth)
        if isinstance(nprobe, int):
            nprobe = [nprobe]
        return self._handle.evaluate(np.asarray(queries, dtype=np.float32), ground_truth,
                                     "" if base is None else os.fspath(base), base_format, base_vector_field, int(k),
                                     [int(n) for n in nprobe], int(batch), int(warmup), bool(screen), threads)

    def verify(self, level="full", all=False, any_uuid=False):
        """``index verify --level LEVEL``: a dict with ``ok``, ``failures`` (the first only unless ``all``),
        the checks run and not run."""
        return self._handle.verify(level, bool(all), bool(any_uuid))

    def __repr__(self):
        return "vigilo.Publication(%r)" % (self.locator,)


_default = None
_default_lock = threading.Lock()


def default_context():
    """The Context module-level functions use, built from os.environ on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Context()
        return _default


def open_store(spec, stores=None):
    """A store by spec; ``stores`` is a stores config file (as ``--stores``)."""
    context = Context(stores=stores) if stores is not None else default_context()
    return context.open_store(spec)


def _context_of(store):
    return store.context if isinstance(store, Store) else default_context()


def ingest(source, store, **options):
    return _context_of(store).ingest(source, store, **options)


def list_datasets():
    return default_context().list_datasets()


def list_runs():
    return default_context().list_runs()


def dataset(name_or_ref, store=None, **budget):
    return _context_of(store).dataset(name_or_ref, store, **budget)


def plan(dataset, profile, store, **options):
    return _context_of(store).plan(dataset, profile, store, **options)


def run(name_or_ref, store=None, **budget):
    return _context_of(store).run(name_or_ref, store, **budget)


def open_publication(location, cache=True, resident_max_bytes=0):
    return default_context().open_publication(location, cache, resident_max_bytes)


def build_index(input, out, **options):
    return default_context().build_index(input, out, **options)


def publish(source, destination):
    return default_context().publish(source, destination)


def retire_dataset(name, force=False):
    return default_context().retire_dataset(name, force)


def retire_run(name):
    return default_context().retire_run(name)


def cleanup(store=None, grace=3600, dry_run=False):
    return _context_of(store).cleanup(store, grace, dry_run)


for _f in (ingest, list_datasets, list_runs, dataset, plan, run, open_publication, build_index, publish,
           retire_dataset, retire_run, cleanup):
    _f.__doc__ = getattr(Context, _f.__name__).__doc__
