/*
 * search_box.js: results as the reader types in a page's search box
 * (search_box.py; its docstring is the manual).  Served as
 * _static/handbook-search-box.js, on every page, deferred.  It does nothing
 * until the reader focuses the box: then it loads the search script
 * (_static/rulings_search.js, the version this page was written with),
 * which loads the index's manifest and turns the box into a combobox.
 */
(() => {
  "use strict";
  const own = document.currentScript;
  const engineUrl = new URL(`rulings_search.js?v=${own.dataset.version}`, own.src).href;
  let loading = null;

  const engine = () => {
    if (typeof RulingSearch !== "undefined") return Promise.resolve();
    if (!loading) {
      loading = new Promise((resolve, reject) => {
        const script = document.createElement("script");
        script.src = engineUrl;
        script.async = true;
        script.addEventListener("load", resolve);
        script.addEventListener("error", () => {
          loading = null;
          reject(new Error("the search script did not load"));
        });
        document.head.append(script);
      });
    }
    return loading;
  };

  const start = (event) => {
    const input = event.currentTarget;
    engine()
      .then(() => RulingSearch.attachBox(input))
      .catch((error) => console.error("search_box:", error));
  };

  // furo's box, and the one of the themes built on Sphinx's basic (alabaster)
  const BOXES = 'input.sidebar-search, #searchbox input[name="q"]';
  const setUp = () => {
    for (const input of document.querySelectorAll(BOXES))
      input.addEventListener("focus", start, { once: true });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
