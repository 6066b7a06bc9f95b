"""twinpage: are two web documents duplicates? From pandas, Arrow and notebooks.

The same Rust code as the ``twinpage`` command, run in this process (the GIL is
released while it works, and it uses every core), so a pair scores the same here
as on the command line. Tables go in as a pandas DataFrame, a pyarrow Table or a
list of dicts; results come back as pandas, or as Arrow when the input was Arrow.

    import twinpage
    model = twinpage.Model.load()              # the shipped model
    scored = model.score(pairs)                # pairs: url_a, url_b, html_a, html_b
    scored[["p_duplicate", "decision"]]

``html_a`` / ``html_b`` (and ``html`` in a docs table) hold a file's path or the
HTML itself. Errors are :class:`twinpage.Error`; a missing file is also a
``FileNotFoundError``, a malformed row or argument also a ``ValueError``; the
message is the command line's (it names the file and line).
"""

from __future__ import annotations

import contextlib
import csv
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence, Union

from . import _native

__all__ = [
    "Error",
    "MissingFileError",
    "InputError",
    "Model",
    "read_pairs",
    "signals",
    "candidates",
    "train",
    "dedupe",
    "run",
]
__version__ = _native.__version__

PAIR_COLUMNS = ("url_a", "url_b", "html_a", "html_b")
PAIR_HTML = ("html_a", "html_b")
SCORE_COLUMNS = (
    "p_duplicate", "p_spread", "confidence", "decision", "decided_by", "core_in_other",
)
RENDER_CHOICES = ("auto", "always", "never")


class Error(Exception):
    """A twinpage command failed; the message is the command line's."""


class MissingFileError(Error, FileNotFoundError):
    """A document, pair file or model named in the input does not exist."""


class InputError(Error, ValueError):
    """A malformed row, column or argument."""


_MISSING = re.compile(r"No such file or directory|cannot (read|open)|does not exist|not found", re.I)
_MALFORMED = re.compile(
    r"line \d+|:\d+:|column|missing|malformed|invalid|not a number|unexpected argument|"
    r"is not|must be|expected",
    re.I,
)


def _error(message: str) -> Error:
    if _MISSING.search(message):
        return MissingFileError(message)
    if _MALFORMED.search(message):
        return InputError(message)
    return Error(message)


Progress = Union[bool, Callable[[str], Any], None]


def run(
    *args: Union[str, os.PathLike],
    capture: bool = False,
    progress: Progress = None,
    tables: Optional[dict] = None,
) -> Optional[str]:
    """Runs ``twinpage ARGS...`` in this process, as the command line would.

    ``twinpage.run("score", "--pairs", "pairs.csv", "--out", "scored.csv")``;
    ``twinpage.run("evaluate", "--pairs", "test.csv", "--json", capture=True)`` returns
    what the command printed on standard output instead of letting it through.
    ``progress``: a callable gets each line the command writes on standard error (its
    stages, counts and, every 15 s of a long stage, how far it is); True sends them to
    ``sys.stderr`` (where a notebook shows them); None leaves them on the process's
    standard error.
    Raises :class:`Error` (or a subclass) with the command's message on failure;
    ``tables`` maps the temporary CSV files written for the caller's tables to their
    names, so a message says ``pairs row 3`` rather than a temporary path and line.
    """
    argv = [os.fspath(a) for a in args]
    try:
        with _stderr_lines_to(progress):
            if not capture:
                _native.run(argv)
                return None
            return _captured(argv)
    except _native.CommandError as e:
        message = str(e)
        for path, name in (tables or {}).items():
            path = re.escape(os.fspath(path))
            message = re.sub(path + r":(\d+)", lambda m: f"{name} row {int(m.group(1)) - 2}", message)
            message = re.sub(path, name, message)
        raise _error(message) from None


@contextlib.contextmanager
def _stderr_lines_to(progress: Progress):
    """While a command runs, file descriptor 2 goes through a pipe whose lines a
    thread hands to ``progress``."""
    if progress is None or progress is False:
        yield
        return
    import sys
    import threading

    sys.stderr.flush()
    saved = os.dup(2)
    if callable(progress):
        sink = progress
    else:
        plain = _writes_to_fd(sys.stderr, 2)
        sink = (lambda line: os.write(saved, (line + "\n").encode())) if plain else (
            lambda line: print(line, file=sys.stderr, flush=True))
    read, write = os.pipe()

    def forward():
        with os.fdopen(read, "rb") as lines:
            for line in lines:
                sink(line.decode("utf-8", errors="replace").rstrip("\n"))

    reader = threading.Thread(target=forward, name="twinpage-progress", daemon=True)
    reader.start()
    os.dup2(write, 2)
    os.close(write)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        # Browsers started by the command held the pipe too; they are gone by now.
        reader.join(timeout=5)


def _writes_to_fd(stream: Any, fd: int) -> bool:
    try:
        return stream.fileno() == fd
    except (AttributeError, OSError, ValueError):
        return False


def _captured(argv: list) -> str:
    """Runs a command with file descriptor 1 sent to a temporary file: the command
    writes there from Rust, below Python's sys.stdout."""
    import sys

    sys.stdout.flush()
    with tempfile.TemporaryFile() as out:
        saved = os.dup(1)
        os.dup2(out.fileno(), 1)
        try:
            _native.run(argv)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        out.seek(0)
        return out.read().decode("utf-8", errors="replace")


# ----------------------------------------------------------------------------
# Tables in and out.


def _to_pandas(table: Any, name: str):
    """A DataFrame from a DataFrame, a pyarrow Table or a list of dicts; whether it was Arrow."""
    import pandas as pd

    if isinstance(table, pd.DataFrame):
        return table, False
    if type(table).__module__.startswith("pyarrow"):
        return table.to_pandas(), True
    if isinstance(table, (list, tuple)):
        if table and not all(isinstance(row, dict) for row in table):
            raise InputError(f"{name}: a list of dicts is expected, one per row")
        return pd.DataFrame(list(table)), False
    raise InputError(
        f"{name}: expected a pandas DataFrame, a pyarrow Table or a list of dicts, "
        f"not {type(table).__name__}"
    )


def _from_pandas(frame, arrow: bool):
    if arrow:
        import pyarrow as pa

        return pa.Table.from_pandas(frame, preserve_index=False)
    return frame


def _looks_like_html(value: str) -> bool:
    return "<" in value or "\n" in value


class _Documents:
    """Writes HTML given inline to files of a temporary folder, once per distinct text."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.written: dict = {}

    def path(self, value: Any, column: str, row: int) -> str:
        if value is None or (isinstance(value, float) and value != value):
            raise InputError(f"row {row}: `{column}` is empty: give a file's path or the HTML")
        if isinstance(value, os.PathLike):
            return os.path.abspath(os.fspath(value))
        if isinstance(value, bytes):
            value = value.decode("utf-8", errors="replace")
        value = str(value)
        if not _looks_like_html(value):
            return os.path.abspath(value)
        if value not in self.written:
            name = self.folder / f"doc-{len(self.written)}.html"
            name.write_text(value, encoding="utf-8")
            self.written[value] = str(name)
        return self.written[value]


def _write_table(frame, path: Path, documents: _Documents, html_columns: Sequence[str]) -> None:
    """The frame as the command line's CSV, HTML columns as paths."""
    out = frame.copy()
    for column in html_columns:
        if column in out.columns:
            out[column] = [
                documents.path(v, column, i + 1) for i, v in enumerate(out[column].tolist())
            ]
    out.to_csv(path, index=False, quoting=csv.QUOTE_MINIMAL)


@contextlib.contextmanager
def _table_file(frame, name: str, html_columns: Sequence[str] = PAIR_HTML):
    """The frame written as the command line's CSV file ``name`` in a temporary
    folder, inline HTML as files beside it; yields the file's path and the
    documents written. The folder goes when the block ends."""
    with tempfile.TemporaryDirectory(prefix="twinpage-") as tmp:
        documents = _Documents(Path(tmp))
        path = Path(tmp) / name
        _write_table(frame, path, documents, html_columns)
        yield path, documents


def _require(frame, columns: Iterable[str], name: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(
            f"{name}: missing column(s) {', '.join(missing)} "
            f"(has {', '.join(map(str, frame.columns)) or 'none'})"
        )


def _render_args(render: str, cache: Optional[Union[str, os.PathLike]]) -> list:
    if render not in RENDER_CHOICES:
        raise InputError(f"render must be one of {', '.join(RENDER_CHOICES)}, not {render!r}")
    args = ["--render", render]
    if cache is not None:
        args += ["--cache", os.fspath(cache)]
    return args


def _threads(threads: Optional[int]) -> list:
    return [] if threads is None else ["--threads", str(int(threads))]


def _read_csv(path: Path):
    import pandas as pd

    return pd.read_csv(path, keep_default_na=False, na_values=[""], dtype_backend="numpy_nullable")


# ----------------------------------------------------------------------------
# The API.


def read_pairs(path: Union[str, os.PathLike]):
    """A pair file (or a docs file) as a DataFrame, its document paths (``html_a``,
    ``html_b``, ``rendered_a``, ``rendered_b``, ``html``, ``rendered``) made absolute
    from the file's folder, as the command line reads them."""
    path = Path(path)
    frame = _read_csv(path)
    base = path.resolve().parent
    for column in ("html_a", "html_b", "rendered_a", "rendered_b", "html", "rendered"):
        if column in frame.columns:
            frame[column] = [_from_folder(v, base) for v in frame[column].tolist()]
    return frame


def _from_folder(value: Any, base: Path) -> Any:
    """A document path read from a file, made absolute from the file's folder."""
    if not isinstance(value, str) or not value or _looks_like_html(value):
        return value
    return str(base / value)


class Model:
    """A trained model: a forest of decision trees that turns a pair's signals into
    a calibrated ``p_duplicate`` and a decision (duplicate, distinct, or review)."""

    def __init__(self, path: Optional[Union[str, os.PathLike]] = None):
        self.path = None if path is None else os.path.abspath(os.fspath(path))
        if self.path is not None and not os.path.isfile(self.path):
            raise MissingFileError(f"no model at {self.path}")

    @classmethod
    def load(cls, path: Optional[Union[str, os.PathLike]] = None) -> "Model":
        """The model at ``path`` (JSON, as ``train`` writes it); None: the shipped
        default (``models/default.json`` in the current folder, else the copy built in)."""
        return cls(path)

    def __repr__(self) -> str:
        return f"twinpage.Model({self.path or 'shipped default'!r})"

    def score(
        self,
        pairs: Any,
        render: str = "auto",
        fetched_model: Optional[Union["Model", str, os.PathLike]] = None,
        cache: Optional[Union[str, os.PathLike]] = None,
        threads: Optional[int] = None,
        progress: Progress = None,
    ):
        """Scores every pair: the input columns plus ``p_duplicate``, ``p_spread``,
        ``confidence``, ``decision``, ``decided_by`` and ``core_in_other`` (how much of
        one side's core content the other holds), as ``twinpage score`` writes them.

        pairs: columns ``url_a``, ``url_b``, ``html_a``, ``html_b`` (a path or the HTML);
            optional ``rendered_a/b``, ``clicks_a/b``, ``inlinks_a/b``, ``query``, ``label``.
        render: ``auto`` renders only the documents of pairs the fetched-only model
            leaves open or that look built by script; ``always`` renders every
            document; ``never`` needs a fetched-only model.
        fetched_model: the first stage of ``auto`` (default: the shipped fetched-only model).
        cache: the render cache folder (default: the command line's).
        progress: a callable given each progress line, or True for ``sys.stderr``.
        """
        frame, arrow = _to_pandas(pairs, "pairs")
        _require(frame, PAIR_COLUMNS, "pairs")
        with _table_file(frame, "pairs.csv") as (asked, _):
            scored = asked.with_name("scored.csv")
            args = ["score", "--pairs", asked, "--out", scored, *_render_args(render, cache)]
            if self.path:
                args += ["--model", self.path]
            if fetched_model is not None:
                path = fetched_model.path if isinstance(fetched_model, Model) else fetched_model
                if path is not None:
                    args += ["--fetched-model", os.path.abspath(os.fspath(path))]
            run(*args, *_threads(threads), progress=progress, tables={asked: "pairs"})
            out = _read_csv(scored)
        result = frame.reset_index(drop=True).copy()
        for column in SCORE_COLUMNS:
            result[column] = out[column].to_numpy()
        return _from_pandas(result, arrow)

    def explain(self, pair: Any, render: bool = True) -> str:
        """The path of one pair through the model's trees, as ``twinpage explain``
        prints it: each signal's value, the threshold it met, the leaf's counts.

        pair: a dict (or a one-row table) with ``url_a``, ``url_b``, ``html_a``, ``html_b``.
        render: use the rendered bodies (a model trained on them needs them).
        """
        if isinstance(pair, dict):
            pair = [pair]
        frame, _ = _to_pandas(pair, "pair")
        _require(frame, PAIR_COLUMNS, "pair")
        if len(frame) != 1:
            raise InputError(f"pair: one pair is explained at a time, not {len(frame)}")
        with _table_file(frame, "pair.csv") as (asked, _):
            args = ["explain", "--pairs", asked, "--row", "1"]
            if self.path:
                args += ["--model", self.path]
            if not render:
                args.append("--no-render")
            return run(*args, capture=True, tables={asked: "pair"})


def signals(
    pairs: Any,
    render: bool = False,
    cache: Optional[Union[str, os.PathLike]] = None,
    threads: Optional[int] = None,
    progress: Progress = None,
):
    """Each pair's signal vector, one column per signal (``twinpage signals``).

    render: also the signals of the rendered bodies (starts Chromium for documents
    not in the render cache); by default only the fetched bodies' signals.
    """
    frame, arrow = _to_pandas(pairs, "pairs")
    _require(frame, PAIR_COLUMNS, "pairs")
    with _table_file(frame, "pairs.csv") as (asked, _):
        out = asked.with_name("signals.csv")
        args = ["signals", "--pairs", asked, "--out", out, *_threads(threads)]
        if not render:
            args.append("--no-render")
        elif cache is not None:
            args += ["--cache", os.fspath(cache)]
        run(*args, progress=progress, tables={asked: "pairs"})
        return _from_pandas(_read_csv(out), arrow)


def candidates(
    docs: Any,
    method: str = "lsh",
    threshold: Optional[float] = None,
    text: str = "core",
    records: bool = False,
    threads: Optional[int] = None,
    progress: Progress = None,
):
    """Candidate pairs of a corpus (``twinpage candidates``): pairs likely to be
    duplicates, found without comparing every pair.

    docs: columns ``url`` and ``html`` (a path or the HTML).
    method: ``lsh`` (MinHash LSH for a Jaccard threshold), ``simhash``, ``minhash``,
        ``combined`` or ``pugh``. threshold: the Jaccard threshold of ``lsh``.
    text: ``core`` (main content), ``visible`` (all visible text) or ``both`` (a pair
        alike by either, as ``dedupe`` finds them).
    records: also pair record pages (products, papers) of two sites by the rare words
        of their names and their identifiers, as ``dedupe`` does: two catalogues' pages
        of one product share little text.
    Returns a pair table (``url_a``, ``url_b``, ``html_a``, ``html_b``, ``method``, …)
    that :meth:`Model.score` takes as it is.
    """
    frame, arrow = _to_pandas(docs, "docs")
    _require(frame, ("url", "html"), "docs")
    with _table_file(frame, "docs.csv", ("html",)) as (listing, documents):
        out = listing.with_name("candidates.csv")
        args = ["candidates", "--docs", listing, "--out", out, "--method", method, "--text", text]
        if threshold is not None:
            args += ["--threshold", str(threshold)]
        if records:
            args.append("--records")
        run(*args, *_threads(threads), progress=progress, tables={listing: "docs"})
        pairs = _read_csv(out)
    # Inline HTML comes back as it was given, not as the temporary file's path.
    given = {path: html for html, path in documents.written.items()}
    for column in ("html_a", "html_b"):
        pairs[column] = [given.get(v, v) for v in pairs[column].tolist()]
    return _from_pandas(pairs, arrow)


def train(
    pairs: Any,
    out: Union[str, os.PathLike],
    render: bool = True,
    threads: Optional[int] = None,
    progress: Progress = None,
    **params: Any,
) -> Model:
    """Trains a model on labelled pairs (a ``label`` column, 1 duplicate / 0 distinct)
    and writes it to ``out``; the model loads in the command line too.

    params: the options of ``twinpage train`` without their dashes, e.g.
    ``trees=100, seed=7, estimator="forest", max_depth=12, precision_target=0.98``,
    ``fit="judged"`` (the model judged on the held-out fifth, where a set of record
    pairs is otherwise fitted on every pair once judged); a flag as ``True``:
    ``every_pair=True``.
    render: train on fetched and rendered bodies (Chromium renders what the cache
    lacks); False: a fetched-only model.
    """
    frame, _ = _to_pandas(pairs, "pairs")
    _require(frame, (*PAIR_COLUMNS, "label"), "pairs")
    out = os.path.abspath(os.fspath(out))
    with _table_file(frame, "pairs.csv") as (asked, _):
        args = ["train", "--pairs", asked, "--out", out, *_threads(threads)]
        if not render:
            args.append("--no-render")
        for name, value in params.items():
            flag = "--" + name.replace("_", "-")
            if value is True:
                args.append(flag)
            elif value is not False and value is not None:
                args += [flag, str(value)]
        run(*args, progress=progress, tables={asked: "pairs"})
    return Model(out)


def dedupe(
    inputs: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]],
    out: Union[str, os.PathLike],
    render: bool = True,
    model: Optional[Union[Model, str, os.PathLike]] = None,
    review_db: Optional[Union[str, os.PathLike]] = None,
    threads: Optional[int] = None,
    progress: Progress = None,
):
    """From a crawl to its duplicates (``twinpage dedupe``): reads WARC, WACZ, JSONL,
    a docs.csv or a folder; finds, scores and clusters the copies; picks the page to
    keep in each cluster. Returns ``out/clusters.csv`` as a table (``cluster``,
    ``size``, ``keep``, ``joined``, ``why``, ``url``, ``source``, ``html``); the run's
    other files stay in ``out``, and a killed run started again goes on where it was.
    """
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    args = ["dedupe", *[os.path.abspath(os.fspath(i)) for i in inputs], "--out", os.fspath(out)]
    if not render:
        args.append("--no-render")
    if model is not None:
        args += ["--model", model.path if isinstance(model, Model) else os.fspath(model)]
    if review_db is not None:
        args += ["--review-db", os.fspath(review_db)]
    run(*args, *_threads(threads), progress=progress)
    return _read_csv(Path(out) / "clusters.csv")


def _cli_help(command: str) -> str:
    """``twinpage COMMAND --help``, for the docstrings."""
    try:
        return run(command, "--help", capture=True) or ""
    except Exception:  # a host without a usable fd 1: docstrings go without it
        return ""


def _add_cli_help() -> None:
    """Each function's docstring ends with its command's ``--help``, so ``help()``
    says what the command line says."""
    for function, command in (
        (Model.score, "score"),
        (Model.explain, "explain"),
        (signals, "signals"),
        (candidates, "candidates"),
        (train, "train"),
        (dedupe, "dedupe"),
    ):
        text = _cli_help(command)
        if text:
            function.__doc__ = (function.__doc__ or "") + (
                f"\n\n    The command line's `twinpage {command} --help`:\n\n"
                + "\n".join("        " + line for line in text.splitlines())
            )


_add_cli_help()
