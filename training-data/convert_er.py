#!/usr/bin/env python3
"""Turn human-labelled entity-matching benchmarks into duplicate/not-duplicate page pairs.

Input (see ../shared/data/README.md):
  <source>/er-magellan/{Structured,Dirty,Textual}/<Dataset>/{train,valid}.txt
  <source>/wdc/<category>/{train,valid}.txt.{small,medium,large,xlarge}
One pair per line: ``left<TAB>right<TAB>label``; a record is ``COL attr VAL value ...``.

Output (<out>/, default training-data/er/):
  train.csv, valid.csv   url_a,url_b,html_a,html_b,label,kind,dataset,split
  docs/<sha256[:12]>.html one small product/citation/restaurant page per distinct record
  README.md, LICENSE

Everything is deterministic for a given --seed and source tree: run it twice and the
output is byte-identical.  Python 3.11 standard library only.

    python3 training-data/convert_er.py --seed 7 --source ../shared/data --out training-data/er

`--layout bare` writes the same records as another site might (no chrome, the benchmark's
attribute names as `name: value` lines in an order drawn from each record); `--layout
renamed` does the same under other names for the attributes (OTHER_NAMES: how BibTeX,
Dublin Core, schema.org and shops name them); `--layout across` writes those names as
a table's header row over one row of values: to judge that reading a record does not
lean on one way of writing it (lab/er-benchmark.py --layout).
"""

from __future__ import annotations

import argparse
import collections
import csv
import gzip
import hashlib
import html
import io
import math
import os
import random
import re
import shutil
import sys
import unicodedata

# ---------------------------------------------------------------------------
# Knobs (all documented in the generated README)

TRAIN_TOTAL = 6000          # pairs aimed for across all datasets, train split
VALID_TOTAL = 2000          # same, valid split
MIN_POS_RATE = 0.10         # positive floor applied when a source has fewer positives
BUDGET_BYTES = 5 * 1024 * 1024   # apparent size of <out>/ above which pages are gzipped
BLOCK = 4096                # filesystem block, used only to *report* the on-disk estimate
README_ESTIMATE = 16_000    # bytes reserved for README.md when fitting the budget
LICENSE_ESTIMATE = 12_000   # bytes reserved for LICENSE
DIRENT_ESTIMATE = 48        # bytes a file adds to its directory's apparent size (ext4)

FAMILIES = [("Structured", "er-structured"), ("Dirty", "er-dirty"), ("Textual", "er-textual")]
WDC_SIZES = ["small", "medium", "large", "xlarge"]   # preference order for wdc files

# Attributes dropped because they leak the label.  Fodors-Zagats' `class` is the id of
# the matched-entity cluster: equal on both sides for every positive, different for
# every negative in the source.
LEAKY_ATTRS = {"Fodors-Zagats": {"class"}}

TITLE_ATTRS = ["title", "name", "Song_Name", "Beer_Name"]

ATTR_LABELS = {
    "title": "Title", "name": "Name", "authors": "Authors", "venue": "Venue", "year": "Year",
    "manufacturer": "Manufacturer", "price": "Price", "category": "Category", "brand": "Brand",
    "modelno": "Model", "description": "Description",
    "Song_Name": "Song", "Artist_Name": "Artist", "Album_Name": "Album", "Genre": "Genre",
    "Price": "Price", "CopyRight": "Copyright", "Time": "Length", "Released": "Released",
    "Beer_Name": "Beer", "Brew_Factory_Name": "Brewery", "Style": "Style", "ABV": "ABV",
    "addr": "Address", "city": "City", "phone": "Phone", "type": "Cuisine",
    "details": "Listing",
}

# One fictional site per original source.  `.example` hosts only (RFC 2606).
# url: format string with {slug} {num} {hex} {asin}.
SITES = {
    "amazon": dict(name="Rivershop", host="www.rivershop.example", url="/{slug}/dp/{asin}",
                   layout="table", foot="Help"),
    "google": dict(name="Pricefinder", host="www.pricefinder.example", url="/product/{slug}/{num}",
                   layout="table", foot="Compare prices"),
    "walmart": dict(name="ValueMart", host="www.valuemart.example", url="/ip/{slug}/{num}",
                    layout="table", foot="Everyday low prices"),
    "itunes": dict(name="Tunestore", host="music.tunestore.example", url="/us/song/{slug}/{num}",
                   layout="dl", foot="Terms"),
    "amazon_music": dict(name="Rivershop Music", host="www.rivershop.example", url="/{slug}/dp/{asin}",
                         layout="table", foot="Help"),
    "abt": dict(name="Abtronics", host="www.abtronics.example", url="/{slug}/{num}.html",
                layout="table", foot="Since 1936"),
    "buy": dict(name="BuyDepot", host="www.buydepot.example", url="/site/{slug}/{num}.p",
                layout="table", foot="Price match"),
    "dblp": dict(name="BibIndex", host="bibindex.example", url="/rec/{slug}-{hex}",
                 layout="dl", foot="Open data"),
    "acm": dict(name="CompLib Digital Library", host="dl.complib.example", url="/doi/10.1145/{num}/{slug}",
                layout="dl", foot="Terms"),
    "scholar": dict(name="CiteFinder", host="scholar.citefinder.example", url="/citation/{slug}?id={hex}",
                    layout="dl", foot="About"),
    "beeradvocate": dict(name="Beer Forum", host="www.beerforum.example", url="/beer/profile/{num}/{slug}/",
                         layout="table", foot="Respect beer"),
    "ratebeer": dict(name="BeerRatings", host="www.beerratings.example", url="/beer/{slug}/{num}/",
                     layout="dl", foot="Community"),
    "fodors": dict(name="Travel Guides", host="www.travelguides.example", url="/restaurants/{slug}-{num}/",
                   layout="dl", foot="Travel tips"),
    "zagat": dict(name="Dining Survey", host="www.diningsurvey.example", url="/r/{slug}-{num}",
                  layout="table", foot="Reviews"),
    "left": dict(name="Source A", host="a.example", url="/item/{slug}/{num}", layout="table", foot=""),
    "right": dict(name="Source B", host="b.example", url="/item/{slug}/{num}", layout="table", foot=""),
}

# Left/right sources per magellan dataset (same sites for Structured and Dirty versions).
DATASET_SITES = {
    "Amazon-Google": ("amazon", "google"),
    "Beer": ("beeradvocate", "ratebeer"),
    "DBLP-ACM": ("dblp", "acm"),
    "DBLP-GoogleScholar": ("dblp", "scholar"),
    "Fodors-Zagats": ("fodors", "zagat"),
    "Walmart-Amazon": ("walmart", "amazon"),
    "iTunes-Amazon": ("itunes", "amazon_music"),
    "Abt-Buy": ("abt", "buy"),
}

# WDC offers come from many different shops in many languages: each record gets one of
# these (language-neutral) shops, picked by a hash of the record text, never by side or label.
WDC_SHOPS = [
    dict(name="Northgate", host="www.northgate.example", url="/product/{slug}-{num}", layout="table", foot=""),
    dict(name="Kamera Nord", host="www.kameranord.example", url="/p/{num}/{slug}", layout="dl", foot=""),
    dict(name="Mercado Uno", host="www.mercadouno.example", url="/{slug}-{num}/p", layout="table", foot=""),
    dict(name="Horizon", host="www.horizon-shop.example", url="/{slug}-{num}.html", layout="dl", foot=""),
    dict(name="TechWarehouse", host="shop.techwarehouse.example", url="/shop/{slug}/{hex}", layout="table", foot=""),
    dict(name="Zeitwerk", host="www.zeitwerk.example", url="/artikel/{num}/{slug}", layout="dl", foot=""),
    dict(name="Sportzone", host="www.sportzone.example", url="/products/{slug}?variant={num}", layout="table", foot=""),
    dict(name="Gallery Direct", host="www.gallerydirect.example", url="/item/{hex}/{slug}", layout="table", foot=""),
]


# ---------------------------------------------------------------------------
# Parsing and cleaning

COL_RE = re.compile(r"(?:^|\s)COL (\S+) VAL(?= |$)")
LANG_RE = re.compile(r'"@([A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*)')
CTRL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def parse_record(raw: str) -> list[tuple[str, str]]:
    """`COL a VAL x COL b VAL y` -> [(a, 'x'), (b, 'y')] (values not yet cleaned)."""
    ms = list(COL_RE.finditer(raw))
    out = []
    for i, m in enumerate(ms):
        end = ms[i + 1].start() if i + 1 < len(ms) else len(raw)
        out.append((m.group(1), raw[m.end():end]))
    return out


MOJIBAKE_RE = re.compile("[\u00c2-\u00c3\u00e2][\u0080-\u00bf\u0152-\u2122]")
FIXED = collections.Counter()


def fix_mojibake(v: str) -> str:
    """Undo UTF-8 text that was decoded as cp1252/latin-1 (`PortÃ¡til` -> `Portátil`), only
    where the whole value round-trips exactly."""
    if not MOJIBAKE_RE.search(v):
        return v
    for enc in ("cp1252", "latin-1"):
        try:
            fixed = v.encode(enc).decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            continue
        if fixed != v:
            FIXED["values with UTF-8 mojibake repaired"] += 1
            return fixed
    return v


def unescape(v: str) -> str:
    for _ in range(3):  # some values are double-escaped (&amp;#40;)
        u = html.unescape(v)
        if u == v:
            break
        v = u
    return fix_mojibake(v)


def clean_value(attr: str, v: str) -> str:
    v = unescape(v)
    v = CTRL_RE.sub(" ", v)
    v = re.sub(r"\s+", " ", v).strip()
    # Fodors-Zagats wraps multi-word values in tokenised quotes: "` las vegas '" / "' 1 main st. '"
    m = re.fullmatch(r"[`'] ?(.+?) ?'", v)
    if m:
        v = m.group(1).strip()
    v = v.replace("\\ '", "'")
    # light detokenisation (the benchmarks put spaces around punctuation)
    v = re.sub(r" ([,;)\]])", r"\1", v)
    v = re.sub(r"([(\[]) ", r"\1", v)
    v = re.sub(r" '(s|t|re|ve|ll|d|m)\b", r"'\1", v)
    v = re.sub(r"\$ (?=\d)", "$", v)
    v = re.sub(r" : ", ": ", v)
    if attr == "year":
        v = re.sub(r"^(\d{4})\.0$", r"\1", v)
    return v.strip()


def norm_lang(tag: str) -> str:
    parts = tag.split("-")
    out = [parts[0].lower()]
    for p in parts[1:]:
        out.append(p.upper() if len(p) == 2 else p.title() if len(p) == 4 else p.lower())
    return "-".join(out)


def clean_wdc(v: str) -> tuple[str, str, str]:
    """WDC `title`: quoted offer title (+ @lang) followed by a de-duplicated page-title
    fragment.  Returns (name, details, lang)."""
    langs = LANG_RE.findall(v)
    lang = norm_lang(langs[0]) if langs else "und"
    v = LANG_RE.sub('"', v)
    pieces = []
    for p in v.split('"'):
        p = unescape(p)
        p = CTRL_RE.sub(" ", p)
        p = re.sub(r"\s+", " ", p).strip().strip(",").strip()
        if p and p.lower() != "null":
            pieces.append(p)
    if not pieces:
        return "", "", lang
    name, rest = pieces[0], " ".join(pieces[1:])
    if rest == name:
        rest = ""
    return name, rest, lang


# ---------------------------------------------------------------------------
# Rendering

def slugify(text: str, limit: int = 40) -> str:
    t = unicodedata.normalize("NFKD", text)
    t = t.encode("ascii", "ignore").decode("ascii").lower()
    t = re.sub(r"[^a-z0-9]+", "-", t).strip("-")
    if len(t) > limit:
        t = t[:limit].rsplit("-", 1)[0] if "-" in t[:limit] else t[:limit]
    return t or "item"


def esc(s: str) -> str:
    """Escape for HTML text content (& < >); quotes stay as they are."""
    return html.escape(s, quote=False)


def html_page(lang: str, title: str, body: list[str]) -> str:
    """A whole HTML page of `body` lines."""
    head = ["<!doctype html>", f'<html lang="{lang}">', "<head>", '<meta charset="utf-8">',
            f"<title>{esc(title)}</title>", "</head>", "<body>"]
    return "\n".join(head + body + ["</body>", "</html>", ""])


def render(site: dict, lang: str, title: str, fields: list[tuple[str, str]]) -> str:
    lines = [
        f'<header><a href="/">{site["name"]}</a></header>',
        f"<h1>{esc(title)}</h1>",
    ]
    prose = [(k, v) for k, v in fields if k == "description"]
    rows = [(k, v) for k, v in fields if k != "description"]
    if rows:
        if site["layout"] == "dl":
            lines.append("<dl>")
            for k, v in rows:
                lines.append(f"<dt>{esc(ATTR_LABELS.get(k, k.replace('_', ' ').title()))}</dt><dd>{esc(v)}</dd>")
            lines.append("</dl>")
        else:
            lines.append("<table>")
            for k, v in rows:
                lines.append(f"<tr><th>{esc(ATTR_LABELS.get(k, k.replace('_', ' ').title()))}</th><td>{esc(v)}</td></tr>")
            lines.append("</table>")
    for _, v in prose:
        lines.append(f"<p>{esc(v)}</p>")
    foot = f"© {site['name']}" + (f" · {site['foot']}" if site["foot"] else "")
    lines.append(f"<footer>{foot}</footer>")
    return html_page(lang, title, lines)


def render_bare(lang: str, title_attr: str, title: str, fields: list[tuple[str, str]],
                seed: bytes, layout: str = "bare") -> str:
    """The same record written as another site might: no site chrome, no heading, the
    benchmark's own attribute names (`bare`; else a name drawn for each from the ways
    bibliographies, schema.org and shops write it: OTHER_NAMES), one `name: value` line
    each, in an order drawn from the record (`seed`), the description among them; or
    written across a table, a row of names over a row of values (`across`)."""
    rng = random.Random(hashlib.sha256(seed).digest())
    lines = [(title_attr, title)] + fields
    rng.shuffle(lines)
    if layout != "bare":
        lines = [(rng.choice(OTHER_NAMES.get(k.lower(), [k])), v) for k, v in lines]
    if layout == "across":
        head = "".join(f"<th>{esc(k)}</th>" for k, _ in lines)
        row = "".join(f"<td>{esc(v)}</td>" for _, v in lines)
        return html_page(lang, title, [f"<table><tr>{head}</tr><tr>{row}</tr></table>"])
    return html_page(lang, title, [f"<div>{esc(k)}: {esc(v)}</div>" for k, v in lines])


# How other sites name the benchmarks' attributes (--layout renamed): BibTeX, Dublin Core
# and schema.org's property names, and shops' and music stores' labels.
OTHER_NAMES = {
    "title": ["Title", "Name", "headline", "Paper title", "Product title", "Item"],
    "name": ["Name", "Title", "Product name", "Item"],
    "authors": ["Authors", "Author(s)", "creator", "Written by", "author_list"],
    "venue": ["Venue", "Published in", "booktitle", "Journal/Conference", "Source", "isPartOf"],
    "year": ["Year", "Publication year", "date", "datePublished", "Pub. year"],
    "brand": ["Brand", "Manufacturer", "Make", "brand_name", "Vendor"],
    "manufacturer": ["Manufacturer", "Brand", "Maker", "mfr", "Vendor"],
    "modelno": ["Model", "Model No.", "Item #", "mpn", "Part number", "model_number"],
    "price": ["Price", "Price (USD)", "Cost", "Our price", "list_price"],
    "category": ["Category", "Department", "Type", "product_category", "Section"],
    "description": ["Description", "Details", "About this item", "Overview", "Product description"],
    "song_name": ["Song", "Track", "Title", "Track name"],
    "artist_name": ["Artist", "Performer", "By"],
    "album_name": ["Album", "Album title", "Release"],
    "genre": ["Genre", "Style", "Category"],
    "released": ["Released", "Release date", "Date"],
    "time": ["Time", "Length", "Duration"],
    "copyright": ["Copyright", "Label"],
    "beer_name": ["Beer", "Name", "Beer name"],
    "brew_factory_name": ["Brewery", "Brewer", "Made by"],
    "style": ["Style", "Beer style", "Type"],
    "abv": ["ABV", "Alcohol"],
    "addr": ["Address", "Street", "addr"],
    "city": ["City", "Town"],
    "phone": ["Phone", "Telephone", "Tel."],
    "type": ["Type", "Cuisine", "Kind of food"],
    "class": ["Class", "Rating"],
}


def make_url(site: dict, slug: str, digest: str) -> str:
    n = int(digest[12:28], 16)
    b36 = ""
    m = int(digest[28:44], 16)
    for _ in range(8):
        m, r = divmod(m, 36)
        b36 += "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[r]
    path = site["url"].format(slug=slug, num=str(n % 10**9).rjust(6, "1"), hex=digest[44:54],
                              asin="B0" + b36)
    return f"https://{site['host']}{path}"


class Docs:
    """Renders records into pages, deduplicated by content hash."""

    def __init__(self, layout: str = "site"):
        self.layout = layout
        self.pages: dict[str, str] = {}     # digest -> html
        self.urls: dict[str, str] = {}      # digest -> url
        self.cache: dict[tuple, str] = {}   # (dataset, side, raw) -> digest
        self.stats = collections.Counter()

    def add(self, family: str, name: str, side: int, raw: str) -> str:
        key = (family, name, side, raw)
        if key in self.cache:
            return self.cache[key]
        if family == "wdc":
            fields = parse_record(raw)
            v = fields[0][1] if fields else raw
            title, details, lang = clean_wdc(v)
            tkey = "title"
            site = WDC_SHOPS[int(hashlib.sha256(raw.strip().encode()).hexdigest()[:8], 16) % len(WDC_SHOPS)]
            if not title:
                title, details = details, ""
            attrs = [("details", details)] if details else []
            if not title:
                self.stats["wdc empty record"] += 1
                title = "Product"
        else:
            lang = "en"
            site = SITES[DATASET_SITES.get(name, ("left", "right"))[side]]
            drop = LEAKY_ATTRS.get(name, set())
            fields = [(a, clean_value(a, v)) for a, v in parse_record(raw) if a not in drop]
            fields = [(a, v) for a, v in fields if v]
            tkey = next((a for a in TITLE_ATTRS if any(k == a for k, _ in fields)), None)
            if tkey is None and fields:
                tkey = fields[0][0]
                self.stats["title taken from another attribute"] += 1
            title = next((v for k, v in fields if k == tkey), "")
            attrs = [(k, v) for k, v in fields if k != tkey]
            if not title:
                self.stats["empty record"] += 1
                title = "Untitled"
        if self.layout != "site":
            page = render_bare(lang, tkey or "title", title, attrs, raw.strip().encode(),
                               self.layout)
        else:
            page = render(site, lang, title, attrs)
        digest = hashlib.sha256(page.encode("utf-8")).hexdigest()
        if digest in self.pages:
            assert self.pages[digest] == page
        self.pages[digest] = page
        self.urls[digest] = make_url(site, slugify(title), digest)
        self.cache[key] = digest
        return digest


# ---------------------------------------------------------------------------
# Sources and sampling

def discover(source: str):
    """Yields (kind, dataset, family, name, {split: path})."""
    out = []
    mag = os.path.join(source, "er-magellan")
    for fam, kind in FAMILIES:
        d = os.path.join(mag, fam)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            files = {s: os.path.join(d, name, f"{s}.txt") for s in ("train", "valid")
                     if os.path.isfile(os.path.join(d, name, f"{s}.txt"))}
            if files:
                out.append((kind, f"{fam}/{name}", fam, name, files))
    wdc = os.path.join(source, "wdc")
    if os.path.isdir(wdc):
        for cat in sorted(os.listdir(wdc)):
            files = {}
            for s in ("train", "valid"):
                for size in WDC_SIZES:
                    p = os.path.join(wdc, cat, f"{s}.txt.{size}")
                    if os.path.isfile(p):
                        files[s] = p
                        break
            if files:
                out.append(("wdc", f"wdc/{cat}", "wdc", cat, files))
    return out


def read_pairs(path: str, notes: collections.Counter, dataset: str):
    rows = []
    with open(path, encoding="utf-8", errors="replace", newline="\n") as f:
        for i, line in enumerate(f):
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip():
                continue
            parts = line.split("\t")
            if len(parts) != 3 or parts[2].strip() not in ("0", "1"):
                notes[f"{dataset}: malformed line"] += 1
                continue
            rows.append((i, parts[0], parts[1], int(parts[2].strip())))
    return rows


def water_fill(total: int, units: list[tuple[str, int, int]]) -> dict[str, int]:
    """units: (id, capacity, weight).  Fair share per weight, capped by capacity."""
    alloc = {u: 0 for u, _, _ in units}
    open_ = [(u, c, w) for u, c, w in units if c > 0]
    remaining = total
    while open_ and remaining > 0:
        wsum = sum(w for _, _, w in open_)
        share = remaining / wsum
        capped = [(u, c, w) for u, c, w in open_ if c <= share * w]
        if capped:
            for u, c, w in capped:
                alloc[u] = c
                remaining -= c
            open_ = [x for x in open_ if x not in capped]
            continue
        base = {u: int(share * w) for u, _, w in open_}
        left = remaining - sum(base.values())
        for u, _, _ in open_[:left]:   # hand out the rounding remainder in a fixed order
            base[u] += 1
        alloc.update(base)
        remaining = 0
    return alloc


def pick(rng: random.Random, pool: list, n: int) -> list:
    """Stratified sample of n rows from pool [(key, label)], source positive rate kept,
    floored at MIN_POS_RATE when positives are scarce."""
    pos = [r for r in pool if r[1] == 1]
    neg = [r for r in pool if r[1] == 0]
    n = min(n, len(pool))
    if n == len(pool):
        return list(pool)
    rate = len(pos) / len(pool)
    n_pos = round(n * rate)
    if rate < MIN_POS_RATE:
        n_pos = max(n_pos, min(len(pos), math.ceil(MIN_POS_RATE * n)))
    n_pos = min(n_pos, len(pos))
    n_neg = min(n - n_pos, len(neg))
    n_pos = min(len(pos), n - n_neg)
    return rng.sample(pos, n_pos) + rng.sample(neg, n_neg)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--source", default="../shared/data")
    ap.add_argument("--out", default="training-data/er")
    ap.add_argument("--full", action="store_true",
                    help="every pair of every dataset's train and valid files, each dataset on "
                         "its own (Structured and Dirty both whole), plain pages, no size "
                         "budget: the benchmark protocol (lab/er-benchmark.sh), not for the "
                         "repository")
    ap.add_argument("--layout", choices=["site", "bare", "renamed", "across"], default="site",
                    help="site: each source's own shop page (header, heading, a table or list "
                         "of labelled fields, footer); bare: no chrome, no heading, the "
                         "benchmark's attribute names as `name: value` lines in an order drawn "
                         "from each record (how another site might write the same records); "
                         "renamed: bare, each attribute under a name drawn from how "
                         "bibliographies, schema.org and shops write it; across: renamed, "
                         "written across a table (a row of names over a row of values)")
    args = ap.parse_args(argv)

    sets = discover(args.source)
    if not sets:
        print(f"no datasets under {args.source}", file=sys.stderr)
        return 1
    docs = Docs(args.layout)
    notes = collections.Counter()

    # 1. read and render every pair; build per (dataset, split) pools of unique, consistent pairs
    pools = {}      # (dataset, split) -> {pair_id: (line, label)}
    meta = {}
    for kind, dataset, fam, name, files in sets:
        meta[dataset] = (kind, fam, name)
        for split, path in files.items():
            labels = collections.defaultdict(set)
            first = {}
            n_rows = 0
            for line, left, right, y in read_pairs(path, notes, dataset):
                n_rows += 1
                a = docs.add(fam, name, 0, left)
                b = docs.add(fam, name, 1, right)
                pid = (a, b)
                labels[pid].add(y)
                first.setdefault(pid, line)
            if n_rows > len(first):
                notes[f"{dataset}/{split}: duplicate pairs dropped"] += n_rows - len(first)
            pool = {}
            for pid, ys in labels.items():
                if len(ys) > 1:
                    notes[f"{dataset}/{split}: pairs with conflicting labels dropped"] += 1
                    continue
                pool[pid] = (first[pid], next(iter(ys)))
            pools[(dataset, split)] = pool

    # 2. a pair used for validation never appears in train (same pages, either order)
    valid_ids = set()
    for (ds, sp), pool in pools.items():
        if sp == "valid":
            for a, b in pool:
                valid_ids.add((a, b))
                valid_ids.add((b, a))
    for (ds, sp), pool in pools.items():
        if sp == "train":
            leak = [pid for pid in pool if pid in valid_ids]
            for pid in leak:
                del pool[pid]
            if leak:
                notes[f"{ds}/train: pairs also in a valid file dropped"] += len(leak)

    # 3. Structured/X and Dirty/X are the same pairs line by line (Dirty moves values into
    #    other attributes): treat them as one unit so no underlying pair is used twice.
    units = []      # (unit_id, [datasets], weight)
    for kind, dataset, fam, name, files in sets:
        if args.full:
            units.append((dataset, [dataset]))
            continue
        if fam == "Dirty" and f"Structured/{name}" in meta:
            continue
        members = [dataset]
        if fam == "Structured" and f"Dirty/{name}" in meta:
            members.append(f"Dirty/{name}")
        units.append((dataset, members))

    def select(totals: dict[str, int]) -> dict[str, list]:
        out_rows = {"train": [], "valid": []}
        for split, total in totals.items():
            unit_pools = {}
            for uid, members in units:
                have = [m for m in members if (m, split) in pools]
                if not have:
                    continue
                if len(have) == 2:
                    s_by_line = {ln: (pid, y) for pid, (ln, y) in pools[(have[0], split)].items()}
                    d_by_line = {ln: (pid, y) for pid, (ln, y) in pools[(have[1], split)].items()}
                    lines = sorted(set(s_by_line) & set(d_by_line))
                    lines = [ln for ln in lines if s_by_line[ln][1] == d_by_line[ln][1]]
                    lost = max(len(s_by_line), len(d_by_line)) - len(lines)
                    if lost:
                        notes[f"{uid}/{split}: lines deduplicated differently in Structured/Dirty, unused"] = lost
                    pool = [(ln, s_by_line[ln][1]) for ln in lines]
                    unit_pools[uid] = (have, pool, {have[0]: s_by_line, have[1]: d_by_line})
                else:
                    by_line = {ln: (pid, y) for pid, (ln, y) in pools[(have[0], split)].items()}
                    unit_pools[uid] = (have, [(ln, y) for ln, (pid, y) in sorted(by_line.items())],
                                       {have[0]: by_line})
            alloc = water_fill(total, [(u, len(pool), len(have))
                                       for u, (have, pool, _) in unit_pools.items()])
            for uid, (have, pool, by_line) in unit_pools.items():
                rng = random.Random(f"{args.seed}:{uid}:{split}")
                chosen = pick(rng, pool, alloc[uid])
                if len(have) == 2:
                    # split the chosen lines between Structured and Dirty, stratified by label
                    parts = {have[0]: [], have[1]: []}
                    for y in (1, 0):
                        ys = sorted(c for c in chosen if c[1] == y)
                        rng.shuffle(ys)
                        parts[have[0]] += ys[0::2]
                        parts[have[1]] += ys[1::2]
                else:
                    parts = {have[0]: chosen}
                for ds, rows in parts.items():
                    kind = meta[ds][0]
                    for ln, y in sorted(rows):
                        a, b = by_line[ds][ln][0]
                        out_rows[split].append((docs.urls[a], docs.urls[b], a, b, y, kind, ds, split, ln))
        return out_rows

    header = ["url_a", "url_b", "html_a", "html_b", "label", "kind", "dataset", "split"]

    def csv_text(rows, ext: str) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(header)
        for ua, ub, a, b, y, kind, ds, sp, _ln in rows:
            w.writerow([ua, ub, f"docs/{a[:12]}{ext}", f"docs/{b[:12]}{ext}", y, kind, ds, sp])
        return buf.getvalue()

    gz_cache: dict[str, bytes] = {}

    def page_bytes(d: str, use_gz: bool) -> bytes:
        data = docs.pages[d].encode("utf-8")
        if not use_gz:
            return data
        if d not in gz_cache:
            gz_cache[d] = gzip.compress(data, compresslevel=9, mtime=0)
        return gz_cache[d]

    def measure(out_rows, use_gz: bool) -> int:
        """Apparent size of <out>/ as `du --apparent-size` counts it (directories included)."""
        ext = ".html.gz" if use_gz else ".html"
        used = {x for s in out_rows.values() for r in s for x in (r[2], r[3])}
        size = sum(len(page_bytes(d, use_gz)) for d in used)
        size += sum(len(csv_text(rows, ext).encode("utf-8")) for rows in out_rows.values())
        size += README_ESTIMATE + LICENSE_ESTIMATE + 2 * BLOCK + DIRENT_ESTIMATE * len(used)
        return size

    # 4. sample to fit: plain pages if they fit, else gzipped pages, else fewer pairs
    totals = {"train": TRAIN_TOTAL, "valid": VALID_TOTAL}
    if args.full:
        totals = {"train": 10**9, "valid": 10**9}
    use_gz = False
    for _ in range(50):
        out_rows = select(totals)
        if args.full or not use_gz and measure(out_rows, False) <= BUDGET_BYTES:
            break
        use_gz = True
        size = measure(out_rows, True)
        if size <= BUDGET_BYTES:
            break
        scale = min(0.99, BUDGET_BYTES / size)
        totals = {k: int(v * scale) for k, v in totals.items()}
    else:
        print("could not fit the size budget", file=sys.stderr)
        return 1
    fitted_totals = totals

    docs_dir = os.path.join(args.out, "docs")
    if os.path.isdir(docs_dir):
        # drop pages of a previous run; recreate the folder so its size is that of a fresh one
        for fn in os.listdir(docs_dir):
            if re.fullmatch(r"[0-9a-f]{12}\.html(\.gz)?", fn):
                os.remove(os.path.join(docs_dir, fn))
        if not os.listdir(docs_dir):
            os.rmdir(docs_dir)
    os.makedirs(docs_dir, exist_ok=True)
    used = sorted({x for s in out_rows.values() for r in s for x in (r[2], r[3])})
    short = set()
    for d in used:
        assert d[:12] not in short, f"hash prefix collision {d[:12]}"
        short.add(d[:12])
    ext = ".html.gz" if use_gz else ".html"
    path_of = {d: f"docs/{d[:12]}{ext}" for d in used}

    for d in used:
        p = os.path.join(args.out, path_of[d])
        with open(p, "wb") as f:
            f.write(page_bytes(d, use_gz))
    for split, rows in out_rows.items():
        with open(os.path.join(args.out, f"{split}.csv"), "w", encoding="utf-8", newline="") as f:
            f.write(csv_text(rows, ext))

    lic = os.path.join(args.source, "er-magellan", "LICENSE")
    if os.path.isfile(lic):
        shutil.copyfile(lic, os.path.join(args.out, "LICENSE"))
    wlic = os.path.join(args.source, "wdc", "LICENSE")
    if os.path.isfile(wlic) and not (os.path.isfile(lic) and open(wlic, "rb").read() == open(lic, "rb").read()):
        shutil.copyfile(wlic, os.path.join(args.out, "LICENSE-wdc"))

    # 5. statistics + README
    counts = collections.Counter()
    for split, rows in out_rows.items():
        for r in rows:
            counts[(r[6], split, r[4])] += 1
    src_counts = {}
    for (ds, sp), pool in pools.items():
        src_counts[(ds, sp)] = (sum(1 for _, y in pool.values() if y == 1), len(pool))
    docs_train = {x for r in out_rows["train"] for x in (r[2], r[3])}
    docs_valid = {x for r in out_rows["valid"] for x in (r[2], r[3])}
    shared_docs = docs_train & docs_valid
    valid_pairs = {(r[2], r[3]) for r in out_rows["valid"]}
    shared_valid_rows = sum(1 for r in out_rows["valid"] if r[2] in docs_train or r[3] in docs_train)
    stats = dict(
        files=len(used), page_bytes=sum(os.path.getsize(os.path.join(args.out, path_of[d])) for d in used),
        shared_docs=len(shared_docs), docs_train=len(docs_train), docs_valid=len(docs_valid),
        shared_valid_rows=shared_valid_rows, n_valid=len(out_rows["valid"]), use_gz=use_gz, totals=fitted_totals,
        overlap=sum(1 for r in out_rows["train"] if (r[2], r[3]) in valid_pairs or (r[3], r[2]) in valid_pairs),
    )
    stats["csv_bytes"] = {s_: os.path.getsize(os.path.join(args.out, f"{s_}.csv")) for s_ in out_rows}
    sizes = [len(page_bytes(d, use_gz)) for d in used] + list(stats["csv_bytes"].values())
    if os.path.isfile(os.path.join(args.out, "LICENSE")):
        sizes.append(os.path.getsize(os.path.join(args.out, "LICENSE")))
    sizes.append(README_ESTIMATE)
    stats["apparent"] = sum(sizes) + 2 * BLOCK + DIRENT_ESTIMATE * len(used)
    stats["blocks"] = sum(-(-n // BLOCK) * BLOCK for n in sizes) + 2 * BLOCK + DIRENT_ESTIMATE * len(used)
    write_readme(args, sets, counts, src_counts, stats, notes, docs.stats)
    all_files = [os.path.join(dp, f) for dp, _, fs in os.walk(args.out) for f in fs]
    apparent = sum(os.path.getsize(p) for p in all_files)
    blocks = sum(-(-os.path.getsize(p) // BLOCK) * BLOCK for p in all_files)
    print(f"train {len(out_rows['train'])} pairs, valid {len(out_rows['valid'])} pairs, "
          f"{len(used)} pages ({'gzip' if use_gz else 'plain'}), {len(all_files)} files, "
          f"{apparent / 1e6:.2f} MB apparent, ~{blocks / 1e6:.1f} MB in {BLOCK}-byte blocks")
    for k, v in sorted(notes.items()):
        print(f"  note: {k}: {v}")
    return 0


def write_readme(args, sets, counts, src_counts, stats, notes, dstats):
    ds_order = [s[1] for s in sets]
    kind_of = {s[1]: s[0] for s in sets}
    files_of = {s[1]: s[4] for s in sets}
    L = []
    L.append("# Entity-matching page pairs (`er/`)\n")
    L.append("Pairs of small generated web pages, each pair labelled by people as the same "
             "real-world entity (`label` 1) or not (0). A second training/validation set for "
             "twinpage next to `../web/`: near-duplicate *records about the same thing* rendered "
             "by two different sites, with hard negatives (similar products, citations, songs).\n")
    L.append("## Where it comes from\n")
    L.append("- `er-magellan`: the DeepMatcher / Magellan entity-matching benchmarks "
             "(Structured, Dirty and Textual versions), as packaged by an Apache-2.0 research "
             "repository: products from web shops (Abt-Buy, Amazon-Google, Walmart-Amazon), "
             "citations (DBLP-ACM, DBLP-GoogleScholar), beers, songs (iTunes-Amazon), restaurants "
             "(Fodors-Zagats). Human-labelled record pairs.")
    L.append("- `wdc`: Web Data Commons product corpus (offers from real shop pages grouped by "
             "their schema.org product identifiers), same repository; the `small` train and "
             "valid files (falling back to a larger size if `small` is missing).")
    L.append("- Licence of the repository: Apache-2.0, copied to `LICENSE`. The underlying "
             "records are third-party benchmark data; only the page wrapping is generated here.\n")
    L.append("Rebuild (from the repo root, with `../shared/data` present; these are the defaults):\n")
    L.append("```\npython3 training-data/convert_er.py --seed 7 --source ../shared/data --out training-data/er\n```\n")
    L.append("The output is deterministic: running it twice gives byte-identical files.\n")
    L.append("## Files\n")
    L.append("- `train.csv` (from the source `train` files), `valid.csv` (from the `valid` files). "
             "Columns `url_a,url_b,html_a,html_b,label,kind,dataset,split`; `html_*` are paths "
             "relative to this folder; `kind` is `er-structured`, `er-dirty`, `er-textual` or "
             "`wdc`; `dataset` e.g. `Structured/Amazon-Google`, `wdc/cameras`.")
    ext = ".html.gz (gzip, mtime 0)" if stats["use_gz"] else ".html"
    L.append(f"- `docs/<first 12 hex of sha256(page)>{ext}`: one page per distinct rendered record; "
             "a record used in many pairs is one file. Rows keep source line order, grouped by dataset.\n")
    L.append("## How a record becomes a page\n")
    L.append("- A record `COL attr VAL value …` is split into attributes; values get HTML entities "
             "decoded (repeatedly, some are double-escaped), whitespace collapsed, Fodors-Zagats' "
             "tokenised quotes (`` ` las vegas ' ``) removed, light detokenisation (`( panel )` → "
             "`(panel)`, `a , b` → `a, b`, `bugsy 's` → `bugsy's`, `$ 1.29` → `$1.29`, "
             "`types : the` → `types: the`), `1994.0` years → `1994`. Empty values are skipped. "
             "Text stays lower-case where the benchmark lower-cased it.")
    L.append("- Page: `<!doctype html><html lang=…><head><meta charset=utf-8><title>NAME</title>`, "
             "a one-line site header (the site name), `<h1>NAME</h1>`, the other attributes as a "
             "`<table>` or `<dl>` (per site), Abt-Buy's `description` as a `<p>`, a one-line footer. "
             "NAME is the `title`/`name`/`Song_Name`/`Beer_Name` attribute. Values are HTML-escaped.")
    L.append("- Each benchmark side is a fictional site on an `.example` host, the same for "
             "positive and negative pairs, so neither host nor URL shape tells the label: "
             "Amazon → Rivershop, Google → Pricefinder, Walmart → ValueMart, iTunes → Tunestore, "
             "Abt → Abtronics, Buy → BuyDepot, DBLP → BibIndex, ACM → CompLib, Google Scholar → "
             "CiteFinder, BeerAdvocate → Beer Forum, RateBeer → BeerRatings, Fodors → Travel "
             "Guides, Zagat → Dining Survey. The URL path holds a slug of NAME and an id derived "
             "from the page hash.")
    L.append("- WDC offers come from many shops, so each WDC record gets one of "
             f"{len(WDC_SHOPS)} fictional shops chosen by a hash of its text (not by side or "
             "label). WDC's single `title` attribute is the quoted offer title, its `@lang` tag "
             "(→ `<html lang>`; `und` when untagged) and a de-duplicated page-title fragment, "
             "rendered as a `Listing` row. `\"Null\"` parts are dropped.")
    L.append("- magellan pages are `lang=\"en\"`.")
    L.append("- Dropped as a label leak: Fodors-Zagats' `class` attribute, which is the id of the "
             "matching cluster (equal on both sides for every positive in the source, different "
             "for every negative).\n")
    L.append("## Sampling\n")
    L.append(f"- Pools: per dataset and split, pairs are identified by their two rendered pages; "
             "exact duplicate pairs are kept once, pairs that occur with both labels are dropped, "
             "and a train pair whose two pages also form a valid pair (either order, any dataset) "
             "is dropped from train.")
    L.append(f"- Budget: aim at {TRAIN_TOTAL} train and {VALID_TOTAL} valid pairs, spread fairly by "
             "water-filling (each dataset gets an equal share; datasets smaller than the share give "
             "all they have and the rest is re-shared). The folder must stay within "
             f"{BUDGET_BYTES // 2**20} MiB of file bytes (`du --apparent-size`): pages are written "
             "plain if that fits, gzipped otherwise, and if it still does not fit both aims are "
             "scaled down until it does. This run: "
             f"{'gzipped pages' if stats['use_gz'] else 'plain pages'}, aims "
             f"{stats['totals']['train']} train / {stats['totals']['valid']} valid.")
    L.append("- Structured/X and Dirty/X are the same pairs line by line (Dirty moves values into "
             "other attributes). They form one unit with a double share; the chosen lines are split "
             "between the two versions (stratified by label), so no underlying pair is used twice.")
    L.append(f"- Within a dataset: stratified random sample (seeded with `seed:dataset:split`) keeping "
             f"the source's positive rate; where that rate is below {MIN_POS_RATE:.0%} the positives "
             f"are floored at {MIN_POS_RATE:.0%} of the sample (as far as positives exist).\n")
    L.append("## Counts\n")
    L.append("pos/neg kept; `source` = unique consistent pairs available (pos/all).\n")
    L.append("| dataset | kind | source files | train pos | train neg | valid pos | valid neg | source train | source valid |")
    L.append("|---|---|---|---:|---:|---:|---:|---:|---:|")
    tot = collections.Counter()
    for ds in ds_order:
        f = ", ".join(os.path.basename(p) for _, p in sorted(files_of[ds].items()))
        c = [counts[(ds, s, y)] for s in ("train", "valid") for y in (1, 0)]
        for i, v in enumerate(c):
            tot[i] += v
        st = src_counts.get((ds, "train"))
        sv = src_counts.get((ds, "valid"))
        L.append(f"| {ds} | {kind_of[ds]} | {f} | {c[0]} | {c[1]} | {c[2]} | {c[3]} | "
                 f"{f'{st[0]}/{st[1]}' if st else '—'} | {f'{sv[0]}/{sv[1]}' if sv else '—'} |")
    L.append(f"| **total** | | | {tot[0]} | {tot[1]} | {tot[2]} | {tot[3]} | | |")
    L.append("")
    L.append(f"train: {tot[0] + tot[1]} pairs ({tot[0]} positive); valid: {tot[2] + tot[3]} pairs "
             f"({tot[2]} positive).\n")
    L.append("## Overlap between train and valid\n")
    L.append(f"- Pairs in both: {stats['overlap']} (by page identity, either order).")
    L.append(f"- Pages in both: {stats['shared_docs']} of {stats['docs_valid']} valid pages also occur in "
             f"train ({stats['shared_valid_rows']} of {stats['n_valid']} valid pairs have at least one "
             "page that also occurs in train). This is inherent to the benchmarks: the same record is "
             "compared with different candidates in train and valid.\n")
    L.append("## Source oddities\n")
    L.append("- Counts of what the cleaning met (same numbers every run):")
    for k, v in sorted(notes.items()):
        L.append(f"  - {k}: {v}")
    for k, v in sorted(FIXED.items()):
        L.append(f"  - {k}: {v} (cp1252/latin-1 round trip, whole value only)")
    for k, v in sorted(dstats.items()):
        L.append(f"  - records rendered with {k}: {v}")
    L.append("- WDC text contains U+FFFD replacement characters (lost in the source, e.g. "
             "`lat\ufffdrale`) and truncated/merged titles; kept as they are.")
    L.append("- DBLP-GoogleScholar has only a `valid` file (so it appears in `valid.csv` only); "
             "some Scholar author names are mis-decoded in the source (`gќting`).")
    L.append("- Dirty versions put some attribute values into other attributes (mostly the title) "
             "on purpose; the pages show that as it is.\n")
    L.append("## Size\n")
    L.append(f"- {stats['files']} page files, {stats['page_bytes']:,} bytes of pages "
             f"({'gzipped' if stats['use_gz'] else 'plain HTML'}); `train.csv` {stats['csv_bytes']['train']:,} "
             f"bytes, `valid.csv` {stats['csv_bytes']['valid']:,} bytes; plus this README and LICENSE. "
             f"About {stats['apparent'] / 2**20:.1f} MiB of file bytes in all (`du -sh --apparent-size`, "
             "which also counts the folders themselves).")
    L.append(f"- Each small file takes a whole filesystem block, so on a 4 KiB-block disk `du -sh` "
             f"shows about {stats['blocks'] / 2**20:.0f} MiB for the same folder.\n")
    with open(os.path.join(args.out, "README.md"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(L))


if __name__ == "__main__":
    sys.exit(main())
