#!/usr/bin/env python3
"""The shipped models on pairs of real pages that no one built for twinpage.

The pages are the two extraction test suites in ../shared/data/web-pages (trafilatura's
evaluation, 884 pages of about as many sites, and Readability's real pages of 4 KB or
more). Some of them are copies of each other as the web makes them (an agency story on
two news sites, one press release on two, one article in both suites), and many share a
template (blogs of one WordPress.com theme, sites of one publisher). `twinpage
candidates --text both --threshold 0.1` over all of them found the pairs of
lab/real-pages-truth.csv, each labelled by reading both pages.

Runs `twinpage score` (the cascade, rendering what it needs into OUT/cache) on those
pairs and prints each decision beside its label; then lists the candidate pairs of
today's build that the truth file lacks (label them, and add them), and which labelled
copies `dedupe` would find as candidates (`--text both` at its default threshold).

Two more sets of the same pages, each judged by the cascade and by the fetched-only
model alone (`--no-render`, as `score`, `dedupe` and Spark judge with `--no-render`):

- pages of one site or platform: every pair of pages on one registered domain (blogs of
  WordPress.com, Blogspot and hypotheses.org, pages saved from the Wayback Machine,
  sites of one publisher) or of one site in Readability's suite (`nytimes-1` to `-5`),
  distinct unless the truth file says otherwise: templates, sidebars and widgets shared,
  articles not;
- reader views: each Readability page against the article Readability.js made of it
  (`expected.html`, with the page's title from `expected-metadata.json`), written as a
  page of its own, as a reading app or a browser's reader mode would show it: duplicates
  that no generator of twinpage made;
- apostrophes swapped: each page that writes apostrophes inside its words (five or
  more) against itself with each written the other way (`’` for `'` and back), as a
  site that turns quotes into typographer's quotes (WordPress) or straightens them
  writes its copy;
- pages served again: each page with a session id in its first three links, as a
  server writes it for another visitor, at another address: the same text from other
  bytes (generated duplicates always change a page; this changes none of its text);
- pages without their soft hyphens: each page that sets soft hyphens (`&shy;`) in its
  long words, five or more, against itself without them, as a copy of its text carries
  it (German public sites' publishing system sets one in every long word);
- trafilatura's views, when the Python running this has trafilatura (`pip install
  trafilatura lxml_html_clean`): each page of both suites against the article and title
  trafilatura extracts of it, written the same way. Where its extractor and twinpage's
  take different parts of a page (a whole forum thread against one reply), the two
  cores differ while each page holds the other's text;
- minified pages, when the Python running this has minify-html (`pip install
  minify-html`): each page against itself as that minifier writes it (scripts and
  styles left as they are), as a CDN or a build step serves a page again: whitespace
  between elements taken out, quotes and optional closing tags dropped. Where the
  whitespace it takes out stood between inline elements, words of the page are joined.

Needs ../shared/data and `cargo build --release`; about 5 minutes the first time (the
cascade renders most pages served again: their texts match from other bytes), 1 minute
once OUT/cache holds the renders; 2 minutes more with trafilatura's views, and 3 more
(1 with the cache) with the minified pages.
"""
import argparse
import csv
import html
import itertools
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from urllib.parse import urlsplit

try:  # optional: the third set of reader views
    import trafilatura
    import trafilatura.metadata
    import trafilatura.utils
except ImportError:
    trafilatura = None

try:  # optional: the set of minified pages
    import minify_html
except ImportError:
    minify_html = None

HERE = os.path.dirname(os.path.abspath(__file__))
PAGES = os.path.join(HERE, "..", "..", "shared", "data", "web-pages")
MIN_BYTES = 4096  # Readability's fixtures below this are lorem ipsum, as training-data says
READABILITY_HOST = "readability.example"  # its pages have no URL: each is given one here
SECOND_LEVEL = {"ac", "co", "com", "edu", "gov", "net", "org"}  # co.uk, com.br: a domain is a label more
TYPOGRAPHERS_APOSTROPHE = {"\u2019", "&rsquo;", "&#8217;", "&#x2019;"}
WORD_APOSTROPHE = re.compile(r"(?<=\w)('|&#0?39;|&apos;|\u2019|&rsquo;|&#8217;|&#x2019;)(?=\w)")
MARKUP_OR_TEXT = re.compile(r"(?is)<(script|style)\b.*?</\1\s*>|<!--.*?-->|<[^>]*>|(?P<text>[^<]+)")
SESSION_LINK = re.compile(r'(<a\s[^>]*href="[^"?#]*)"')  # a link's address without a query
SOFT_HYPHEN = re.compile(r"\u00ad|&shy;|&#173;|&#xad;", re.IGNORECASE)
READER_VIEW = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{title}</title></head>
<body><h1>{title}</h1>
{article}
</body></html>
"""


def pages():
    """URL -> file of every page of both suites."""
    found, files = {}, set()
    suite = os.path.join(PAGES, "trafilatura-eval")
    for url, entry in json.load(open(os.path.join(suite, "evaldata.json"))).items():
        path = os.path.join(suite, "eval", entry["file"])
        if os.path.exists(path) and path not in files:
            found[url] = path
            files.add(path)
    suite = os.path.join(PAGES, "readability")
    for name in sorted(os.listdir(suite)):
        path = os.path.join(suite, name, "source.html")
        if os.path.exists(path) and os.path.getsize(path) >= MIN_BYTES:
            found[f"https://{READABILITY_HOST}/{name}"] = path
    return found


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def main(out="target/real-pages", twinpage="target/release/twinpage"):
    for path, what in [(PAGES, "../shared/data/web-pages"), (twinpage, "cargo build --release")]:
        if not os.path.exists(path):
            sys.exit(f"{path} missing: this needs {what}")
    os.makedirs(out, exist_ok=True)
    files = pages()
    docs = os.path.join(out, "docs.csv")
    with open(docs, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["url", "html"])
        w.writerows(files.items())
    truth = list(csv.DictReader(open(os.path.join(HERE, "real-pages-truth.csv"), encoding="utf-8")))
    labelled = {frozenset((t["url_a"], t["url_b"])): t for t in truth}
    cascade = ["--cache", os.path.join(out, "cache")]
    rows = [(t["url_a"], t["url_b"], t["label"], t["why"]) for t in truth]
    report(rows, judge(twinpage, os.path.join(out, "pairs.csv"), rows, files, cascade), every=True)
    candidate_pairs(twinpage, out, docs, labelled)
    fetched_only = ["--no-render", "--model", os.path.join(HERE, "..", "models", "fetched-only.json")]
    for name, rows in more_sets(out, files, labelled):
        for how, extra in [("the cascade", cascade), ("fetched-only", fetched_only)]:
            print(f"\n{name}, {how}:")
            path = os.path.join(out, f"{name}.{how.split()[-1]}.csv")
            report(rows, judge(twinpage, path, rows, files, extra), every=False)


def candidate_pairs(twinpage, out, docs, labelled):
    """Prints the candidate pairs the truth file lacks, and how many of its copies
    `dedupe`'s candidates hold."""
    for name, extra in [("wide", ["--threshold", "0.1"]), ("dedupe", [])]:
        path = os.path.join(out, f"candidates-{name}.csv")
        run(twinpage, "candidates", "--docs", docs, "--text", "both", "--no-render", "--out", path, *extra)
        found = {frozenset((r["url_a"], r["url_b"])) for r in csv.DictReader(open(path, encoding="utf-8"))}
        if name == "wide":
            for pair in found - labelled.keys():
                print("unlabelled candidate pair:", " vs ".join(sorted(pair)))
        else:
            the_webs = [k for k, t in labelled.items() if t["label"] == "1"]
            print(f"copies found as dedupe's candidates: {sum(k in found for k in the_webs)} of {len(the_webs)}")


def more_sets(out, files, labelled):
    """The sets beyond the truth file, by name: pages of one site, and each page against
    a copy made of it (the copies' files added to `files`)."""
    sets = [("one-site", one_site_pairs(files, labelled))]
    made_copies = [
        ("reader-views", readability_view),
        ("without-soft-hyphens", without_soft_hyphens),
        ("apostrophes-swapped", apostrophes_swapped),
        ("session-ids", with_session_ids),
    ]
    optional = [
        (trafilatura, "trafilatura-views", trafilatura_view, "trafilatura lxml_html_clean"),
        (minify_html, "minified", minified, "minify-html"),
    ]
    for module, name, copy_of, packages in optional:
        if module:
            made_copies.append((name, copy_of))
        else:
            print(f"{name} skipped: run with a Python that has `pip install {packages}`")
    pages_only = dict(files)
    for name, copy_of in made_copies:
        rows, made = copies(out, pages_only, name, copy_of)
        files.update(made)
        sets.append((name, rows))
    return sets


def judge(twinpage, path, rows, files, extra):
    """Scores (url_a, url_b, label, why) rows with `twinpage score`; the scored rows."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["url_a", "url_b", "html_a", "html_b", "label"])
        w.writerows([a, b, files[a], files[b], label] for a, b, label, _ in rows)
    scored = path[: -len(".csv")] + ".scored.csv"
    run(twinpage, "score", "--pairs", path, "--out", scored, *extra)
    return list(csv.DictReader(open(scored, encoding="utf-8")))


def site(url):
    """The site a page belongs to: its registered domain (one label more under `co.uk`,
    `com.br` and the like), or for Readability's pages the name without its number."""
    parts = urlsplit(url)
    if parts.hostname == READABILITY_HOST:
        return re.sub(r"-\d+$", "", parts.path.strip("/"))
    labels = (parts.hostname or "").split(".")
    n = 3 if len(labels) > 2 and labels[-2] in SECOND_LEVEL else 2
    return ".".join(labels[-n:])


def one_site_pairs(files, labelled):
    """Every pair of pages of one site, distinct unless the truth file says otherwise."""
    by_site = defaultdict(list)
    for url in files:
        by_site[site(url)].append(url)
    rows = []
    for name, urls in sorted(by_site.items()):
        if not name:  # a page without a URL belongs to no site
            continue
        for a, b in itertools.combinations(urls, 2):
            known = labelled.get(frozenset((a, b)))
            rows.append((a, b, known["label"] if known else "0", name))
    return rows


def reader_view(title, article):
    """A reader view as a page of its own: the title, and the article under it."""
    return READER_VIEW.format(title=html.escape(title), article=article)


def readability_view(url, path):
    """The article Readability.js gave of one of its suite's pages, under its title."""
    if urlsplit(url).hostname != READABILITY_HOST:
        return None
    suite = os.path.dirname(path)
    meta = json.load(open(os.path.join(suite, "expected-metadata.json"), encoding="utf-8"))
    article = open(os.path.join(suite, "expected.html"), encoding="utf-8").read()
    return reader_view(meta.get("title") or "", article)


def trafilatura_view(url, path):
    """The article trafilatura extracts of a page, under its title (None when it finds
    under 200 characters)."""
    page = trafilatura.utils.load_html(open(path, "rb").read())
    article = trafilatura.extract(page, output_format="html", include_comments=False)
    if not article or len(article) < 200:
        return None
    meta = trafilatura.metadata.extract_metadata(page)
    return reader_view(meta.title if meta and meta.title else "", article)


def without_soft_hyphens(url, path):
    """A page that sets soft hyphens in its long words (five or more), without them:
    its text as a copy that took the words and not the hyphenation hints carries it."""
    page = utf8_page(path)
    if page is None or len(SOFT_HYPHEN.findall(page)) < 5:
        return None
    return SOFT_HYPHEN.sub("", page)


def apostrophes_swapped(url, path):
    """A page that writes apostrophes inside its words (five or more), with each written
    the other way in its text (`’` for `'`, `'` for `’`), as a site that turns quotes
    into typographer's quotes (WordPress does as it shows a post) or one that
    straightens them writes its copy; scripts, styles and attributes left as they are."""
    page = utf8_page(path)
    if page is None:
        return None
    texts = (m.group("text") for m in MARKUP_OR_TEXT.finditer(page) if m.group("text"))
    if sum(len(WORD_APOSTROPHE.findall(text)) for text in texts) < 5:
        return None
    swap = lambda m: "'" if m.group(1) in TYPOGRAPHERS_APOSTROPHE else "\u2019"
    return MARKUP_OR_TEXT.sub(
        lambda m: WORD_APOSTROPHE.sub(swap, m.group(0)) if m.group("text") else m.group(0), page
    )


def with_session_ids(url, path):
    """A page served again with a session id in its first three links that have no
    query: byte for byte the page otherwise, as a server writes it for another visitor."""
    page = utf8_page(path)
    if page is None:
        return None
    copy, links = SESSION_LINK.subn(r'\1?sid=8f3a9c2e"', page, count=3)
    return copy if links else None


def minified(url, path):
    """A page as minify-html writes it, its scripts and styles left as they are."""
    page = utf8_page(path)
    if page is None:
        return None
    return minify_html.minify(page, minify_js=False, minify_css=False)


def utf8_page(path):
    """A page's text when it is written in UTF-8, which the copies are written in, so
    that a copy changes nothing else; None for a page in another charset."""
    try:
        return open(path, "rb").read().decode("utf-8")
    except UnicodeDecodeError:
        return None


def copies(out, pages, name, copy_of):
    """Each page against its copy (`copy_of(url, path)`: the copy's HTML, or None),
    written into OUT/NAME: the pairs, and the copies' files by URL."""
    folder = os.path.abspath(os.path.join(out, name))
    os.makedirs(folder, exist_ok=True)
    rows, made = [], {}
    for number, (url, path) in enumerate(pages.items()):
        copy = copy_of(url, path)
        if copy is None:
            continue
        copy_url = f"https://{name}.example/{number}"
        made[copy_url] = os.path.join(folder, f"{number}.html")
        with open(made[copy_url], "w", encoding="utf-8") as f:
            f.write(copy)
        rows.append((url, copy_url, "1", urlsplit(url).hostname or url))
    return rows, made


def report(rows, scored, every, shown=10):
    """Each decision beside its label (`every`), or the first `shown` not right; then the
    counts."""
    marks = Counter()
    for (_, _, label, why), r in zip(rows, scored):
        decision = r["decision"]
        if decision == "review":
            mark = "review"
        elif (decision == "duplicate") == (label == "1"):
            mark = "right"
        else:
            mark = "WRONG"
        marks[mark] += 1
        if every or (mark != "right" and marks["review"] + marks["WRONG"] <= shown):
            print(f"{mark:6} label {label} {decision:9} p {r['p_duplicate']} by {r['decided_by']:8} {why}"
                  + ("" if every else f": {r['url_a']} vs {r['url_b']}"))
    print(f"{len(rows)} pairs: {marks['right']} decided right, {marks['WRONG']} wrong, {marks['review']} to review")


if __name__ == "__main__":
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("out", nargs="?", default="target/real-pages", help="folder for pair files, copies, renders")
    args.add_argument("twinpage", nargs="?", default="target/release/twinpage", help="the binary to judge")
    main(**vars(args.parse_args()))
