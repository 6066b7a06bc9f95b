"""Which pairs are built, and in which order. Every kind draws from the seeded streams in
turn, and later kinds use the documents earlier ones made (a page's variants, key-facts
copies, app shells), so the order is fixed here, in three phases:

1. the kinds that need no rendering (build_split);
2. the kinds whose truth depends on rendering (build_rendering_split), from their own
   random streams (B.rng('scripts', ...));
3. paginated (paginated.build), from its own streams (B.rng('paginated', ...)).

main.py writes each phase's rows after the previous phase's (each shuffled with its own
stream), so adding a phase left every earlier row and document byte-identical.
"""
from .builder import attempts, original, several_per_site
from .kinds import (app_shell, client_rendered, dynamic, figures, hidden_stuffing, key_facts, mirror, paginated,
                    plain_text, prepend, quote, rebrand, same_site, same_template, second, small_edit, syndicated,
                    unrelated)
from .kinds import print as print_version

# the positive kinds made from one page, in the order they are built
ONE_PAGE = [mirror, print_version, plain_text, prepend, rebrand, small_edit, dynamic]
# the kinds of each phase, in the order of the summary (and training-data/README.md)
NO_RENDERING = [mirror, print_version, plain_text, prepend, rebrand, syndicated, small_edit, dynamic,
                same_template, same_site, key_facts, figures, quote, unrelated]
RENDERING = [client_rendered, app_shell, hidden_stuffing]
KINDS = NO_RENDERING + RENDERING + [paginated]


def one_page_pairs(B, split, kind, pages, want, ctx, multi):
    """A positive kind made from one page: the page as served against kind.transform()'s
    copy of it, with one of kind.SECONDARY layered on a share of them (`variant`)."""
    el = [p for p in pages if kind.eligible(p)]
    first = multi if kind.SITES_FIRST else ()
    for p, r, tries in attempts(B, split, kind.KIND, el, want, first, needs_room=kind.FULL_SIZE):
        base = original(p)
        d = kind.transform(base, r, ctx)
        if d is None:
            B.fail[kind.KIND + ':n/a'] += 1
            continue
        d, sec = second(d, r, ctx, kind.SECONDARY)
        other = kind.other_side(B, split, base, tries, r, ctx) if hasattr(kind, 'other_side') else base
        if B.add_pair(split, kind.KIND, kind.LABEL, other, d, sec):
            B.variants[p.id].append((kind.KIND, d))
            if kind.FULL_SIZE:
                B.derived[p.id] += 1 + (other is not base)


def build_split(B, split, pages, targets):
    """Phase 1 for one split (pages: the split's pages; targets: pairs per kind)."""
    ctx = {'titles': sorted({p.ctitle for p in pages if p.ctitle})}
    multi = several_per_site(pages)
    for kind in ONE_PAGE:
        one_page_pairs(B, split, kind, pages, targets[kind.KIND], ctx, multi)
    # syndicated and same-template share their documents (X's core in Y's template): most
    # same-template pairs come from that walk, then print versions of two pages, then the walk
    walk = syndicated.Syndication(B, split, pages, targets, ctx)
    walk.run(int(0.8 * targets[same_template.KIND]))
    same_template.print_pairs(B, split, pages, targets[same_template.KIND])
    walk.run(targets[same_template.KIND])
    key_facts.build(B, split, pages, targets[key_facts.KIND], ctx, multi)
    figures.build(B, split, pages, targets[figures.KIND], ctx)
    quote.build(B, split, pages, targets[quote.KIND], ctx)
    same_site.build(B, split, pages, targets[same_site.KIND])
    unrelated.build(B, split, pages, targets[unrelated.KIND])
    dynamic.real_pairs(B, split)


def build_rendering_split(B, split, pages, targets):
    """Phase 2 for one split: client-rendered (its shells are reused by app-shell), app-shell,
    hidden-stuffing."""
    shells = client_rendered.build(B, split, pages, targets[client_rendered.KIND])
    app_shell.build(B, split, pages, targets[app_shell.KIND], shells)
    hidden_stuffing.build(B, split, pages, targets[hidden_stuffing.KIND])
