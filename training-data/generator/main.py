"""The run: read the pages and split them, build the pairs phase by phase (pairs.py), redraw
every pair's cues, write the set and print the counts per kind. generate.py, the entry
point, calls main() with its docstring as the help text.
"""
import argparse
import sys
from collections import Counter, defaultdict

from .builder import Builder
from .core import hrng
from .cues import draw_cues
from .kinds import paginated
from .pages import TRAF_MAX_GZ, load_pages, near_dup_pairs, split_by_site
from .pairs import KINDS, NO_RENDERING, RENDERING, build_rendering_split, build_split
from .store import Store, write

TEST_MIN = 36                      # pairs of each kind in test, at least
BUDGET_BYTES = 55 * 1000 * 1000    # documents and sibling files (web/ stays under ~56 MB)


def split_targets(kinds, frac, split):
    """Pairs per kind in one split: test gets its share of the pages (frac), at least TEST_MIN."""
    targets = {}
    for kind in kinds:
        t = max(TEST_MIN, round(kind.TARGET * frac))
        targets[kind.KIND] = t if split == 'test' else max(0, kind.TARGET - t)
    return targets


def main(description):
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('--source', default='../shared/data/web-pages')
    ap.add_argument('--out', default='training-data/web')
    ap.add_argument('--quiet', action='store_true')
    ap.add_argument('--fresh-beside', metavar='DIR',
                    help='build from the pages the pair files in DIR (train.csv, test.csv) do not use, '
                         'nor any page of their sites: a second set to judge a model trained on DIR')
    ap.add_argument('--max-gzip', type=int, default=TRAF_MAX_GZ,
                    help='largest trafilatura page (gzip bytes) drawn (default %(default)s)')
    args = ap.parse_args()
    seed = args.seed
    log = defaultdict(list)
    log['missing_files'] = 0

    def say(*a):
        if not args.quiet:
            print(*a, file=sys.stderr, flush=True)

    pages = load_pages(args.source, seed, args.max_gzip, args.fresh_beside, log, say)
    dups = near_dup_pairs(pages)
    split_of = split_by_site(pages, dups, seed)
    store = Store()
    B = Builder(seed, pages, split_of, store)
    B.real_dups = [(a, b) for a, b, j in dups if j >= 0.6]
    for a, b, j in dups:
        B.nodup.add(frozenset((a, b)))
    n_test = sum(1 for p in pages if split_of[p.id] == 'test')
    frac = n_test / len(pages)
    by_split = {split: [p for p in pages if split_of[p.id] == split] for split in ('train', 'test')}
    for split in ('train', 'test'):
        say('building %s pairs from %d pages ...' % (split, len(by_split[split])))
        build_split(B, split, by_split[split], split_targets(NO_RENDERING, frac, split))
    # ---- pairs whose truth depends on rendering (own random streams, rows written after those)
    n_old = len(B.rows)
    for split in ('train', 'test'):
        say('building %s pairs with scripts / hidden text ...' % split)
        build_rendering_split(B, split, by_split[split], split_targets(RENDERING, frac, split))
    # ---- pages 1 and 2 of one article (own random streams, rows written last)
    n_scripts = len(B.rows)
    for split in ('train', 'test'):
        paginated.build(B, split, by_split[split], split_targets([paginated], frac, split)[paginated.KIND])

    # ---- titles and URLs drawn apart from the label, for every kind
    titles = {sp: sorted({p.ctitle for p in pages if p.ctitle and split_of[p.id] == sp}) for sp in ('train', 'test')}
    for row in B.rows:
        draw_cues(B, row, titles[row['split']])
    used = {row[k] for row in B.rows for k in ('html_a', 'html_b')} | B.siblings
    store.docs = {name: data for name, data in store.docs.items() if name in used}

    # ---- write: each phase's rows shuffled with their own stream, after the earlier phases'
    rows_by_split = {}
    for split in ('train', 'test'):
        rows = [r for r in B.rows[:n_old] if r['split'] == split]
        hrng(seed, 'rows', split).shuffle(rows)
        new = [r for r in B.rows[n_old:n_scripts] if r['split'] == split]
        hrng(seed, 'scripts', 'rows', split).shuffle(new)
        pages_rows = [r for r in B.rows[n_scripts:] if r['split'] == split]
        hrng(seed, 'paginated', 'rows', split).shuffle(pages_rows)
        rows_by_split[split] = rows + new + pages_rows
    write(args.out, args.source, store, rows_by_split, {r['source_a'] for r in B.rows} | {r['source_b'] for r in B.rows})

    # ---- summary
    print('pairs per kind (label, train, test, total, with variant):')
    for k in [kind.KIND for kind in KINDS]:
        rs = [r for r in B.rows if r['kind'] == k]
        tr = sum(1 for r in rs if r['split'] == 'train')
        te = sum(1 for r in rs if r['split'] == 'test')
        lab = rs[0]['label'] if rs else '-'
        nv = sum(1 for r in rs if r['variant'])
        print('  %-14s %s %5d %5d %5d %5d' % (k, lab, tr, te, tr + te, nv))
    for split in ('train', 'test'):
        rs = [r for r in B.rows if r['split'] == split]
        pos = sum(1 for r in rs if r['label'] == 1)
        print('%s: %d pairs, %d positive, %d negative' % (split, len(rs), pos, len(rs) - pos))
    pos = sum(1 for r in B.rows if r['label'] == 1)
    print('total: %d pairs, %.1f%% positive; %d documents + %d sibling files, %.1f MB; %d source pages (%d train, %d test)'
          % (len(B.rows), 100.0 * pos / max(1, len(B.rows)), len(store.docs) - len(B.siblings), len(B.siblings),
             store.size() / 1e6,
             len(pages), len(pages) - n_test, n_test))
    if store.size() > BUDGET_BYTES:
        print('WARNING: documents exceed the %.0f MB budget' % (BUDGET_BYTES / 1e6))
    if not args.quiet:
        say('not applicable / rejected attempts:', dict(sorted(B.fail.items())))
        say('near-duplicate source pages:', dups)
        cs = Counter((p.coll, p.declared or '-', p.charset_how) for p in pages)
        say('charsets:', dict(sorted(cs.items())))
        say('skipped >600KB:', len(log['skipped_big']), '| synthetic:', len(log['skipped_synthetic']),
            '| too little text:', log['skipped_notext'], '| evaldata entries without file:', log['missing_files'],
            '| eval files without evaldata entry:', log['unlabelled_files'])
        nocore = [p.id for p in pages if not p.core_loc]
        say('pages without located core (%d):' % len(nocore), nocore[:20])
