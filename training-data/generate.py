#!/usr/bin/env python3
"""Build twinpage's labelled web-page pairs from real pages (Python 3.11 stdlib only).

    python3 training-data/generate.py            # = --seed 7 --source ../shared/data/web-pages --out training-data/web

Reads the real pages in SOURCE (Mozilla Readability's test pages and the trafilatura
evaluation pages), keeps a seeded subset that fits the size budget, splits them by site
into train/test, and writes

    OUT/train.csv, OUT/test.csv      pairs (see training-data/README.md for the columns)
    OUT/docs/<sha256-prefix>.html.gz every document once, gzip with mtime=0
    OUT/SOURCES.md, OUT/LICENSE-*    where the pages came from

Everything is derived from --seed: two runs give byte-identical output.
Paths are resolved relative to the current directory (run it from the repo root).
"""
# The generator is the package beside this file (generator/: a shared core and one module
# per kind of pair, generator/kinds/); this file is its command line.
from generator.main import main

if __name__ == '__main__':
    main(__doc__)
