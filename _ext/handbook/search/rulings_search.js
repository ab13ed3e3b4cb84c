/*
 * rulings_search.js: the browser side of rulings_index.py (its docstring is
 * the manual; shards.py's says what the parts hold).  Served as
 * _static/rulings_search.js after core/names.js (HandbookNames.fold, the
 * one folding function).  The search page loads it, deferred, followed by
 * the manifest, _static/rulings-index.js, which calls RulingSearch.setIndex();
 * every other page loads it when the reader first focuses its search box
 * (search_box.js), and the manifest with it.  The parts of the index,
 * _static/search/<name>.js, each call RulingSearch.addPart().
 *
 * Every text of the index reaches the page through textContent (and
 * setAttribute for links), never as HTML.
 */

const RulingSearch = (() => {
  const { fold, foldWithPositions } = HandbookNames;
  const PAGE_SIZE = 20;
  /** A word between the brackets a query may put around a name. */
  const BRACKETED = /^(?:「(.+)」|『(.+)』|《(.+)》|“(.+)”|"(.+)")$/u;
  const BOX_SIZE = 5; // rulings in the search box's list
  const ADDRESS_PAUSE = 500; // ms of no typing before the address says the query
  const SEPARATOR = "\u0001";
  const CHANGED = 1;
  const STRUCK = 2; // overturned: every word struck
  const SUPERSEDED = 4;
  const OPEN = 8;

  // -- loading ------------------------------------------------------------------------

  const FORMAT = 4; // rulings_index.py's FORMAT: the texts' ids first, the rulings oldest first, ranks
  let manifest = null; // the manifest (format 3), or a whole index of format 1
  let whole = null; // format 1: every ruling, prepared ({entries, haystacks, days})
  let parts = new Map(); // part name -> its data
  let waiting = new Map(); // part name -> {promise, resolve, reject}
  let generation = 0; // counts the manifests set: a search of an older one is dropped
  const listeners = []; // called with each manifest set
  let manifestAsked = null; // the promise of the manifest, once asked for

  const root = () => {
    const value = document.documentElement.dataset.content_root || "";
    return value === "./" ? "" : value;
  };
  const staticUrl = (name) => `${root()}_static/${name}`;

  const script = (src, failed) => {
    const element = document.createElement("script");
    element.src = src;
    element.async = true;
    if (failed) element.addEventListener("error", failed);
    document.head.append(element);
  };

  /** The manifest: set already, being loaded by the page, or loaded now. */
  const ready = () => {
    if (manifest) return Promise.resolve(manifest);
    if (!manifestAsked) {
      manifestAsked = new Promise((resolve, reject) => {
        listeners.push(resolve);
        if (!document.querySelector('script[src*="rulings-index.js"]'))
          script(staticUrl("rulings-index.js"), () => reject(new Unavailable("no search index")));
      });
    }
    return manifestAsked;
  };

  /** A part of the index (see shards.py), loaded once. */
  const load = (name) => {
    if (parts.has(name)) return Promise.resolve(parts.get(name));
    if (!waiting.has(name)) {
      let resolve;
      let reject;
      const promise = new Promise((yes, no) => {
        resolve = yes;
        reject = no;
      });
      const asked = waiting; // a newer manifest's map is not this load's
      asked.set(name, { promise, resolve, reject });
      script(staticUrl(`search/${name}.js?v=${manifest.version}`), () => {
        if (asked.get(name)?.promise === promise) asked.delete(name);
        reject(new Unavailable(`no part ${name} of the search index`));
        // a newer index may have dropped it: the manifest again, once for its
        // version (offline, a kept manifest would be loaded again and again)
        if (manifest && !whole && failedFor !== manifest.version) {
          failedFor = manifest.version;
          renewManifest("failed");
        }
      });
    }
    return waiting.get(name).promise;
  };

  let renewing = false;
  // why the manifest is being loaded again: "failed" (a part did not load:
  // the index may be newer, or the network gone), "stale", "format"
  let renewedWhy = new Set();
  /** The manifest again, bypassing the cache: the parts are of a newer index. */
  const renewManifest = (why) => {
    renewedWhy.add(why);
    if (renewing) return;
    renewing = true;
    script(staticUrl(`rulings-index.js?renew=${Date.now()}`));
  };

  let renewedFor = null; // the manifest's version last loaded again as stale: once each
  let failedFor = null; // the version last loaded again for a part that failed: once each
  let otherFormat = false; // whether a manifest of another format was loaded again
  /** The parts hold an id the manifest does not (a ruling added since the
   * manifest was loaded: its epoch is the same): the manifest loaded again,
   * once for each version, and the search shown again. */
  const stale = () => {
    if (whole || !manifest || renewedFor === manifest.version) return;
    renewedFor = manifest.version;
    renewManifest("stale");
  };
  class Stale extends Error {}
  /** A part of the index that could not be loaded (offline: not kept). */
  class Unavailable extends Error {}

  const addPart = (name, epoch, data) => {
    if (!manifest) {
      renewManifest("stale");
      return;
    }
    if (epoch !== manifest.epoch) { // a part of another index: its manifest, once
      const wait = waiting.get(name);
      waiting.delete(name);
      if (wait) wait.reject(new Stale(`part ${name} is of another index`));
      stale();
      return;
    }
    parts.set(name, data);
    const wait = waiting.get(name);
    waiting.delete(name);
    if (wait) wait.resolve(data);
  };

  const loadAll = (names) => Promise.all([...new Set(names)].map(load));

  // -- keys ---------------------------------------------------------------------------

  /** 32-bit FNV-1a over the key's code points: shards.py's fnv(). */
  const fnv = (key) => {
    let h = 0x811c9dc5;
    for (const char of key) h = Math.imul(h ^ char.codePointAt(0), 0x01000193) >>> 0;
    return h;
  };
  const shardOf = (key) => `k${fnv(key) % manifest.shards}`;
  const charShardOf = (key) => `u${fnv(key) % manifest.chars}`;
  const chars = (text) => Array.from(text);
  let alone = new Set(); // the bigrams that are parts of their own (shards.py's alone_name)
  const gramShardOf = (gram) => (alone.has(gram)
    ? `g${chars(gram).map((char) => char.codePointAt(0).toString(16)).join("_")}`
    : shardOf(gram));
  const spellingKey = (spelling) => chars(spelling).slice(0, 2).join("");
  const monthKey = (month) => `@${month}`;

  // -- dates ----------------------------------------------------------------------------

  const pad = (n) => String(n).padStart(2, "0");
  const fullYear = (y) => (y.length === 4 ? Number(y) : Number(y) + (Number(y) >= 70 ? 1900 : 2000));
  const DAY = /^(\d{4}|\d{2})[/.\-年](\d{1,2})[/.\-月](\d{1,2})日?$/u;
  const MONTH = /^(\d{4}|\d{2})[/.\-年](\d{1,2})月?$/u;
  const YEAR = /^(\d{4})年?$/u;

  /** The days or months a folded term names: ["2017-03-24"], ["2017-03"], a
   * year's twelve months, or none. */
  const datesOf = (term) => {
    let m = DAY.exec(term);
    if (m) {
      const [month, day] = [Number(m[2]), Number(m[3])];
      if (month >= 1 && month <= 12 && day >= 1 && day <= 31)
        return [{ day: `${fullYear(m[1])}-${pad(month)}-${pad(day)}` }];
      return [];
    }
    m = MONTH.exec(term);
    if (m) {
      const month = Number(m[2]);
      return month >= 1 && month <= 12 ? [{ month: `${fullYear(m[1])}-${pad(month)}` }] : [];
    }
    m = YEAR.exec(term);
    if (m) return Array.from({ length: 12 }, (_, i) => ({ month: `${m[1]}-${pad(i + 1)}` }));
    return [];
  };

  // -- the query ------------------------------------------------------------------------

  /** What a word that is no spelling finds: a day (written in full, however
   * written) by its date only; a month or a year by its dates and as text;
   * any other word as text. */
  const dateOrText = (text) => {
    const dates = datesOf(text);
    if (dates.length === 1 && dates[0].day) return dates;
    return [{ text }, ...dates];
  };

  /** The spelling entry of a folded text: [key, page, name, spellings], or null. */
  const spelling = (text) => {
    if (whole) return null;
    const shard = parts.get(shardOf(spellingKey(text)));
    return (shard && shard.n && shard.n[text]) || null;
  };

  /** What a term's alternative needs loaded: its shards. */
  const shardsOf = (alternative) => {
    if (alternative.day) return [shardOf(monthKey(alternative.day.slice(0, 7)))];
    if (alternative.month) return [shardOf(monthKey(alternative.month))];
    const cps = chars(alternative.text);
    if (cps.length === 1) return [charShardOf(cps[0])];
    return coverOf(cps).map((k) => gramShardOf(cps[k] + cps[k + 1]));
  };

  /** The offsets of the bigrams that cover a text of these code points. */
  const coverOf = (cps) => {
    const offsets = [];
    for (let k = 0; k + 2 <= cps.length; k += 2) offsets.push(k);
    if (offsets[offsets.length - 1] !== cps.length - 2) offsets.push(cps.length - 2);
    return offsets;
  };

  /** The query's terms, each with its alternatives: its space-separated words,
   * folded; a run of words that is a card's spelling once joined is one
   * term, which finds every spelling of the card; a date, every way of
   * writing it.  Loads the shards that say which words are spellings. */
  const analyse = async (query) => {
    // a word typed between brackets as the pages write a name, 「旋风」, is
    // the name (a reader's round trip: its rulings were found, but not its
    // card page); brackets inside a phrase stay its text
    const words = query.split(/\s+/u)
      .map((word) => BRACKETED.exec(word)?.slice(1).find(Boolean) ?? word)
      .map(fold).filter(Boolean);
    if (!whole) {
      // the shards that say which runs of words are spellings, and (most
      // words are terms of their own) each word's own, in one round trip
      const needed = [];
      for (let i = 0; i < words.length; i++) {
        for (let j = i + 1; j <= words.length; j++)
          needed.push(shardOf(spellingKey(words.slice(i, j).join(""))));
        needed.push(...dateOrText(words[i]).flatMap(shardsOf));
      }
      await loadAll(needed);
    }
    const terms = [];
    for (let i = 0; i < words.length; ) {
      let j = words.length;
      while (j > i + 1 && !spelling(words.slice(i, j).join(""))) j--;
      const text = words.slice(i, j).join("");
      i = j;
      if (terms.some((term) => term.text === text)) continue;
      const card = spelling(text);
      const alternatives = card ? card[3].map((spelled) => ({ text: spelled })) : dateOrText(text);
      if (card && !card[3].includes(text)) alternatives.push({ text });
      terms.push({ text, card, alternatives });
    }
    return terms;
  };

  // -- matching -------------------------------------------------------------------------

  const decoded = new Map(); // bigram or character -> Map(doc -> positions) or [docs]

  /** The documents that contain a bigram, with its positions there. */
  const gram = (key) => {
    if (decoded.has(key)) return decoded.get(key);
    const shard = parts.get(gramShardOf(key));
    const entry = shard && shard.g && shard.g[key];
    const map = new Map();
    if (entry) {
      let doc = -1;
      for (let i = 0; i < entry.length; i += 2) {
        doc += entry[i];
        const where = entry[i + 1];
        if (typeof where === "number") map.set(doc, [where]);
        else {
          // the first position, then the gaps between them
          const positions = [where[0]];
          for (let j = 1; j < where.length; j++) positions.push(positions[j - 1] + where[j]);
          map.set(doc, positions);
        }
      }
    }
    decoded.set(key, map);
    return map;
  };

  const gaps = (list) => {
    const docs = [];
    let doc = -1;
    for (const gap of list) docs.push((doc += gap));
    return docs;
  };

  /** The documents with this one character. */
  const character = (key) => {
    if (decoded.has(key)) return decoded.get(key);
    const shard = parts.get(charShardOf(key));
    const docs = shard && shard.c && shard.c[key] ? gaps(shard.c[key]) : [];
    decoded.set(key, docs);
    return docs;
  };

  /** The documents of a day, or of the days of a month. */
  const dated = (alternative) => {
    const month = alternative.day ? alternative.day.slice(0, 7) : alternative.month;
    const shard = parts.get(shardOf(monthKey(month)));
    const days = (shard && shard.d && shard.d[month]) || {};
    if (alternative.day) return days[alternative.day.slice(8)] ? gaps(days[alternative.day.slice(8)]) : [];
    return Object.values(days).flatMap(gaps);
  };

  /** The documents whose haystack holds the text (an exact substring match). */
  const holding = (text) => {
    const cps = chars(text);
    if (cps.length === 1) return character(cps[0]);
    const offsets = coverOf(cps);
    const lists = offsets.map((k) => gram(cps[k] + cps[k + 1]));
    if (lists.length === 1) return [...lists[0].keys()];
    let rarest = 0;
    lists.forEach((list, i) => {
      if (list.size < lists[rarest].size) rarest = i;
    });
    const found = [];
    for (const [doc, positions] of lists[rarest]) {
      const at = lists.map((list) => list.get(doc));
      if (at.some((p) => !p)) continue;
      const starts = positions.map((p) => p - offsets[rarest]);
      if (starts.some((start) => offsets.every((k, i) => at[i].includes(start + k))))
        found.push(doc);
    }
    return found;
  };

  /** The documents that match a term: any of its alternatives. */
  const termDocs = (term) => {
    const found = new Set();
    for (const alternative of term.alternatives) {
      let docs;
      if (whole) docs = whole.holding(alternative);
      else if (alternative.text !== undefined) docs = holding(alternative.text);
      else docs = dated(alternative);
      for (const doc of docs) found.add(doc);
    }
    return found;
  };

  /** For each term, the documents that match it: the shards needed are loaded first. */
  const matchTerms = async (terms) => {
    if (!whole) await loadAll(terms.flatMap((term) => term.alternatives.flatMap(shardsOf)));
    return terms.map(termDocs);
  };

  /** Whether a document is a ruling; and the rulings' order, newest first.  The
   * index's ids (rulings_index.py, layout.py): the section texts first, then
   * the rulings, oldest first, each id its rank but those the manifest's
   * "ranks" give (an incremental build's documents added since the index was
   * made whole); an index of format 1 holds its rulings alone, newest first. */
  let ranks = new Map();
  let sectionRanks = new Map();
  const rank = (doc) => ranks.get(doc) ?? doc;
  const sectionRank = (number) => sectionRanks.get(number) ?? number;
  const isRuling = (doc) => (whole ? doc < whole.entries.length : doc >= manifest.texts);
  const newestFirst = (a, b) => (whole ? a - b : rank(b) - rank(a));

  /** The rulings that match every term, newest first (their ids). */
  const rulingsOf = (matched) => {
    if (!matched.length) return [];
    const [first, ...others] = [...matched].sort((a, b) => a.size - b.size);
    const known = whole ? Infinity : manifest.texts + manifest.rulings;
    const found = [...first].filter((doc) => isRuling(doc) && others.every((set) => set.has(doc)));
    if (found.some((doc) => doc >= known)) stale();
    return found.filter((doc) => doc < known).sort(newestFirst);
  };

  /** The chunk entries of some documents of one kind ('r' rulings, 'b' texts). */
  const entriesOf = async (docs, kind) => {
    if (whole) return docs.map((doc) => whole.entries[doc]);
    const offset = kind === "r" ? manifest.texts : 0;
    const names = docs.map((doc) => `${kind}${Math.floor((doc - offset) / manifest.chunk)}`);
    await loadAll(names);
    const entries = docs.map((doc, i) => parts.get(names[i])[(doc - offset) % manifest.chunk]);
    // a chunk loaded before a ruling was added; or one newer than the manifest,
    // naming a section number the manifest does not know (layout.py)
    const unknown = (number) => !sectionOf(number);
    if (entries.some((entry) => entry == null || (kind === "r"
      ? entry[3].some((place) => unknown(place[0])) : unknown(entry[0])))) {
      stale();
      throw new Stale("the index changed: its manifest is loaded again");
    }
    return entries;
  };

  const count = (text, term) => {
    let n = 0;
    for (let i = text.indexOf(term); i > -1; i = text.indexOf(term, i + term.length)) n++;
    return n;
  };

  /** Rulings (ids) in the order asked for; relevance loads every match's entry. */
  const ordered = async (docs, terms, order) => {
    if (order !== "relevance" || docs.length < 2) return docs;
    const entries = await entriesOf(docs, "r");
    const score = new Map(docs.map((doc, i) => {
      const [text, other, keys] = entries[i];
      const folded = fold(text);
      const otherFolded = other ? fold(other) : "";
      const linked = terms.filter((term) =>
        term.card ? keys.includes(term.card[0]) : keys.includes(term.text)).length;
      const hits = terms.reduce((n, term) =>
        n + term.alternatives.reduce((m, alt) => m + (alt.text === undefined ? 0
          : count(folded, alt.text) || count(otherFolded, alt.text)), 0), 0);
      return [doc, [linked, hits, text.length]];
    }));
    return [...docs].sort((a, b) => {
      const [cardsA, hitsA, lengthA] = score.get(a);
      const [cardsB, hitsB, lengthB] = score.get(b);
      return cardsB - cardsA || hitsB - hitsA || lengthA - lengthB || newestFirst(a, b);
    });
  };

  let table = null; // the other script's characters and the index's (the part "t")

  /** The query in the index's script, where the index has the other
   * script's characters (other_scripts.py): each character in the part "t"
   * as its Simplified one; null where none is, or the part cannot load. */
  const inIndexScript = async (query) => {
    if (whole || !manifest.script) return null;
    if (table === null || table.generation !== generation) {
      const asked = generation;
      const [others, own] = (await load("t")).map((text) => [...text]);
      table = { generation: asked, map: new Map(others.map((char, i) => [char, own[i]])) };
    }
    const converted = [...query].map((char) => table.map.get(char) || char).join("");
    return converted === query ? null : converted;
  };

  /** A search: the terms, the documents of each, the rulings in order.  A
   * term that finds nothing as typed is searched in the index's script
   * (傷害步驟 finds 伤害步骤): a query that finds something loads nothing more. */
  const searching = async (query, order) => {
    const asked = generation;
    let terms = await analyse(query);
    let matched = await matchTerms(terms);
    if (matched.some((docs) => !docs.size)) {
      const converted = await inIndexScript(query).catch(() => null); // offline: as typed
      const converting = converted === null ? null
        : analyse(converted).then(async (again) => [again, await matchTerms(again)]);
      // offline, the converted terms' parts may be missing: the query as typed
      const [again, found] = converting ? await converting.catch(() => [null, null]) : [null, null];
      if (again !== null) {
        if (again.length === terms.length) {
          terms = terms.map((term, i) => (matched[i].size ? term : again[i]));
          matched = matched.map((docs, i) => (docs.size ? docs : found[i]));
        } else if (found.every((docs) => docs.size)) { // its words made other terms
          terms = again;
          matched = found;
        }
      }
    }
    const rulings = await ordered(rulingsOf(matched), terms, order);
    return { asked, query, order, terms, matched, rulings };
  };

  /** The last search, asked again: the search page's sections search the
   * query its rulings were searched for. */
  let last = { key: null, promise: null };
  const search = (query, order) => {
    const key = `${generation}\u0000${order}\u0000${query}`;
    if (last.key !== key) {
      const promise = searching(query, order);
      last = { key, promise };
      promise.catch(() => {
        if (last.promise === promise) last = { key: null, promise: null };
      });
    }
    return last.promise;
  };
  const current = (result) => result.asked === generation;

  // -- format 1: a whole index in one file ------------------------------------------------

  /** An index of format 1 (every ruling in the index's one file), searched
   * by reading every ruling: as an index of format 2 whose parts are all
   * loaded. */
  const prepareWhole = (index) => {
    const entries = [];
    const haystacks = [];
    const days = [];
    for (const [section, anchor, text, dates, iso, flags, cardIds, other] of index.rulings) {
      const keys = cardIds.map((i) => index.cards[i]);
      entries.push([text, other || "", keys, [[section, anchor, dates, iso, flags]]]);
      haystacks.push([fold(text), other ? fold(other) : "", ...keys].join(SEPARATOR));
      days.push(iso ? iso.split(" ") : []);
    }
    // newest first, page order: as format 2's ids
    const order = entries.map((_, i) => i);
    const newest = days.map((list) => list.reduce((a, b) => (b > a ? b : a), ""));
    order.sort((a, b) => (newest[a] < newest[b]) - (newest[a] > newest[b]) || a - b);
    const at = (list) => order.map((i) => list[i]);
    const sorted = { entries: at(entries), haystacks: at(haystacks), days: at(days) };
    sorted.holding = (alternative) => {
      const found = [];
      sorted.haystacks.forEach((haystack, doc) => {
        const hit = alternative.text !== undefined ? haystack.includes(alternative.text)
          : sorted.days[doc].some((day) =>
            alternative.day ? day === alternative.day : day.startsWith(alternative.month));
        if (hit) found.push(doc);
      });
      return found;
    };
    return sorted;
  };

  const setIndex = (index) => {
    if (index.format !== 1 && index.format !== FORMAT && !otherFormat) {
      otherFormat = true; // a manifest a cache kept from an older build: this build's, once
      renewing = false;
      renewedWhy = new Set();
      renewManifest("format");
      return;
    }
    const why = renewedWhy;
    renewedWhy = new Set();
    if (manifest && why.size === 1 && why.has("failed") && index.version !== undefined
        && index.version === manifest.version && index.epoch === manifest.epoch
        && index.rulings === manifest.rulings) {
      // loaded again only for a part that failed, and the index is the same:
      // the failure was the network's; the parts loaded and the results shown stay
      renewing = false;
      return;
    }
    const renewed = manifest !== null;
    generation += 1;
    renewing = false;
    parts = new Map();
    waiting = new Map();
    decoded.clear();
    if (index.format === 1) {
      whole = prepareWhole(index);
      manifest = { format: 1, labels: index.labels, pages: index.pages.map((p) => [...p, 1]),
                   sections: index.sections.map((s) => [...s, 0]), rulings: index.rulings.length,
                   texts: 0 };
    } else {
      whole = null;
      manifest = index;
    }
    alone = new Set(manifest.alone || []);
    ranks = new Map(manifest.ranks || []);
    sectionRanks = new Map(manifest.section_ranks || []);
    labels = manifest.labels;
    listeners.splice(0).forEach((resolve) => resolve(manifest));
    if (renewed) rerun.forEach((again) => again());
    else if (document.getElementById("search-results")) {
      if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", searchPage);
      else searchPage();
    }
  };

  // -- what a result shows ----------------------------------------------------------------

  let labels = {};
  const rerun = []; // what shows results again once a new manifest is set

  const element = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  const pageUrl = (uri) => root() + uri;
  const sectionOf = (number) => manifest.sections[number];
  const pageOf = (number) => manifest.pages[sectionOf(number)[0]];

  /** Where a ruling is: 页面 › 小节. */
  const where = (place) => {
    const [page, , sectionTitle] = sectionOf(place[0]);
    const pageTitle = manifest.pages[page][1];
    return sectionTitle && sectionTitle !== pageTitle ? `${pageTitle} › ${sectionTitle}` : pageTitle;
  };
  const placeUrl = (place) => `${pageUrl(pageOf(place[0])[0])}#${place[1]}`;

  /** Where the terms are in a text: [start, end) ranges, merged. */
  const matches = (text, other, terms) => {
    const { folded, starts, ends } = foldWithPositions(text);
    const otherFolded = other ? fold(other) : "";
    const texts = [folded];
    // a match in the other script's text, where it lines up with this one
    if (otherFolded.length === folded.length) texts.push(otherFolded);
    const ranges = [];
    for (const term of terms)
      for (const alternative of term.alternatives) {
        const wanted = alternative.text;
        if (!wanted) continue;
        for (const haystack of texts)
          for (let i = haystack.indexOf(wanted); i > -1; i = haystack.indexOf(wanted, i + 1))
            ranges.push([starts[i], ends[i + wanted.length - 1]]);
      }
    ranges.sort((a, b) => a[0] - b[0]);
    const merged = [];
    for (const range of ranges) {
      const last = merged[merged.length - 1];
      if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
      else merged.push([...range]);
    }
    return merged;
  };

  /** The text in an element, with <mark> around the matches and <del>
   * around the struck words (*struck*: their ranges, where some are). */
  const highlighted = (tag, className, text, other, terms, struck = []) => {
    // marked as this query's matches alone: not also as an earlier search's
    // terms by Sphinx's highlighting (class nohighlight; a reader's round trip
    // saw a mark inside a mark)
    const node = element(tag, `${className} nohighlight`);
    const marked = matches(text, other, terms);
    const cuts = [...new Set([0, text.length, ...marked.flat(), ...struck.flat()])]
      .filter((at) => at >= 0 && at <= text.length).sort((a, b) => a - b);
    const within = (ranges, at) => ranges.some(([start, end]) => start <= at && at < end);
    for (let i = 0; i + 1 < cuts.length; i++) {
      const [start, end] = [cuts[i], cuts[i + 1]];
      let piece = within(marked, start) ? element("mark", "nohighlight", text.slice(start, end))
        : document.createTextNode(text.slice(start, end));
      if (within(struck, start)) {
        const del = element("del", "ruling-result-struck-words nohighlight");
        del.append(piece);
        piece = del;
      }
      node.append(piece);
    }
    return node;
  };

  /** Where a ruling's text is shown in a few lines (the sidebar's list): from
   * a little before its first match, with … before it, where that match is
   * further in than the lines show (a reader's round trip: the item was cut
   * before the word searched for).  ``[text, other, terms, struck]`` for
   * :func:`highlighted`, the struck words' ranges moved with the text. */
  const AROUND = { after: 36, before: 12 };
  const around = (entry, terms) => {
    const [text, other, , , struck = []] = entry;
    const first = matches(text, other, terms)[0];
    if (!first || first[0] <= AROUND.after) return [text, other, terms, struck];
    const start = first[0] - AROUND.before;
    const moved = struck.map(([from, to]) => [from - start + 1, to - start + 1])
      .filter(([, to]) => to > 1).map(([from, to]) => [Math.max(from, 1), to]);
    const otherShown = other && other.length === text.length ? `…${other.slice(start)}` : "";
    return [`…${text.slice(start)}`, otherShown, terms, moved];
  };

  const dateMatches = (written, iso, terms) => terms.some((term) => term.alternatives.some(
    (alternative) => (alternative.text && (fold(written).includes(alternative.text)
                                             || iso.includes(alternative.text)))
      || (alternative.day && iso === alternative.day)
      || (alternative.month && iso.startsWith(alternative.month))));

  /** The labels of a place's status: 已推翻 for a struck ruling, else those
   * of its flags (裁定变更, 调整中, 已过时), each followed by a space. */
  const statusLabels = (place) => {
    const found = [];
    const struck = place[4] & STRUCK;
    if (struck) found.push(element("span", "ruling-status ruling-status-struck", labels.struck), " ");
    for (const [flag, name] of [[CHANGED, "changed"], [OPEN, "open"], [SUPERSEDED, "superseded"]])
      if (!struck && place[4] & flag && labels[name])
        found.push(element("span", `ruling-status ruling-status-${name}`, labels[name]), " ");
    return found;
  };

  /** A ruling of the search page's list. */
  const item = (entry, terms) => {
    const [text, other, , places, struckWords] = entry;
    const place = places[0];
    const struck = place[4] & STRUCK;
    const li = element("li", struck ? "ruling-result ruling-result-struck" : "ruling-result");
    li.dataset.anchor = place[1];
    li.append(highlighted("p", "ruling-result-text", text, other, terms, struckWords));
    const meta = element("p", "ruling-result-meta");
    const written = place[2] ? place[2].split(" ") : [];
    const iso = place[3] ? place[3].split(" ") : [];
    written.forEach((date, i) => {
      const span = element("span", "ruling-result-date", date);
      if (dateMatches(date, iso[i] || "", terms)) span.classList.add("ruling-result-date-match");
      if (iso[i]) span.title = iso[i];
      meta.append(span, " ");
    });
    meta.append(...statusLabels(place));
    const link = element("a", "ruling-result-link", where(place));
    link.setAttribute("href", placeUrl(place));
    meta.append(link);
    li.append(meta);
    if (places.length > 1) {
      // one ruling once: its other places
      const also = element("p", "ruling-result-also", `${labels.also} `);
      places.slice(1).forEach((other, i) => {
        const otherLink = element("a", "ruling-result-also-link", where(other));
        otherLink.setAttribute("href", placeUrl(other));
        if (i) also.append("、");
        also.append(otherLink);
        if (other[2] && other[2] !== place[2]) also.append(` (${other[2]})`);
      });
      li.append(also);
    }
    return li;
  };

  /** The links to the pages of the cards the query names. */
  const cardLinks = (terms, className) => terms.filter((term) => term.card && term.card[1]).map(
    (term) => {
      const link = element("a", className, labels.card.replace("{name}", term.card[2]));
      link.setAttribute("href", pageUrl(term.card[1]));
      return link;
    });

  // -- the search page ------------------------------------------------------------------

  let ui = null;
  let shownQuery = null; // the query Sphinx's place below shows the sections of
  let shown = { result: null, count: 0, next: null, loading: null, fetchNext: null };

  /** How near below the screen the button for the next rulings loads them. */
  const NEAR = 2000;
  let nearMore = null; // watches the button while it is far below the screen

  /** The button for the next rulings: shown while there are more.  Once it
   * is near the screen, the next rulings are loaded; while they load, it says
   * so (aria-disabled) but still takes a click, which shows them once they
   * are there, or says why they are not (a disabled button ignored a click
   * that came as the load began, and a load that failed then said nothing;
   * it lost the focus too).  A click before, far below, loads them and
   * shows them. */
  const prepareMore = (result) => {
    if (nearMore) nearMore.disconnect();
    nearMore = null;
    if (shown.count >= result.rulings.length) {
      ui.more.hidden = true;
      return;
    }
    ui.more.hidden = false;
    ui.more.removeAttribute("aria-disabled");
    const fetchNext = () => {
      if (shown.result !== result || shown.next || shown.loading) return shown.loading;
      ui.more.setAttribute("aria-disabled", "true");
      const end = Math.min(shown.count + PAGE_SIZE, result.rulings.length);
      shown.loading = entriesOf(result.rulings.slice(shown.count, end), "r").then((entries) => {
        if (shown.result !== result) return;
        shown.next = entries;
        shown.loading = null;
        ui.more.removeAttribute("aria-disabled");
      }, (error) => {
        // a click asks again (offline, a part not kept fails each time)
        if (shown.result === result) {
          shown.loading = null;
          ui.more.removeAttribute("aria-disabled");
        }
        throw error;
      });
      return shown.loading;
    };
    shown.fetchNext = fetchNext;
    // the observer says at once whether the button is near already; asking
    // the button's place here would lay the page out before the results are
    // painted (a long task of its own on a phone)
    if ("IntersectionObserver" in window) {
      nearMore = new IntersectionObserver((seen) => {
        if (seen.some((entry) => entry.isIntersecting)) {
          nearMore.disconnect();
          fetchNext()?.catch(logged); // loaded ahead: a click says what failed
        }
      }, { rootMargin: `0px 0px ${NEAR}px 0px` });
      nearMore.observe(ui.more);
    } else fetchNext()?.catch(logged);
  };

  // pressed: whether the reader pressed the button (by keyboard, or a tap that
  // focused it), asked when pressed: the focus may move while its rulings load
  const showMore = (event, pressed = document.activeElement === ui.more) => {
    const { result, next } = shown;
    if (!next) {
      const loading = shown.fetchNext && shown.fetchNext();
      if (loading) loading.then(() => showMore(null, pressed)).catch((error) => {
        logged(error);
        // the rulings shown stay: only the next ones are missing
        if (error instanceof Unavailable && shown.result === result)
          ui.status.textContent = labels.unavailable || "";
      });
      return;
    }
    shown.next = null;
    // a failure said before, by a click since: the count again
    const found = labels.found.replace("{count}", result.rulings.length);
    if (ui.status.textContent !== found) ui.status.textContent = found;
    const fragment = document.createDocumentFragment();
    for (const entry of next) fragment.append(item(entry, result.terms));
    const first = fragment.firstElementChild;
    ui.list.append(fragment);
    shown.count += next.length;
    prepareMore(result);
    // the focus goes to the first ruling added, where reading goes on (the
    // button moves below them, or goes once the last are shown)
    if (pressed && first) first.querySelector("a.ruling-result-link")?.focus();
  };

  /** Search for what the box holds and show the rulings found. */
  const run = () => {
    const query = ui.input.value;
    const order = ui.form.elements.order.value;
    return show(query, order).catch((error) => {
      logged(error);
      // a search typed since, which did not fail, keeps its results
      if (error instanceof Unavailable && ui.input.value === query
          && ui.form.elements.order.value === order) {
        shown = { result: null, count: 0, next: null, loading: null, fetchNext: null };
        ui.status.textContent = labels.unavailable || "";
        ui.cards.replaceChildren();
        ui.list.replaceChildren();
        ui.more.hidden = true;
        ui.hint.hidden = true; // Enter would find no more offline (a reader's round trip)
      }
    });
  };

  const show = async (query, order) => {
    const result = await search(query, order);
    if (!current(result) || ui.input.value !== query || ui.form.elements.order.value !== order)
      return;
    shown = { result, count: 0, next: null, loading: null, fetchNext: null };
    const entries = await entriesOf(result.rulings.slice(0, PAGE_SIZE), "r");
    if (shown.result !== result) return;
    ui.cards.replaceChildren(...cardLinks(result.terms, "ruling-card-page"));
    ui.list.replaceChildren();
    if (!result.terms.length) ui.status.textContent = "";
    else if (!result.rulings.length) ui.status.textContent = labels.none;
    else ui.status.textContent = labels.found.replace("{count}", result.rulings.length);
    const fragment = document.createDocumentFragment();
    for (const entry of entries) fragment.append(item(entry, result.terms));
    ui.list.append(fragment);
    shown.count = entries.length;
    prepareMore(result);
    ui.section.dataset.query = query;
    ui.section.dataset.order = order;
    // the sections below are for the query the page was opened with
    const sphinxResults = document.getElementById("search-results");
    if (sphinxResults) sphinxResults.hidden = query.trim() !== shownQuery.trim();
    // what Enter would do is on the page already: its sections, below
    ui.hint.hidden = !!sphinxResults && !sphinxResults.hidden && !!query.trim();
    return result;
  };

  const radio = (value, label, checked) => {
    const wrapper = element("label", "ruling-order-choice");
    const input = element("input");
    input.type = "radio";
    input.name = "order";
    input.value = value;
    input.checked = checked;
    wrapper.append(input, ` ${label}`);
    return wrapper;
  };

  /** The box, the order switch and the list, above the sections. */
  const build = () => {
    const params = new URLSearchParams(window.location.search);
    shownQuery = params.get("q") || "";
    const section = element("section", "ruling-search");
    section.id = "ruling-results";
    const heading = element("h2", "", labels.heading);
    const form = element("form", "ruling-search-form");
    form.setAttribute("role", "search");
    form.action = "";
    form.method = "get";
    const input = element("input", "ruling-search-input");
    input.type = "search";
    input.name = "q";
    input.id = "ruling-query";
    input.value = shownQuery;
    input.placeholder = labels.placeholder;
    input.setAttribute("aria-label", labels.query);
    input.autocomplete = "off";
    const switcher = element("fieldset", "ruling-order");
    const relevance = params.get("order") === "relevance";
    switcher.append(element("legend", "", labels.order),
      radio("newest", labels.newest, !relevance), radio("relevance", labels.relevance, relevance));
    form.append(input, switcher);
    const cards = element("p", "ruling-card-pages");
    const status = element("p", "ruling-search-count");
    status.setAttribute("role", "status");
    const list = element("ol", "ruling-results-list");
    const more = element("button", "ruling-results-more", labels.more);
    more.type = "button";
    more.hidden = true;
    const hint = element("p", "ruling-search-hint", labels.enter);
    section.append(heading, form, cards, status, list, more, hint);
    const anchor = document.getElementById("search-results");
    if (anchor) anchor.before(section);
    else (document.querySelector('[role="main"]') || document.body).append(section);
    ui = { section, form, input, cards, status, list, more, hint };
    // the address says the query (a reload or a shared link finds it again),
    // written once the reader pauses: replaceState costs a phone about a
    // frame, which each keystroke would wait for
    let addressPending = null; // the timer of an address not yet written
    // the first query typed on an entry of the history is an entry of its own,
    // the next ones replace it: Back leads to the search before (a reader's
    // round trip: the query the page was opened with could not be reached)
    let pushed = false;
    const address = () => {
      clearTimeout(addressPending);
      addressPending = null;
      const url = new URL(window.location.href);
      url.searchParams.set("q", input.value);
      url.searchParams.set("order", form.elements.order.value);
      if (url.href === window.location.href) return;
      if (pushed) window.history.replaceState(null, "", url);
      else window.history.pushState(null, "", url);
      pushed = true;
    };
    // Back or Forward to an entry of this page (or to this page kept by the
    // browser, showing another): the entry's query, searched again
    const follow = () => {
      clearTimeout(addressPending);
      addressPending = null;
      pushed = false;
      const params = new URLSearchParams(window.location.search);
      const query = params.get("q") || "";
      const order = params.get("order") === "relevance" ? "relevance" : "newest";
      if (input.value === query && form.elements.order.value === order) return;
      input.value = query;
      form.elements.order.value = order;
      run();
    };
    window.addEventListener("popstate", follow);
    window.addEventListener("pageshow", (event) => { if (event.persisted) follow(); });
    // Enter: the page again for the query, its sections below too, in place of
    // the entry the query has (its own since it was typed): one entry a search
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      address();
      window.location.replace(window.location.href);
    });
    const typed = () => {
      run();
      clearTimeout(addressPending);
      addressPending = setTimeout(address, ADDRESS_PAUSE);
    };
    const switched = () => {
      run();
      address();
    };
    window.addEventListener("pagehide", () => { if (addressPending !== null) address(); });
    input.addEventListener("input", typed);
    switcher.addEventListener("change", switched);
    more.addEventListener("click", showMore);
  };

  /** A load that failed, in the console.  Where it leaves the reader without
   * what was asked, the caller says so on the page (offline, the parts a
   * search needs may not have been kept): labels.unavailable. */
  const logged = (error) => {
    if (!(error instanceof Stale)) console.error("rulings_search:", error);
  };

  const searchPage = () => {
    build();
    const first = run();
    rerun.push(run);
    const query = shownQuery.trim();
    if (query) first.then(() => sections(query));
  };

  // -- sections: Sphinx's place on the search page -----------------------------------------

  const gettext = (text) =>
    typeof Documentation !== "undefined" ? Documentation.gettext(text) : text;
  const ngettext = (one, many, n) =>
    typeof Documentation !== "undefined" ? Documentation.ngettext(one, many, n) : n === 1 ? one : many;

  /** The sections whose own text (their text outside rulings, and their
   * rulings) says every term; a page whose sections say them only together
   * is a result itself.  In page order, then section order. */
  const sectionResults = async (matched) => {
    if (!matched.length || whole || matched.some((docs) => !docs.size)) return [];
    const of = await load("s");
    // (a number the manifest does not know: s.js newer than it, or older)
    const searchable = (number) => {
      if (sectionOf(number)) return manifest.pages[sectionOf(number)[0]][2];
      stale();
      return false;
    };
    // a section's snippet comes from its newest ruling that matched, else its text
    const first = (a, b) => isRuling(b) - isRuling(a)
      || (isRuling(a) ? newestFirst(a, b) : rank(a) - rank(b));
    const perTerm = matched.map((docs) => {
      const found = new Map(); // section -> the first document of it that matched
      for (const doc of [...docs].sort(first)) {
        const at = of[doc];
        if (at == null) { // s.js loaded before a ruling was added
          stale();
          continue;
        }
        for (const number of typeof at === "number" ? [at] : at)
          if (searchable(number) && !found.has(number)) found.set(number, doc);
      }
      return found;
    });
    const pagesOf = (found) => new Set([...found.keys()].map((number) => sectionOf(number)[0]));
    const pages = perTerm.map(pagesOf);
    const both = [...pages[0]].filter((page) => pages.every((set) => set.has(page)));
    const sectionsMatched = [...perTerm[0].keys()].filter(
      (number) => perTerm.every((found) => found.has(number)));
    const results = [];
    const seen = new Set();
    const add = (page, anchor, title, doc) => {
      const key = `${page}#${anchor}`;
      if (seen.has(key)) return;
      seen.add(key);
      results.push({ page, anchor, title, doc });
    };
    for (const page of both.sort((a, b) => a - b)) {
      const [, pageTitle] = manifest.pages[page];
      const here = sectionsMatched.filter((number) => sectionOf(number)[0] === page)
        .sort((a, b) => sectionRank(a) - sectionRank(b));
      if (!here.length) add(page, "", pageTitle, null);
      for (const number of here) {
        const [, ident, title, top] = sectionOf(number);
        const doc = perTerm[0].get(number);
        if (top || !ident) add(page, "", pageTitle, doc);
        else add(page, `#${ident}`, `${pageTitle} > ${title}`, doc);
      }
    }
    return results;
  };

  /** A snippet of a document's text around the first match, as Sphinx's;
   * a ruling's struck words struck, as in the results above (a reader's round
   * trip: an overturned ruling read as current there). */
  const snippet = async (doc, terms) => {
    const ruling = isRuling(doc);
    const [entry] = await entriesOf([doc], ruling ? "r" : "b");
    const text = ruling ? entry[0] : entry[1];
    const { folded, starts } = foldWithPositions(text);
    const found = terms.flatMap((term) => term.alternatives)
      .filter((alternative) => alternative.text)
      .map((alternative) => folded.indexOf(alternative.text)).filter((i) => i > -1);
    let start = found.length ? Math.max(starts[Math.min(...found)] - 120, 0) : 0;
    const cut = text.substr(start, 240);
    const shown = cut.trim();
    start += cut.length - cut.trimStart().length;
    // overturned where each of its places is; else the words struck, if any
    const struck = !ruling ? []
      : entry[3].every((place) => place[4] & STRUCK) ? [[0, text.length]] : entry[4] || [];
    const summary = highlighted("p", "context", shown, "", [],
                                struck.map(([from, to]) => [from - start, to - start]));
    if (start > 0) summary.prepend("...");
    if (start + shown.length < text.length) summary.append("...");
    return summary;
  };

  /** Sphinx's results, in Sphinx's shape (#search-results), from the index. */
  const sections = async (query) => {
    const out = document.getElementById("search-results");
    const title = element("h2", "", gettext("Searching"));
    const summary = element("p", "search-summary");
    const list = element("ul", "search");
    list.setAttribute("role", "list");
    out.replaceChildren(title, summary, list);
    let result, results;
    try {
      result = await search(query, "newest");
      if (!current(result)) return;
      results = await sectionResults(result.matched);
    } catch (error) {
      logged(error);
      if (error instanceof Unavailable) {
        // said once: above, where the rulings could not load either (offline)
        if (ui && ui.status.textContent === labels.unavailable) out.replaceChildren();
        else {
          title.textContent = gettext("Search Results");
          summary.textContent = labels.unavailable || "";
        }
      }
      return;
    }
    const terms = result.terms;
    const highlight = terms.flatMap((term) => term.alternatives)
      .filter((alternative) => alternative.text).map((alternative) => alternative.text);
    try {
      localStorage.setItem("sphinx_highlight_terms", [query.trim().toLowerCase(), ...highlight].join(" "));
    } catch (error) {
      // storage may be off: no highlighting on the pages opened
    }
    const observer = "IntersectionObserver" in window ? new IntersectionObserver((seen) => {
      for (const { target, isIntersecting } of seen) {
        if (!isIntersecting) continue;
        observer.unobserve(target);
        const doc = Number(target.dataset.doc);
        // a snippet that fails to load leaves the section's link alone
        snippet(doc, terms).then((p) => target.append(p)).catch(logged);
      }
    }) : null;
    // in batches, each its own task: hundreds of results are no long task
    for (let start = 0; start < results.length; start += 50) {
      if (start) await new Promise((resolve) => setTimeout(resolve));
      const fragment = document.createDocumentFragment();
      for (const found of results.slice(start, start + 50)) {
        const li = element("li", "kind-text");
        const link = element("a", "", found.title);
        link.setAttribute("href", pageUrl(manifest.pages[found.page][0]) + found.anchor);
        li.append(link);
        if (found.doc !== null && observer) {
          li.dataset.doc = found.doc;
          observer.observe(li);
        }
        fragment.append(li);
      }
      list.append(fragment);
    }
    const pageCount = new Set(results.map((found) => found.page)).size;
    title.textContent = gettext("Search Results");
    summary.textContent = !results.length ? gettext(
      "Your search did not match any documents. Please make sure that all words are spelled correctly and that you've selected enough categories.",
    ) : ngettext(
      "Search finished, found one page matching the search query.",
      "Search finished, found ${resultCount} pages matching the search query.",
      pageCount,
    ).replace("${resultCount}", pageCount);
  };

  // -- the search box of every page ---------------------------------------------------------

  let boxes = 0;

  /** Results as the reader types in a page's search box (see search_box.py):
   * a combobox whose list shows the card pages the query names, the first
   * rulings and a last option, every result; arrows move in it, Enter opens
   * the option chosen (without one, the search page), Escape closes it. */
  const attachBox = (input) => {
    if (input.dataset.rulingSearch) return;
    input.dataset.rulingSearch = "on";
    boxes += 1;
    const form = input.form;
    const id = `handbook-search-options-${boxes}`;
    const list = element("ul", "handbook-search-options");
    list.id = id;
    list.setAttribute("role", "listbox");
    // not a Tab stop: the options are the box's (aria-activedescendant), and a
    // list that scrolls would take the focus from the box, then hide, losing it
    list.tabIndex = -1;
    list.hidden = true;
    const status = element("p", "handbook-search-status");
    status.setAttribute("role", "status");
    (form || input).after(list, status);
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", id);
    input.setAttribute("autocomplete", "off");
    let options = [];
    let active = -1;
    let asked = 0;

    const close = () => {
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
      active = -1;
    };
    const activate = (i) => {
      options.forEach((option, j) => option.setAttribute("aria-selected", String(i === j)));
      active = i;
      if (i < 0) input.removeAttribute("aria-activedescendant");
      else {
        input.setAttribute("aria-activedescendant", options[i].id);
        options[i].scrollIntoView({ block: "nearest" });
      }
    };
    /** Open an option's address.  A ruling of this very page: the list and
     * a phone's navigation drawer close, and the ruling takes the focus (the
     * reader's round trip: the menu stayed open over it, the focus on the
     * page's body). */
    const go = (href) => {
      const target = new URL(href, window.location.href);
      const here = new URL(window.location.href);
      let element = null;
      if (target.hash && target.origin === here.origin && target.pathname === here.pathname
          && target.search === here.search) {
        try {
          element = document.getElementById(decodeURIComponent(target.hash.slice(1)));
        } catch (error) {
          element = null; // an address that is no id: opened as any other
        }
      }
      if (!element) {
        window.location.href = href;
        return;
      }
      close();
      const drawer = document.getElementById("__navigation");
      if (drawer && drawer.checked) {
        drawer.checked = false;
        drawer.dispatchEvent(new Event("change", { bubbles: true }));
      }
      if (window.location.hash !== target.hash) window.location.hash = target.hash;
      else element.scrollIntoView();
      if (!element.hasAttribute("tabindex")) element.setAttribute("tabindex", "-1");
      element.focus({ preventScroll: true });
    };
    const option = (href, className) => {
      const li = element("li", `handbook-search-option ${className}`);
      li.id = `${id}-${options.length}`;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      li.dataset.href = href;
      li.addEventListener("mousedown", (event) => event.preventDefault()); // the box keeps focus
      li.addEventListener("click", () => go(href));
      options.push(li);
      return li;
    };
    const fullResults = () => {
      const action = form ? form.getAttribute("action") : `${root()}search.html`;
      return `${action}?q=${encodeURIComponent(input.value)}`;
    };

    const update = async () => {
      const query = input.value;
      const ask = ++asked;
      if (!query.trim()) {
        close();
        list.replaceChildren();
        status.textContent = "";
        return;
      }
      await ready();
      const result = await search(query, "newest");
      const entries = await entriesOf(result.rulings.slice(0, BOX_SIZE), "r");
      if (ask !== asked || !current(result)) return;
      options = [];
      const items = [];
      for (const link of cardLinks(result.terms, "")) {
        const li = option(link.getAttribute("href"), "handbook-search-card");
        li.append(link.textContent);
        items.push(li);
      }
      for (const entry of entries) {
        const place = entry[3][0];
        // struck and flagged as on the search page (a reader's round trip: an
        // overturned ruling was listed as any other)
        const li = option(placeUrl(place), place[4] & STRUCK
          ? "handbook-search-ruling handbook-search-struck" : "handbook-search-ruling");
        const meta = element("span", "handbook-search-where");
        meta.append(...statusLabels(place), `${where(place)} · ${place[2]}`);
        li.append(highlighted("span", "handbook-search-text", ...around(entry, result.terms)),
          meta);
        items.push(li);
      }
      const all = option(fullResults(), "handbook-search-all");
      all.textContent = result.rulings.length
        ? labels.found.replace("{count}", result.rulings.length) : labels.none;
      items.push(all);
      list.replaceChildren(...items);
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
      active = -1;
      input.removeAttribute("aria-activedescendant");
      status.textContent = all.textContent;
      list.dataset.query = query;
    };
    const updated = () => {
      const query = input.value;
      update().catch((error) => {
        logged(error);
        if (error instanceof Unavailable && input.value === query) {
          close();
          list.replaceChildren();
          status.textContent = labels.unavailable || "";
        }
      });
    };
    rerun.push(() => { if (!list.hidden) updated(); });

    input.addEventListener("input", updated);
    input.addEventListener("keydown", (event) => {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        if (list.hidden) {
          if (input.value.trim()) updated();
          return;
        }
        event.preventDefault();
        const step = event.key === "ArrowDown" ? 1 : -1;
        const next = active + step;
        activate(next < -1 ? options.length - 1 : next >= options.length ? -1 : next);
      } else if (event.key === "Enter") {
        if (!list.hidden && active >= 0) {
          event.preventDefault();
          go(options[active].dataset.href);
        }
      } else if (event.key === "Escape") {
        if (!list.hidden) {
          event.preventDefault();
          close();
        }
      }
    });
    input.addEventListener("blur", close);
    input.addEventListener("focus", () => { if (input.value.trim()) updated(); });
    ready().catch(logged); // the next search says it, where the reader looks
    // a manifest loaded again (the index changed): the open list shown again
    rerun.push(() => { if (document.activeElement === input && input.value.trim()) updated(); });
    if (document.activeElement === input && input.value.trim()) updated();
  };

  return {
    fold, setIndex, addPart, attachBox, ready,
    /** The rulings of a query, newest first: their permalinks (for tests). */
    find: async (query, order) => {
      await ready();
      const result = await search(query, order || "newest");
      const entries = await entriesOf(result.rulings, "r");
      return entries.map((entry) => `${pageOf(entry[3][0][0])[0]}#${entry[3][0][1]}`);
    },
  };
})();
