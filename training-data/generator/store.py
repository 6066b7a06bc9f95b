"""Writing the set: every document stored once, gzip'd with mtime=0 and named by its
content hash (docs/<hash>.html.gz), beside the sibling files some documents load; the pair
files; and where the pages came from (SOURCES.md, the collections' licences).

Naming files by content is what lets identical documents from different kinds be stored
once and keeps the output byte-identical from run to run.
"""
import csv
import os
import shutil

from .core import gz_bytes, sha

COLUMNS = ['url_a', 'url_b', 'html_a', 'html_b', 'label', 'kind', 'split', 'source_a', 'source_b', 'query', 'variant',
           'cues']


class Store:
    """The documents and sibling files of the set, by file name (relative to OUT)."""

    def __init__(self):
        self.docs = {}        # name -> gz bytes

    def name(self, doc):
        """The document's file name (content hash); the bytes are kept until it is stored."""
        if getattr(doc, 'path', None) is None:
            doc.bytes_ = doc.final_bytes()
            doc.path = 'docs/%s.html.gz' % sha(doc.bytes_)[:20]
        return doc.path

    def add(self, doc):
        name = self.name(doc)
        if name not in self.docs:
            self.docs[name] = gz_bytes(doc.bytes_)
        return name

    def size(self):
        return sum(len(v) for v in self.docs.values())


SOURCES_MD = """# Where the web pages come from

Every document under `docs/` is a real web page, or a page derived from one by
`training-data/generate.py` (see `../README.md`). The real pages come from two public
test collections; both keep their own licence (copied here):

- **Mozilla Readability test pages** (`readability/<name>` in the `source_*` columns):
  the `source.html` test inputs of Mozilla's Readability library
  (<https://github.com/mozilla/readability>, `test/test-pages/`), Apache License 2.0,
  see `LICENSE-readability.md`. The curated `expected.html` (the article's core content)
  was used to build print/plain-text versions and to locate the core in the page. The
  pages themselves were published by their sites (news sites, blogs, Wikipedia, ...).
- **trafilatura evaluation pages** (`trafilatura/<file>`): the `eval/` pages and
  `evaldata.json` of the trafilatura benchmark (<https://github.com/adbar/trafilatura>,
  `tests/`), repository under Apache License 2.0, see `LICENSE-trafilatura-eval`; the
  pages are third-party web pages (copyright of their publishers), kept here as test
  data. The people-chosen `with` snippets located the core content.

Pages larger than 600 KB, synthetic Readability fixtures (lorem ipsum) and pages with
almost no text were left out. Original pages are stored byte for byte as served
(gzip'd); derived pages are written as UTF-8.

Source pages used: {n_read} from Readability, {n_traf} from trafilatura-eval.

`docs/*.json` and `docs/*.css` are not pages: they are data files and stylesheets that some
derived pages load by a relative URL (the article data of a client-rendered page, a
stylesheet that hides stuffed keywords), made by the generator from the same sources.
"""


def write(out, source, store, rows_by_split, used):
    """Writes OUT: the stored files (removing those in OUT/docs the set no longer has), one
    pair file per split, the licences and SOURCES.md (used: the source pages of the pairs)."""
    os.makedirs(os.path.join(out, 'docs'), exist_ok=True)
    for fn in sorted(os.listdir(os.path.join(out, 'docs'))):
        if 'docs/' + fn not in store.docs:
            os.remove(os.path.join(out, 'docs', fn))
    for name in sorted(store.docs):
        path = os.path.join(out, name)
        data = store.docs[name]
        if not (os.path.isfile(path) and open(path, 'rb').read() == data):
            with open(path, 'wb') as f:
                f.write(data)
    for split, rows in rows_by_split.items():
        with open(os.path.join(out, split + '.csv'), 'w', encoding='utf-8', newline='') as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator='\n', extrasaction='ignore')
            w.writeheader()
            for row in rows:
                # A URL as trafilatura's evaldata.json keys it may end in a space. Stripped
                # here, not where pages are read: the shipped documents were made with it
                # (a print page names its URL), and 12 of them would change.
                w.writerow(dict(row, url_a=row['url_a'].strip(), url_b=row['url_b'].strip()))
    shutil.copyfile(os.path.join(source, 'readability', 'LICENSE.md'), os.path.join(out, 'LICENSE-readability.md'))
    shutil.copyfile(os.path.join(source, 'trafilatura-eval', 'LICENSE'), os.path.join(out, 'LICENSE-trafilatura-eval'))
    with open(os.path.join(out, 'SOURCES.md'), 'w', encoding='utf-8') as f:
        f.write(SOURCES_MD.format(n_read=sum(1 for u in used if u.startswith('readability/')),
                                  n_traf=sum(1 for u in used if u.startswith('trafilatura/'))))
