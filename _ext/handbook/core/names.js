/*
 * names.js: core/names.py's fold() in the browser, the one folding function
 * of the scripts that compare names (the search's, served at the head of
 * _static/rulings_search.js).  The build writes names.py's SEPARATOR_CLASS
 * where the last line names it.
 */

const HandbookNames = ((CARD_NAME_SEPARATORS) => {
  const SEPARATOR = new RegExp(CARD_NAME_SEPARATORS, "u");
  const SEPARATORS = new RegExp(`${CARD_NAME_SEPARATORS}+`, "gu");

  /** fold() of core/names.py: NFKC, no whitespace nor middle dots, lower case. */
  const fold = (text) => text.normalize("NFKC").replace(SEPARATORS, "").toLowerCase();

  /** The folded text, and for each of its UTF-16 code units the [start, end)
   * of the character of *text* it comes from (for highlighting matches of
   * folded terms in the text as written). */
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

  return { fold, foldWithPositions };
})(/* CARD_NAME_SEPARATORS */ null);
