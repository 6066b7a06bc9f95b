#!/usr/bin/env python3
"""trafilatura on the snippets of its own evaluation set, counted as the
`core-extraction` binary counts twinpage's core content: the anchor for its
`trafilatura evaluation snippets` line.

    python3 -m venv /tmp/v && /tmp/v/bin/pip install trafilatura lxml_html_clean
    /tmp/v/bin/python lab/core-extraction-anchor.py [../shared/data/web-pages]

trafilatura was developed on this set, so the anchor is its best case.
"""
import json
import sys
from pathlib import Path

import trafilatura


def squeeze(text):
    return " ".join(text.split())


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/web-pages")
    folder = root / "trafilatura-eval"
    evaldata = json.loads((folder / "evaldata.json").read_text(encoding="utf-8"))
    counts = {"tp": 0, "fn": 0, "fp": 0, "tn": 0}
    pages = 0
    for url in sorted(evaldata):
        page = evaldata[url]
        path = folder / "eval" / page["file"]
        if not path.is_file():
            continue  # the set lists some pages it does not ship
        text = squeeze(trafilatura.extract(path.read_bytes(), url=url) or "")
        for snippet in page["with"]:
            counts["tp" if squeeze(snippet) in text else "fn"] += 1
        for snippet in page["without"]:
            counts["fp" if squeeze(snippet) in text else "tn"] += 1
        pages += 1
    precision = counts["tp"] / max(1, counts["tp"] + counts["fp"])
    recall = counts["tp"] / max(1, counts["tp"] + counts["fn"])
    f1 = 2 * precision * recall / max(1e-9, precision + recall)
    accuracy = (counts["tp"] + counts["tn"]) / max(1, sum(counts.values()))
    print(f"trafilatura {trafilatura.__version__:<14} {pages:>4} pages  precision {precision:.3f}  "
          f"recall {recall:.3f}  F1 {f1:.3f}  accuracy {accuracy:.3f}")


if __name__ == "__main__":
    main()
