/*
 * rulings_search.js: the browser side of rulings_index.py (its docstring is
 * the manual).  Only the search page loads it, deferred, followed by
 * rulings-index.js, which calls RulingSearch.setIndex().  rulings_index.py
 * writes core/names.py's SEPARATOR_CLASS where the last line names it.
 * Every text of the index reaches the page through textContent (and
 * setAttribute for the link), never as HTML.
 */

const RulingSearch = ((CARD_NAME_SEPARATORS) => {
  const SEPARATOR = new RegExp(CARD_NAME_SEPARATORS, "u");
  const SEPARATORS = new RegExp(`${CARD_NAME_SEPARATORS}+`, "gu");
  const FIELD = "\u0001"; // between a ruling's search texts: no match spans two
  const PAGE_SIZE = 20;

  /** fold() of core/names.py: NFKC, no whitespace nor middle dots, lower case. */
  const fold = (text) => text.normalize("NFKC").replace(SEPARATORS, "").toLowerCase();

  /** The folded text, and for each of its characters the [start, end) of
   * the character of *text* it comes from. */
  const foldWithPositions = (text) => {
    let folded = "";
    const starts = [];
    const ends = [];
    let at = 0;
    for (const char of text) {
      const code = char.codePointAt(0);
      if ((code >= 0x4e00 && code <= 0x9fff) || (code > 0x20 && code < 0x7f)) {
        // a CJK ideograph or printable ASCII: NFKC leaves it as it is (fast path)
        folded += code < 0x7f ? char.toLowerCase() : char;
        starts.push(at);
        ends.push(at + 1);
        at += 1;
        continue;
      }
      for (const part of char.normalize("NFKC").toLowerCase()) {
        if (SEPARATOR.test(part)) continue;
        folded += part;
        for (let i = 0; i < part.length; i++) {
          starts.push(at);
          ends.push(at + char.length);
        }
      }
      at += char.length;
    }
    return { folded, starts, ends };
  };

  let data = null; // the index, prepared
  let cardNames = new Set(); // folded card keys and names of the index

  /** Each ruling with what matching and ordering need. */
  const prepare = (index) => {
    const { pages, sections, cards } = index;
    return index.rulings.map((entry, order) => {
      const [section, anchor, text, dates, iso, flags, cardIds, other] = entry;
      const [page, , sectionTitle] = sections[section];
      const [uri, pageTitle] = pages[page];
      const names = cardIds.map((i) => cards[i]);
      const folded = fold(text);
      const otherFolded = other ? fold(other) : "";
      const written = dates ? dates.split(" ") : [];
      const isoDates = iso ? iso.split(" ") : [];
      return {
        order, anchor, text, uri, pageTitle, sectionTitle, flags, names, folded, otherFolded,
        written, isoDates,
        newest: isoDates.reduce((a, b) => (b > a ? b : a), ""),
        haystack: [folded, otherFolded, ...written.map(fold), ...isoDates, ...names].join(FIELD),
      };
    });
  };

  /** The query's terms: its space-separated words, folded (so a middle dot
   * does not cut a phrase); a run of words that is a card name once joined
   * is one term. */
  const terms = (query) => {
    const words = query.split(/\s+/u).filter((word) => word);
    const found = [];
    for (let i = 0; i < words.length; ) {
      let j = words.length;
      while (j > i + 1 && !cardNames.has(fold(words.slice(i, j).join("")))) j--;
      const term = fold(words.slice(i, j).join(""));
      if (term && !found.includes(term)) found.push(term);
      i = j;
    }
    return found;
  };

  const count = (text, term) => {
    let n = 0;
    for (let i = text.indexOf(term); i > -1; i = text.indexOf(term, i + term.length)) n++;
    return n;
  };

  /** Newest first; rulings of one date in page order. */
  const newer = (a, b) => (a.newest < b.newest) - (a.newest > b.newest) || a.order - b.order;

  // the last search: a query typed further only narrows it
  let last = { terms: [], found: [] };

  /** The rulings that match every term, in the order asked for. */
  const search = (queryTerms, order) => {
    if (!data || !queryTerms.length) return [];
    // what matches terms that each hold the last search's term matches that
    // search too: look among its rulings only
    const narrows = last.terms.length
      && last.terms.every((term, i) => i < queryTerms.length && queryTerms[i].includes(term));
    // the rulings are kept newest first: what is found is in that order
    const found = (narrows ? last.found : data.rulings).filter((ruling) =>
      queryTerms.every((term) => ruling.haystack.includes(term)),
    );
    last = { terms: queryTerms, found };
    if (order !== "relevance") return found;
    const score = new Map(found.map((ruling) => [ruling, [
      queryTerms.filter((term) => ruling.names.includes(term)).length,
      queryTerms.reduce((n, term) =>
        n + (count(ruling.folded, term) || count(ruling.otherFolded, term)), 0),
    ]]));
    return [...found].sort((a, b) => {
      const [cardsA, hitsA] = score.get(a);
      const [cardsB, hitsB] = score.get(b);
      return cardsB - cardsA || hitsB - hitsA || a.text.length - b.text.length || newer(a, b);
    });
  };

  // -- the page ----------------------------------------------------------------------

  const element = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  /** Where the terms are in the ruling's text: [start, end) ranges, merged. */
  const matches = (ruling, queryTerms) => {
    const { folded, starts, ends } = foldWithPositions(ruling.text);
    const ranges = [];
    for (const term of queryTerms) {
      // a match in the other script's text, where it lines up with this one
      const texts = [folded];
      if (ruling.otherFolded.length === folded.length) texts.push(ruling.otherFolded);
      for (const text of texts) {
        for (let i = text.indexOf(term); i > -1; i = text.indexOf(term, i + 1))
          ranges.push([starts[i], ends[i + term.length - 1]]);
      }
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

  /** The text, with <mark> around the matches. */
  const highlighted = (ruling, queryTerms) => {
    const paragraph = element("p", "ruling-result-text");
    let at = 0;
    for (const [start, end] of matches(ruling, queryTerms)) {
      if (start > at) paragraph.append(ruling.text.slice(at, start));
      paragraph.append(element("mark", "", ruling.text.slice(start, end)));
      at = end;
    }
    if (at < ruling.text.length) paragraph.append(ruling.text.slice(at));
    return paragraph;
  };

  const pageUrl = (uri) => {
    const root = document.documentElement.dataset.content_root || "";
    return (root === "./" ? "" : root) + uri;
  };

  const item = (ruling, queryTerms) => {
    const li = element("li", ruling.flags & 2 ? "ruling-result ruling-result-struck" : "ruling-result");
    li.dataset.anchor = ruling.anchor;
    li.append(highlighted(ruling, queryTerms));
    const meta = element("p", "ruling-result-meta");
    ruling.written.forEach((date, i) => {
      const span = element("span", "ruling-result-date", date);
      const forms = [fold(date), ruling.isoDates[i] || ""];
      if (queryTerms.some((term) => forms.some((form) => form.includes(term))))
        span.classList.add("ruling-result-date-match");
      if (ruling.isoDates[i]) span.title = ruling.isoDates[i];
      meta.append(span, " ");
    });
    if (ruling.flags & 2)
      meta.append(element("span", "ruling-status ruling-status-struck", labels.struck), " ");
    else if (ruling.flags & 1)
      meta.append(element("span", "ruling-status ruling-status-changed", labels.changed), " ");
    const where = ruling.sectionTitle && ruling.sectionTitle !== ruling.pageTitle
      ? `${ruling.pageTitle} › ${ruling.sectionTitle}` : ruling.pageTitle;
    const link = element("a", "ruling-result-link", where);
    link.setAttribute("href", `${pageUrl(ruling.uri)}#${ruling.anchor}`);
    meta.append(link);
    li.append(meta);
    return li;
  };

  let labels = {};
  let ui = null;
  let shownQuery = null; // the query Sphinx's results below are for
  let current = { terms: [], results: [], shown: 0 };

  const showMore = () => {
    const { terms: queryTerms, results } = current;
    const end = Math.min(current.shown + PAGE_SIZE, results.length);
    const fragment = document.createDocumentFragment();
    for (let i = current.shown; i < end; i++) fragment.append(item(results[i], queryTerms));
    ui.list.append(fragment);
    current.shown = end;
    ui.more.hidden = end >= results.length;
  };

  /** Search for what the box holds and show the rulings found. */
  const run = () => {
    const query = ui.input.value;
    const order = ui.form.elements.order.value;
    const queryTerms = terms(query);
    current = { terms: queryTerms, results: search(queryTerms, order), shown: 0 };
    ui.list.replaceChildren();
    if (!queryTerms.length) ui.status.textContent = "";
    else if (!current.results.length) ui.status.textContent = labels.none;
    else ui.status.textContent = labels.found.replace("{count}", current.results.length);
    showMore();
    ui.section.dataset.query = query;
    ui.section.dataset.order = order;
    // Sphinx's section results are for the query the page was opened with
    const sphinxResults = document.getElementById("search-results");
    if (sphinxResults) sphinxResults.hidden = query.trim() !== shownQuery.trim();
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

  /** The box, the order switch and the list, above Sphinx's results. */
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
    const status = element("p", "ruling-search-count");
    status.setAttribute("role", "status");
    const list = element("ol", "ruling-results-list");
    const more = element("button", "ruling-results-more", labels.more);
    more.type = "button";
    more.hidden = true;
    const hint = element("p", "ruling-search-hint", labels.enter);
    section.append(heading, form, status, list, more, hint);
    const anchor = document.getElementById("search-results");
    if (anchor) anchor.before(section);
    else (document.querySelector('[role="main"]') || document.body).append(section);
    ui = { section, form, input, status, list, more };
    const changed = () => {
      const url = new URL(window.location.href);
      url.searchParams.set("q", input.value);
      url.searchParams.set("order", form.elements.order.value);
      window.history.replaceState(null, "", url);
      run();
    };
    input.addEventListener("input", changed);
    switcher.addEventListener("change", changed);
    more.addEventListener("click", showMore);
  };

  const setIndex = (index) => {
    labels = index.labels;
    cardNames = new Set(index.cards);
    data = { rulings: prepare(index).sort(newer) };
    const start = () => {
      build();
      run();
    };
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
    else start();
  };

  return { fold, terms, search: (query, order) => search(terms(query), order), setIndex };
})(/* CARD_NAME_SEPARATORS */ null);
