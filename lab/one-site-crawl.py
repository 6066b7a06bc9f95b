#!/usr/bin/env python3
"""A crawl of one site: N different articles on one real page's template.

Every `<p>` of the template page gets 1-3 sentences of its own (sentences of the real
pages in ../shared/data/web-pages, each used once), and the `<title>` one more, so
no two pages share a sentence of their article while all share the template's
navigation, headers and footers: what a crawl of a single site looks like to a
duplicate finder. Writes OUT/pages/NNNNN.html and OUT/docs.csv (url,html).

    lab/one-site-crawl.py [--template ../shared/data/web-pages/readability/tmz-1/source.html]
                          [--pages 2000] [--out /tmp/one-site] [--seed 1] [--data DIR]
    twinpage dedupe /tmp/one-site/docs.csv --out /tmp/one-site/run --no-render

No pair is a duplicate: every cluster `dedupe` makes is a wrong join. A template
whose <p> elements hold under 10 % of its words keeps its article elsewhere (its
pages would be near-copies of it) and is refused, unless `--near-copies` asks for
just that: N near-copies of one page, as a calendar's days or a wall with a
changing line make them. Python 3 standard library only.
"""

import argparse
import csv
import glob
import html
import os
import random
import re

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../shared/data/web-pages")
PARAGRAPH = re.compile(r"(<p\b[^>]*>)(.*?)(</p>)", re.S)


def sentences(data):
    """Sentences of 8-40 words from the real pages' paragraphs, each once, shuffled."""
    texts = [open(f, encoding="utf-8", errors="replace").read()
             for f in glob.glob(f"{data}/readability/*/expected.html") + glob.glob(f"{data}/trafilatura-eval/eval/*")]
    found = []
    for text in texts:
        for paragraph in PARAGRAPH.findall(text):
            words = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", paragraph[1])))
            found += [s.strip() for s in re.split(r"(?<=[.!?])\s+", words) if 8 <= len(s.split()) <= 40]
    return list(dict.fromkeys(found))


def words_in_paragraphs(page):
    """The share of a page's words (scripts and styles aside) that its <p> elements hold."""
    page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S)
    count = lambda text: len(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())
    return sum(count(m.group(2)) for m in PARAGRAPH.finditer(page)) / max(count(page), 1)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--template", default=f"{DATA}/readability/tmz-1/source.html")
    p.add_argument("--pages", type=int, default=2000)
    p.add_argument("--out", default="/tmp/one-site")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data", default=DATA, help="the web pages of ../shared/data")
    p.add_argument("--near-copies", action="store_true",
                   help="accept a template whose <p> elements hold little of its words: its pages are then "
                        "near-copies of one another (one page with a changing line), a group no pair of which is distinct")
    args = p.parse_args()
    random.seed(args.seed)
    pool = sentences(args.data)
    random.shuffle(pool)
    template = open(args.template, encoding="utf-8", errors="replace").read()
    paragraphs = list(PARAGRAPH.finditer(template))
    share = words_in_paragraphs(template)
    if share < 0.1 and not args.near_copies:
        raise SystemExit(f"{args.template}: its <p> elements hold {share:.0%} of its words (its article lies elsewhere), so its pages "
                         "would share the rest (near-copies, not one site's different articles): "
                         "choose another template")
    os.makedirs(f"{args.out}/pages", exist_ok=True)
    taken, rows = 0, []
    for i in range(args.pages):
        pieces, last = [], 0
        for m in paragraphs:
            n = random.randint(1, 3)
            if taken + n + 1 > len(pool) and not args.near_copies:
                raise SystemExit(f"only {len(pool)} sentences: ask for fewer pages")
            # near-copies may reuse sentences: what parts them is the template they share
            drawn = [pool[(taken + j) % len(pool)] for j in range(n)]
            pieces += [template[last:m.start(2)], html.escape(" ".join(drawn))]
            taken, last = taken + n, m.end(2)
        page = "".join(pieces) + template[last:]
        title = html.escape(pool[taken % len(pool)][:60])
        taken += 1
        page = re.sub(r"<title>.*?</title>", lambda _: f"<title>{title}</title>", page, count=1, flags=re.S)
        path = f"{args.out}/pages/{i:05d}.html"
        with open(path, "w", encoding="utf-8") as f:
            f.write(page)
        rows.append((f"https://one-site.example/article-{i}", f"pages/{i:05d}.html"))
    with open(f"{args.out}/docs.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["url", "html"])
        w.writerows(rows)
    print(f"{args.pages} pages on {len(paragraphs)} paragraphs of {args.template} ({share:.0%} of its words); "
          f"{taken} sentences used"
          f"{', each once' if taken <= len(pool) else f' of {len(pool)}, some again'}")


if __name__ == "__main__":
    main()
