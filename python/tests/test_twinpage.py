"""The Python package against the command line, on the shipped data.

Run by .ci/run after `pip install ./python` into a venv; the command line is the
release binary (TWINPAGE_BIN, default target/release/twinpage).
"""

import csv
import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import twinpage

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "training-data" / "web"
BIN = Path(os.environ.get("TWINPAGE_BIN", ROOT / "target" / "release" / "twinpage"))
FETCHED_ONLY = ROOT / "models" / "fetched-only.json"


def cli(*args, cwd=None):
    assert BIN.is_file(), f"no twinpage binary at {BIN}: cargo build --release"
    done = subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done


def web_pairs(n):
    """The first n pairs of the web test split, paths made absolute (stored renders too)."""
    frame = pd.read_csv(WEB / "test.csv", keep_default_na=False).head(n)
    for column in ("html_a", "html_b", "rendered_a", "rendered_b"):
        frame[column] = [str(WEB / v) if v else "" for v in frame[column]]
    return frame


def cli_scores(frame, tmp_path, *args):
    pairs, out = tmp_path / "cli-pairs.csv", tmp_path / "cli-scored.csv"
    frame.to_csv(pairs, index=False)
    cli("score", "--pairs", pairs, "--out", out, *args)
    return pd.read_csv(out, keep_default_na=False)


def page(title, body):
    return f"<!doctype html><html><head><title>{title}</title></head><body>{body}</body></html>"


ARTICLE = " ".join(
    f"Paragraph {i}: the river council voted on the new bridge, its cost and its route "
    f"through the old town, after a long debate about trams number {i}."
    for i in range(30)
)
OTHER = " ".join(
    f"Step {i}: whisk the eggs with sugar, fold in flour and bake the sponge cake for "
    f"twenty minutes until golden, variant {i}."
    for i in range(30)
)


def test_scores_equal_the_command_lines_on_the_same_pairs(tmp_path):
    frame = web_pairs(120)
    ours = twinpage.Model.load().score(frame)
    theirs = cli_scores(frame, tmp_path)
    assert list(ours.columns[: len(frame.columns)]) == list(frame.columns)
    assert len(ours) == len(theirs) == 120
    assert (ours["p_duplicate"] - theirs["p_duplicate"]).abs().max() < 1e-9
    assert list(ours["decision"]) == list(theirs["decision"])
    assert list(ours["decided_by"]) == list(theirs["decided_by"])
    assert set(ours["decision"]) == {"duplicate", "distinct", "review"} or len(set(ours["decision"])) >= 2


def test_a_fetched_only_model_from_a_path_scores_as_the_command_line(tmp_path):
    frame = web_pairs(80)
    ours = twinpage.Model.load(FETCHED_ONLY).score(frame, render="never")
    theirs = cli_scores(frame, tmp_path, "--model", FETCHED_ONLY, "--render", "never")
    assert (ours["p_duplicate"] - theirs["p_duplicate"]).abs().max() < 1e-9


def test_each_input_type_gives_the_same_scores():
    frame = web_pairs(40)
    model = twinpage.Model.load(FETCHED_ONLY)
    from_pandas = model.score(frame, render="never")
    from_arrow = model.score(pa.Table.from_pandas(frame), render="never")
    from_dicts = model.score(frame.to_dict("records"), render="never")
    assert isinstance(from_arrow, pa.Table)
    assert from_arrow.column("p_duplicate").to_pylist() == list(from_pandas["p_duplicate"])
    assert list(from_dicts["p_duplicate"]) == list(from_pandas["p_duplicate"])


def test_html_given_inline_scores_as_the_same_html_in_files(tmp_path):
    a, b, c = page("Bridge vote", ARTICLE), page("Bridge vote | City news", "<nav>Home</nav>" + ARTICLE), page("Cake", OTHER)
    for name, html in (("a", a), ("b", b), ("c", c)):
        (tmp_path / f"{name}.html").write_text(html)
    inline = [
        {"url_a": "https://x.test/a", "url_b": "https://y.test/b", "html_a": a, "html_b": b},
        {"url_a": "https://x.test/a", "url_b": "https://x.test/c", "html_a": a, "html_b": c},
    ]
    files = [
        dict(row, html_a=str(tmp_path / "a.html"), html_b=str(tmp_path / f"{n}.html"))
        for row, n in zip(inline, "bc")
    ]
    model = twinpage.Model.load(FETCHED_ONLY)
    from_inline = model.score(inline, render="never")
    from_files = model.score(files, render="never")
    assert list(from_inline["p_duplicate"]) == list(from_files["p_duplicate"])
    assert from_inline["p_duplicate"][0] > 0.5 > from_inline["p_duplicate"][1]
    # the caller's HTML comes back as given, not as a temporary path
    assert from_inline["html_a"][0] == a


def test_a_missing_document_raises_file_not_found_naming_it_and_its_row():
    rows = web_pairs(3).to_dict("records")
    rows[1]["html_b"] = "/no/such/page.html"
    with pytest.raises(FileNotFoundError) as raised:
        twinpage.Model.load(FETCHED_ONLY).score(rows, render="never")
    assert isinstance(raised.value, twinpage.Error)
    message = str(raised.value)
    assert "/no/such/page.html" in message and "pairs row 1" in message


def test_malformed_pairs_and_arguments_raise_value_errors(tmp_path):
    model = twinpage.Model.load(FETCHED_ONLY)
    with pytest.raises(ValueError, match="missing column.*html_b"):
        model.score([{"url_a": "a", "url_b": "b", "html_a": "<p>x</p>"}])
    with pytest.raises(ValueError, match="render must be one of"):
        model.score(web_pairs(2), render="sometimes")
    with pytest.raises(ValueError, match="DataFrame"):
        model.score("pairs.csv")
    with pytest.raises(ValueError, match="empty"):
        model.score([{"url_a": "a", "url_b": "b", "html_a": "<p>x</p>", "html_b": None}])
    with pytest.raises(FileNotFoundError):
        twinpage.Model.load(tmp_path / "no-model.json")
    # a command line error (a rendered model with render="never") keeps its message
    with pytest.raises(twinpage.Error, match="no-render|render"):
        twinpage.Model.load().score(web_pairs(2), render="never")


def test_rendering_from_python_shows_what_a_script_writes():
    # Both articles are written by a script: the fetched bodies hold no text.
    def scripted(title, text):
        return page(title, f'<div id="app"></div><script>document.getElementById("app").innerHTML = {json.dumps("<article><p>" + text + "</p></article>")};</script>')

    pairs = [{
        "url_a": "https://a.test/story", "url_b": "https://b.test/story",
        "html_a": scripted("Bridge vote", ARTICLE), "html_b": scripted("Bridge vote - B", ARTICLE),
    }]
    fetched = twinpage.signals(pairs)
    rendered = twinpage.signals(pairs, render=True)
    assert len(rendered.columns) > len(fetched.columns)
    scored = twinpage.Model.load().score(pairs, render="always")
    assert scored["p_duplicate"][0] > 0.5 and scored["decision"][0] != "distinct"


def test_a_model_trained_in_python_loads_in_the_command_line_and_back(tmp_path):
    train = pd.read_csv(ROOT / "training-data" / "er" / "train.csv", keep_default_na=False).head(400)
    base = ROOT / "training-data" / "er"
    for column in ("html_a", "html_b"):
        train[column] = [str(base / v) for v in train[column]]
    model = twinpage.train(train, tmp_path / "m.json", render=False, trees=8, seed=3, fit="judged")
    assert Path(model.path).is_file()
    # A flag given as True: the model written is fitted on every pair once judged.
    every = twinpage.train(train, tmp_path / "every.json", render=False, trees=8, seed=3, every_pair=True)
    fitted = lambda m: json.loads(Path(m.path).read_text())["training"]["fitted_on_every_pair"]
    assert fitted(every) and not fitted(model)
    frame = web_pairs(30)
    ours = model.score(frame, render="never")
    theirs = cli_scores(frame, tmp_path, "--model", model.path, "--render", "never")
    assert (ours["p_duplicate"] - theirs["p_duplicate"]).abs().max() < 1e-9
    # and a model the command line trained, loaded in Python
    cli_pairs = tmp_path / "train.csv"
    train.to_csv(cli_pairs, index=False)
    cli("train", "--pairs", cli_pairs, "--out", tmp_path / "cli.json", "--no-render", "--trees", "8", "--seed", "3", "--fit", "judged")
    again = twinpage.Model.load(tmp_path / "cli.json").score(frame, render="never")
    assert list(again["p_duplicate"]) == list(ours["p_duplicate"])


def test_candidates_find_the_copy_and_give_its_html_back():
    docs = [
        {"url": "https://x.test/a", "html": page("Bridge vote", ARTICLE)},
        {"url": "https://y.test/b", "html": page("Bridge vote | News", "<nav>Home</nav>" + ARTICLE)},
        {"url": "https://x.test/c", "html": page("Cake", OTHER)},
    ]
    found = twinpage.candidates(docs)
    assert {tuple(sorted(p)) for p in zip(found["url_a"], found["url_b"])} == {("https://x.test/a", "https://y.test/b")}
    assert set(found["html_a"]) | set(found["html_b"]) <= {d["html"] for d in docs}


def test_candidates_pair_two_shops_records_of_one_product():
    def shop(name, fields, description):
        rows = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in fields.items())
        return page(name, f"<h1>{name}</h1><table>{rows}</table><p>{description}</p>")

    docs = [
        {"url": "https://rivershop.test/dp/1", "html": shop(
            "Sony Cyber-shot DSC-W120 7.2MP Digital Camera (Silver)", {"Brand": "Sony", "Price": "149.00"},
            "Compact camera with a 4x optical zoom lens, face detection and a 2.5 inch screen.")},
        {"url": "https://pricefinder.test/p/2", "html": shop(
            "sony dscw120 cybershot silver", {"Manufacturer": "SONY"},
            "Slim point and shoot: Carl Zeiss lens, Super SteadyShot, smile shutter.")},
        {"url": "https://pricefinder.test/p/3", "html": shop(
            "weber q 320 gas grill", {"Manufacturer": "Weber"},
            "Cast iron cooking grates, porcelain enamelled lid, electronic ignition.")},
    ]
    pair = ("https://pricefinder.test/p/2", "https://rivershop.test/dp/1")
    by_text = twinpage.candidates(docs, text="both")
    assert pair not in {tuple(sorted(p)) for p in zip(by_text["url_a"], by_text["url_b"])}
    found = twinpage.candidates(docs, text="both", records=True)
    assert {tuple(sorted(p)) for p in zip(found["url_a"], found["url_b"])} == {pair}


def test_dedupe_clusters_a_jsonl_crawl(tmp_path):
    crawl = tmp_path / "crawl.jsonl"
    with open(crawl, "w") as f:
        for url, html in (
            ("https://x.test/a", page("Bridge vote", ARTICLE)),
            ("http://x.test/a?utm_source=feed", page("Bridge vote", ARTICLE + " Share this.")),
            ("https://x.test/c", page("Cake", OTHER)),
        ):
            f.write(json.dumps({"url": url, "html": html}) + "\n")
    clusters = twinpage.dedupe(crawl, tmp_path / "run")
    assert len(clusters) == 3
    by_url = dict(zip(clusters["url"], clusters["cluster"]))
    assert by_url["https://x.test/a"] == by_url["http://x.test/a?utm_source=feed"] != by_url["https://x.test/c"]
    kept = clusters[clusters["keep"] == 1]["url"].tolist()
    assert "https://x.test/a" in kept and "http://x.test/a?utm_source=feed" not in kept
    assert (tmp_path / "run" / "pairs.csv").is_file()


def test_the_readme_example_scores_the_shipped_examples():
    pairs = twinpage.read_pairs(ROOT / "examples" / "pairs.csv")
    scored = twinpage.Model.load().score(pairs)
    assert len(scored) == len(pd.read_csv(ROOT / "examples" / "pairs.csv"))
    labelled = scored[scored["label"].notna()]
    agree = (labelled["decision"] == labelled["label"].map({1: "duplicate", 0: "distinct"})).mean()
    assert agree > 0.6


def test_explain_prints_the_pairs_path_through_the_trees():
    pair = web_pairs(1).to_dict("records")[0]
    text = twinpage.Model.load(FETCHED_ONLY).explain(pair, render=False)
    theirs = cli("explain", "--pairs", WEB / "test.csv", "--row", "1", "--model", FETCHED_ONLY, "--no-render").stdout
    assert text.strip() and text.splitlines()[1:] == theirs.splitlines()[1:]


def test_run_captures_what_a_command_prints():
    printed = twinpage.run("evaluate", "--pairs", WEB / "test.csv", "--model", FETCHED_ONLY, "--no-render", "--json", capture=True)
    report = json.loads(printed)
    assert report and isinstance(report, dict)
    with pytest.raises(twinpage.Error, match="unexpected argument"):
        twinpage.run("score", "--no-such-option")


def test_progress_lines_reach_a_callback_and_the_error_still_raises(capsys):
    before = os.fstat(2)
    lines = []
    twinpage.Model.load().score(web_pairs(20), progress=lines.append)
    assert any("--render auto" in line for line in lines), lines
    seen = []
    with pytest.raises(FileNotFoundError):
        twinpage.Model.load(FETCHED_ONLY).score(
            [{"url_a": "a", "url_b": "b", "html_a": "/no/such.html", "html_b": "<p>x</p>"}],
            render="never", progress=seen.append)
    # standard error is the process's own again
    after = os.fstat(2)
    assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)
    # True: the lines go to sys.stderr, where a notebook shows them
    twinpage.Model.load().score(web_pairs(5), progress=True)
    assert "--render auto" in capsys.readouterr().err


def test_help_says_what_the_command_lines_help_says():
    assert "--fetched-model" in twinpage.Model.score.__doc__
    assert "--threshold" in twinpage.candidates.__doc__
    printed = twinpage.run("score", "--help", capture=True)
    assert printed == cli("score", "--help").stdout
