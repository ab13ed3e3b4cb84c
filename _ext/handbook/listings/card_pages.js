/* The filter 与另一张卡 of a card page (card_pages.py): shows only the rulings
 * that name a second card.  Served as _static/handbook-card-pages.js after
 * `const HANDBOOK_CARD_SEPARATORS` (core/names.py's SEPARATOR_CLASS).
 *
 * Each ruling is an <li class="card-ruling" data-cards="key key …"> (folded
 * registry keys); the suggestions are the <datalist>'s options, each with
 * data-key (its folded name) and data-names (its other names, folded; none
 * where it has none).  The typed text is folded as
 * names.fold folds (NFKC, separators removed, lower case); the rulings shown
 * are those naming the card whose name is exactly the text, else every card
 * whose name contains it.  Empty text, or a name of the page's own card
 * (data-own, folded): every ruling.
 *
 * A card page of several parts (cards/<id>_2.html …) lists part of the
 * rulings: the form says which part it is (data-part), each suggestion the
 * parts whose rulings name it (data-parts, "1 3").  The status counts this
 * part's rulings, and a line names the other parts that have some, each a
 * link to it that carries the text (?card=…), as do the links of the parts'
 * bars; a part opened with ?card=… filters at once.  The text typed is kept
 * in the page's own address the same way (replaceState, once the reader
 * pauses or leaves the box), so that Back to the page filters it again. */
(() => {
  "use strict";
  const SEPARATORS = new RegExp(`${HANDBOOK_CARD_SEPARATORS}+`, "gu");
  const fold = (text) => text.normalize("NFKC").replace(SEPARATORS, "").toLowerCase();

  const setUp = (form) => {
    const input = form.querySelector("input");
    const status = form.querySelector(".card-filter-status");
    const cards = [...form.querySelectorAll("datalist option")].map((option) => ({
      key: option.dataset.key,
      name: option.value,
      names: [fold(option.value), option.dataset.key,
              ...(option.dataset.names || "").split(" ")].filter(Boolean),
      parts: (option.dataset.parts || "").split(" ").filter(Boolean),
    }));
    const elsewhere = form.querySelector(".card-filter-elsewhere");
    const bars = [...document.querySelectorAll(".card-page-parts a")].map((link) => ({
      link,
      href: link.getAttribute("href"),
    }));
    const rulings = [...document.querySelectorAll("li.card-ruling")].map((item) => ({
      item,
      keys: new Set(item.dataset.cards.split(" ")),
    }));
    const format = (template, values) =>
      template.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? values[name] : whole));

    // the other parts whose rulings name one of *wanted*, each a link carrying the text
    const showElsewhere = (wanted) => {
      const text = input.value.trim();
      for (const { link, href } of bars) {
        link.setAttribute("href", text ? `${href}?card=${encodeURIComponent(text)}` : href);
      }
      if (!elsewhere) return;
      const parts = [...new Set(wanted.flatMap((card) => card.parts))]
        .filter((part) => part !== form.dataset.part)
        .sort((a, b) => Number(a) - Number(b));
      elsewhere.replaceChildren();
      elsewhere.hidden = !parts.length;
      if (!parts.length) return;
      elsewhere.append(form.dataset.elsewhere);
      parts.forEach((part, i) => {
        const bar = bars.find(({ link }) => link.textContent === part);
        if (!bar) return;
        if (i) elsewhere.append("、");
        const link = document.createElement("a");
        link.setAttribute("href", `${bar.href}?card=${encodeURIComponent(text)}`);
        link.textContent = format(form.dataset.partText, { page: part });
        elsewhere.append(link);
      });
    };

    // the page's own card, by any of its names: every ruling names it
    const own = new Set((form.dataset.own || "").split(" ").filter(Boolean));
    const apply = () => {
      const query = fold(input.value);
      if (!query || own.has(query)) {
        rulings.forEach(({ item }) => { item.hidden = false; });
        status.textContent = "";
        showElsewhere([]);
        return;
      }
      const exact = cards.filter((card) => card.names.includes(query));
      const wanted = exact.length ? exact : cards.filter(
        (card) => card.names.some((name) => name.includes(query)));
      const keys = new Set(wanted.map((card) => card.key));
      let count = 0;
      for (const { item, keys: named } of rulings) {
        const shown = [...keys].some((key) => named.has(key));
        item.hidden = !shown;
        if (shown && !item.closest("details")) count += 1;
      }
      const name = wanted.length === 1 ? wanted[0].name : input.value.trim();
      status.textContent = format(count ? form.dataset.some : form.dataset.none,
                                  { count, name });
      showElsewhere(wanted);
    };
    // the name typed is kept in the page's address (?card=…), written once the
    // reader pauses or leaves the box: a ruling opened, then Back, finds the
    // page filtered as it was, with or without the browser's back-forward cache
    let pending = 0;
    const remember = () => {
      clearTimeout(pending);
      const url = new URL(location.href);
      const text = input.value.trim();
      if (text) url.searchParams.set("card", text);
      else url.searchParams.delete("card");
      if (url.href !== location.href) history.replaceState(history.state, "", url);
    };
    input.addEventListener("input", () => {
      apply();
      clearTimeout(pending);
      pending = setTimeout(remember, 500);
    });
    input.addEventListener("change", remember);
    form.addEventListener("submit", (event) => { event.preventDefault(); apply(); remember(); });
    const asked = new URLSearchParams(location.search).get("card");
    if (asked && !input.value) input.value = asked;  // from another part's link
    if (input.value) apply();  // that, or a value the browser kept (back button)
  };

  const start = () => document.querySelectorAll("form.card-filter").forEach(setUp);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
