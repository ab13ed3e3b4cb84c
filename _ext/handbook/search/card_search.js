/*
 * card_search.js: the browser side of card_search.py (its docstring is
 * the manual).  Sphinx serves it inside language_data.js, which the search
 * page loads after searchtools.js, right after `const CARD_KEYS = [...]`
 * (the folded registry names) and `const CARD_NAME_SEPARATORS` (what folding
 * removes).  It replaces searchtools'
 * splitQuery, Search.query and Search.makeSearchSummary.
 */

const CardSearch = ((cardKeys) => {
  // whitespace and middle dots: CARD_NAME_SEPARATORS, core/names.py's SEPARATOR_CLASS
  const SEPARATOR = new RegExp(CARD_NAME_SEPARATORS, "u");
  const SEPARATORS = new RegExp(`${CARD_NAME_SEPARATORS}+`, "gu");
  const PUNCTUATION = /[^\p{L}\p{N}_]+/u;

  /** The search key of a text: fold() in core/names.py. */
  const key = (text) =>
    text.normalize("NFKC").replace(SEPARATORS, "").toLowerCase();

  /** The key of a text, with the position in the text of each character. */
  const keyWithPositions = (text) => {
    let folded = "";
    const positions = [];
    let at = 0;
    for (const char of text) {
      for (const part of char.normalize("NFKC").toLowerCase()) {
        if (SEPARATOR.test(part)) continue;
        folded += part;
        for (let i = 0; i < part.length; i++) positions.push(at);
      }
      at += char.length;
    }
    return [folded, positions];
  };

  // the lengths of the card keys by first character, longest first
  const lengths = new Map();
  for (const card of cardKeys) {
    if (!lengths.has(card[0])) lengths.set(card[0], []);
    if (!lengths.get(card[0]).includes(card.length)) lengths.get(card[0]).push(card.length);
  }
  lengths.forEach((list) => list.sort((a, b) => b - a));

  /** The card names in a folded text, leftmost and longest first: NameFinder.find(). */
  const cardsIn = (folded) => {
    const found = new Set();
    for (let i = 0; i < folded.length; ) {
      const length = (lengths.get(folded[i]) || []).find((n) =>
        cardKeys.has(folded.slice(i, i + n)),
      );
      if (length) found.add(folded.slice(i, i + length));
      i += length || 1;
    }
    return found;
  };

  const has = (object, term) => Object.prototype.hasOwnProperty.call(object, term);
  const isWord = (term) =>
    has(Search._index.terms, term) || has(Search._index.titleterms, term);
  const isName = (term) => cardKeys.has(term) || isWord(term);

  /** A piece that is no word of the index, as the longest index words it is
   * made of, the way jieba cut the pages (single characters are not indexed). */
  const segment = (piece) => {
    if (piece.length < 3 || isWord(piece)) return [piece];
    const words = [];
    for (let i = 0; i < piece.length; ) {
      let j = piece.length;
      while (j > i + 1 && !isWord(piece.slice(i, j))) j--;
      if (j > i + 1) {
        words.push(piece.slice(i, j));
        i = j;
      } else i += 1;
    }
    return words.length ? words : [piece];
  };

  /** The index words to look up, and the phrases a result must contain. */
  const analyse = (query) => {
    const terms = [];
    const phrases = [];
    const words = query.split(/\s+/u).filter((word) => word);
    for (let i = 0; i < words.length; ) {
      // the longest run of words that is a card name or a word of the index
      let j = words.length;
      while (j > i && !isName(key(words.slice(i, j).join("")))) j--;
      if (j > i) {
        const name = key(words.slice(i, j).join(""));
        terms.push(name);
        phrases.push(name);
        i = j;
        continue;
      }
      for (const piece of words[i].split(PUNCTUATION)) {
        const phrase = key(piece);
        if (!phrase) continue;
        phrases.push(phrase);
        terms.push(...segment(phrase));
      }
      i += 1;
    }
    return { terms, phrases };
  };

  /** Whether a text contains every phrase; a card name counts where it is
   * written, not inside a longer name. */
  const contains = (text, phrases) => {
    const folded = key(text);
    let cards = null;
    return phrases.every((phrase) => {
      if (!cardKeys.has(phrase)) return folded.includes(phrase);
      cards = cards || cardsIn(folded);
      return cards.has(phrase);
    });
  };

  const pageUrl = (docName) => {
    const root = document.documentElement.dataset.content_root;
    if (DOCUMENTATION_OPTIONS.BUILDER === "dirhtml")
      return root + (docName === "index" ? "" : docName.replace(/\/?index$/, "") + "/");
    return root + docName + DOCUMENTATION_OPTIONS.FILE_SUFFIX;
  };

  /** Text of an element without header links, what Sphinx does not index
   * (class no-search: related sections) and (optionally) subsections. */
  const textOf = (element, withSubsections) => {
    const copy = element.cloneNode(true);
    const drop = withSubsections ? ".headerlink, .no-search" : ".headerlink, .no-search, section";
    copy.querySelectorAll(drop).forEach((el) => el.remove());
    return copy.textContent;
  };

  const HEADING = ":scope > h1, :scope > h2, :scope > h3, :scope > h4, :scope > h5, :scope > h6";

  /** Sphinx's page results as results for the sections that contain the
   * phrases; pages that do not contain them are dropped.  Results are in
   * the order shown. */
  const toSections = async (results, phrases) => {
    const pages = new Map();
    const load = (docName) => {
      if (!pages.has(docName))
        pages.set(
          docName,
          fetch(pageUrl(docName))
            .then((response) => (response.ok ? response.text() : null))
            .then((html) => html && new DOMParser().parseFromString(html, "text/html"))
            .catch(() => null),
        );
      return pages.get(docName);
    };
    const shown = [];
    const seen = new Set();
    const add = (result) => {
      if (seen.has(result[0] + result[2])) return;
      seen.add(result[0] + result[2]);
      shown.push(result);
    };
    // searchtools shows its results from the last to the first
    for (const result of [...results].reverse()) {
      const [docName, title, anchor, , score, filename, kind] = result;
      if (kind !== SearchResultKind.text || anchor) {
        add(result);
        continue;
      }
      const page = await load(docName);
      const main = page && page.querySelector('[role="main"]');
      if (!main) {
        add(result); // the page cannot be read here (file://): keep it
        continue;
      }
      if (!contains(textOf(main, true), phrases)) continue;
      const sections = [...main.querySelectorAll("section[id]")].filter((section) =>
        contains(textOf(section, false), phrases),
      );
      if (!sections.length) add(result);
      for (const section of sections) {
        const heading = section.querySelector(HEADING);
        // the page itself where the section is the page, or its id leads elsewhere
        const top = !section.parentElement.closest("section")
          || page.getElementById(section.id) !== section;
        add([
          docName,
          top || !heading ? title : `${title} > ${textOf(heading, true).trim()}`,
          top ? "" : "#" + section.id,
          null,
          score,
          filename,
          kind,
        ]);
      }
    }
    return shown;
  };

  let currentPhrases = [];

  /** Search.query: Sphinx's search, then the sections of its pages. */
  const query = (text) => {
    const [searchQuery, searchTerms, excludedTerms, highlightTerms, objectTerms] =
      Search._parseQuery(text);
    const results = Search._performSearch(
      searchQuery, searchTerms, excludedTerms, highlightTerms, objectTerms,
    );
    currentPhrases = analyse(text).phrases;
    // the summaries highlight the query as typed too (a card name with spaces)
    highlightTerms.add(text.trim().toLowerCase());
    const show = (shown) => {
      const pageCount = new Set(shown.map((result) => result[0])).size;
      _displayNextItem([...shown].reverse(), pageCount, searchTerms, highlightTerms);
    };
    toSections(results, currentPhrases)
      .then(show)
      .catch((error) => {
        console.error("card_search:", error);
        show([...results].reverse());
      });
  };

  /** Search.makeSearchSummary: Sphinx's summary, around the first phrase
   * (and, unlike Sphinx's, an empty one rather than null where there is no text). */
  const makeSearchSummary = (htmlText, keywords, anchor) => {
    const text = Search.htmlToText(htmlText, anchor);
    const [folded, positions] = keyWithPositions(text);
    const found = currentPhrases
      .map((phrase) => folded.indexOf(phrase))
      .filter((i) => i > -1);
    const start = found.length ? Math.max(positions[Math.min(...found)] - 120, 0) : 0;
    const summary = document.createElement("p");
    summary.classList.add("context");
    summary.textContent =
      (start > 0 ? "..." : "") +
      text.substr(start, 240).trim() +
      (start + 240 < text.length ? "..." : "");
    return summary;
  };

  return { key, analyse, contains, query, makeSearchSummary };
})(new Set(CARD_KEYS));

if (typeof Search !== "undefined") {
  splitQuery = (query) => (Search._index ? CardSearch.analyse(query).terms : [query]);
  Search.query = CardSearch.query;
  Search.makeSearchSummary = CardSearch.makeSearchSummary;
}
