"""The search index's ids from build to build (_ext/handbook/search/layout.py):
an incremental build keeps every document's id, and ranks the new ones.

What the browser makes of them is proved in tests/browser/test_search_index.py
(an editor's incremental index answers as a clean build's); here, the
layouts themselves, over many edits.
"""

from __future__ import annotations

import random

from handbook.search import layout


def order(region: layout.Region) -> list[str]:
    """The keys of *region* in the order its ranks give."""
    return [region.keys[at] for at in sorted(
        (at for at, key in enumerate(region.keys) if key is not None), key=region.rank)]


def edited(rng: random.Random, keys: list[str], fresh: list[int]) -> list[str]:
    """*keys* with a few added, removed or moved, as an editor's build does."""
    keys = list(keys)
    for _ in range(rng.randint(0, 4)):
        op = rng.random()
        if op < 0.45:
            fresh[0] += 1
            keys.insert(rng.randint(0, len(keys)), f'new{fresh[0]}')
        elif op < 0.75 and keys:
            keys.pop(rng.randrange(len(keys)))
        elif keys:
            keys.insert(rng.randint(0, len(keys) - 1), keys.pop(rng.randrange(len(keys))))
    return keys


def test_every_build_keeps_the_order_and_never_gives_an_id_twice():
    """Over thousands of builds of random edits: each region's ranks give its
    documents' order; ranks are distinct as the manifest counts them (the
    rulings' after the texts); and while the epoch lasts an id, or a section's
    number, once given is never given to another document (a manifest older
    than the parts would show that document: a review)."""
    rng = random.Random(33)
    fresh = [0]
    builds = kept_builds = 0
    for _trial in range(150):
        texts = [f't{i}' for i in range(rng.randint(0, 12))]
        rulings = [f'r{i}' for i in range(rng.randint(0, 25))]
        sections = [f's{i}' for i in range(rng.randint(1, 5))]
        laid = layout.whole(texts, rulings, sections)
        given: dict[str, dict[int, str]] = {}
        for _build in range(rng.randint(1, 30)):
            texts, rulings = edited(rng, texts, fresh), edited(rng, rulings, fresh)
            sections = edited(rng, sections, fresh)
            builds += 1
            again = layout.kept(laid, texts, rulings, sections)
            if again is None:  # laid out whole: a new epoch
                laid, given = layout.whole(texts, rulings, sections), {}
                continue
            kept_builds += 1
            for name, region, keys in (('texts', again.texts, texts),
                                       ('rulings', again.rulings, rulings),
                                       ('sections', again.sections, sections)):
                assert order(region) == keys, name
                seen = given.setdefault(name, {})
                for at, key in enumerate(region.keys):
                    if key is not None:
                        assert seen.setdefault(at, key) == key, (name, at)
            start = len(again.texts.keys)
            ranks = [start + again.rulings.rank(at)
                     for at, key in enumerate(again.rulings.keys) if key is not None]
            assert len(set(ranks)) == len(ranks)
            assert all(start + again.rulings.rank(at - start) == rank
                       for at, rank in again.ranks().items() if at >= start)
            laid = again
    assert kept_builds > builds // 2  # the ids were kept, most builds


def test_a_clean_layout_is_the_order_with_spare_ids_for_texts():
    laid = layout.whole(['t0', 't1'], ['r0', 'r1', 'r2'], ['s0'])
    assert laid.texts.keys == ['t0', 't1', *[None] * layout.spare(2)]
    assert laid.rulings.keys == ['r0', 'r1', 'r2'] and laid.rank_count() == 0


def test_rulings_older_than_every_other_added_build_after_build_stay_apart():
    """A ruling of an older date than every other, added at each build: each
    a step below the last (a review: halving the gap to -1 made two ranks one
    number in the manifest after 42 builds, where 2,000 texts come first)."""
    texts = [f't{i}' for i in range(2000)]
    rulings = [f'r{i}' for i in range(100)]
    laid = layout.whole(texts, rulings, [])
    for i in range(layout.MOST_RANKS):
        rulings = [f'old{i}', *rulings]
        laid = layout.kept(laid, texts, rulings, [])
        assert laid is not None, i
        ranks = list(laid.ranks().values())
        assert len(set(ranks)) == len(ranks)
    assert order(laid.rulings) == rulings
    # one more than the manifest may list: laid out whole
    assert layout.kept(laid, texts, ['older', *rulings], []) is None
