/* Readers' tools (handbook.publishing.reader_tools): a ruling's permalink ¶
 * and copy-link button, and the way from a card name to its card page (§).
 * None of them is in the page: one small toolbar is made when a reader
 * points at, taps or tabs into a ruling (or a block of text that names
 * cards), put at the end of it, in the text (it covers nothing), and moved
 * to the next one.
 *
 * - A ruling is an element `.ruling-line[id]`; its toolbar holds ¶ (a link to
 *   the ruling), a copy button and one § link per card the ruling names.
 *   Elsewhere a block of text that holds card links gets their § links.
 * - The copy button copies the address the reader is on, without its
 *   fragment, with "#" and the ruling's id percent-encoded (a chat app keeps
 *   the link whole): navigator.clipboard, else a selected text copied with
 *   execCommand, else a prompt showing the address.  A polite live region
 *   says it was copied.
 * - A card link (a.card-link) leads to the database; its card page is
 *   data-card-page of this script's tag ("cards/{}.html", relative to the
 *   site's root), "{}" the link's data-card, else its text folded as card
 *   names fold (NFKC, separators removed, lower case) and made an id as
 *   section ids are (handbook.listings.card_index.derived_id).
 * - Keyboard: the toolbar follows the focus into a ruling or block, after
 *   its own links in the Tab order; Escape closes it.  Touch: a tap on the
 *   text opens it.  Every target is at least 24 x 24 px (handbook.css).
 * Everything is built with textContent and setAttribute: no HTML is parsed. */
(() => {
  'use strict';
  const script = document.currentScript;
  const data = (name) => (script && script.getAttribute('data-' + name)) || '';
  const root = document.documentElement.getAttribute('data-content_root') || '';
  const cardPage = data('card-page');
  const separators = data('separators') ? new RegExp(data('separators') + '+', 'gu') : /\s+/gu;
  const SEPARATING = /[\p{Zs}\p{Zl}\p{Zp}\p{Cc}\p{Ps}\p{Pe}\p{Pi}\p{Pf}]/u;
  const ASCII_WORD = /[0-9A-Za-z]/;
  const BLOCKS = 'p, li, dt, dd, td, th, h1, h2, h3, h4, h5, h6, div.line, caption, figcaption';

  let tools = null;  // the toolbar, made once
  let host = null;   // the ruling or block it is in
  let dismissed = null;  // closed with Escape: not opened again until left
  let article = null;

  /* The card page's id of a card link: data-card, else derived from its name. */
  function cardId(link) {
    if (link.hasAttribute('data-card')) {
      return link.getAttribute('data-card');
    }
    const folded = link.textContent.normalize('NFKC').replace(separators, '').toLowerCase();
    let id = '';
    for (const c of folded) {
      const ascii = c < '\x80';
      id += SEPARATING.test(c) || (ascii && !ASCII_WORD.test(c)) ? '-' : (ascii ? c.toLowerCase() : c);
    }
    return id.replace(/-{2,}/g, '-').replace(/^-+|-+$/g, '');
  }

  /* The address of a card link's page, or '' where it has none. */
  function cardHref(link) {
    const id = cardPage && cardId(link);
    return id ? root + cardPage.replace('{}', encodeURIComponent(id)) : '';
  }

  function main() {
    if (!article || !article.isConnected) {
      article = document.querySelector('[role="main"]') || document.body;
    }
    return article;
  }

  /* The ruling or block of text whose tools *node* asks for, or null. */
  function hostOf(node) {
    const element = node && node.nodeType === 1 ? node : node && node.parentElement;
    if (!element || !main().contains(element) || (tools && tools.contains(element))) {
      return null;
    }
    const ruling = element.closest('.ruling-line[id]');
    if (ruling) {
      return ruling;
    }
    const block = element.closest(BLOCKS);
    if (block && main().contains(block) && [...block.querySelectorAll('a.card-link')].some(cardHref)) {
      return block;
    }
    return null;
  }

  function item(tag, className, label) {
    const element = document.createElement(tag);
    element.className = 'reader-tool ' + className;
    element.setAttribute('aria-label', label);
    element.title = label;
    return element;
  }

  /* The toolbar's content for *target*: ¶ and copy for a ruling, then the § links. */
  function fill(target) {
    tools.replaceChildren();
    if (target.matches('.ruling-line[id]')) {
      const permalink = item('a', 'reader-permalink', data('permalink'));
      permalink.href = '#' + encodeURIComponent(target.id);
      permalink.textContent = '¶';
      const copy = item('button', 'reader-copy', data('copy'));
      copy.type = 'button';
      tools.append(permalink, copy);
    }
    const here = window.location.pathname;
    const seen = new Set();
    for (const link of target.querySelectorAll('a.card-link')) {
      const href = cardHref(link);
      if (!href || seen.has(href)) {
        continue;
      }
      seen.add(href);
      const url = new URL(href, window.location.href);
      if (url.pathname === here && !url.hash) {
        continue;  // this card's own page
      }
      const name = link.textContent.trim();
      const page = item('a', 'reader-card', data('card-label').replace('{}', name));
      page.href = href;
      page.textContent = name;
      tools.append(page);
    }
    return tools.childElementCount > 0;
  }

  function show(target) {
    if (target === host || target === dismissed) {
      return;
    }
    dismissed = null;
    if (!tools) {
      tools = document.createElement('span');
      tools.className = 'reader-tools';
    }
    if (!fill(target)) {
      hide();
      return;
    }
    host = target;
    target.appendChild(tools);
  }

  function hide() {
    if (tools && tools.isConnected) {
      const focused = tools.contains(document.activeElement);
      const from = host;
      tools.remove();
      host = null;
      if (focused && from) {  // the focus goes back to the ruling's first link
        dismissed = from;
        const back = from.querySelector('a[href], button');
        if (back) {
          back.focus();
        }
      }
    }
    host = null;
  }

  // -- copying ---------------------------------------------------------------------

  function announce(text) {
    let region = document.getElementById('reader-tools-status');
    if (!region) {
      region = document.createElement('span');
      region.id = 'reader-tools-status';
      region.className = 'reader-tools-status';
      region.setAttribute('role', 'status');
      region.setAttribute('aria-live', 'polite');
      document.body.appendChild(region);
    }
    region.textContent = '';
    window.setTimeout(() => { region.textContent = text; }, 50);
  }

  function copyBySelection(text) {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.top = '0';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    let done = false;
    try {
      done = document.execCommand('copy');
    } catch (error) {
      done = false;
    }
    area.remove();
    return done;
  }

  function copied(button) {
    button.classList.add('reader-copied');
    announce(data('copied'));
    window.setTimeout(() => button.classList.remove('reader-copied'), 2000);
  }

  function fallback(button, url) {
    if (copyBySelection(url)) {
      copied(button);
    } else {
      window.prompt(data('failed'), url);
    }
  }

  function copy(button) {
    const url = window.location.href.split('#')[0] + '#' + encodeURIComponent(host.id);
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(() => copied(button), () => fallback(button, url));
    } else {
      fallback(button, url);
    }
  }

  // -- furo's drawers, by keyboard (a phone's width) ---------------------------------------

  // A drawer opens with its checkbox (handbook.css makes it a Tab stop where the
  // drawer is off the screen).  Opened from the keyboard, the focus goes to its
  // first link (the contents' links come after the whole article in the Tab
  // order); Escape closes it and gives the focus back to its checkbox; the focus
  // leaving it, or a section of the contents chosen, closes it (it covered the
  // page the focus went on in, out of sight).
  const focusable = 'a[href], button:not([disabled]), input:not([type="hidden"]):not([disabled]), ' +
    'select, textarea, [tabindex]:not([tabindex="-1"])';
  for (const [id, selector] of [['__navigation', '.sidebar-drawer'], ['__toc', '.toc-drawer']]) {
    const box = document.getElementById(id);
    const drawer = document.querySelector(selector);
    if (!box || !drawer) {
      continue;
    }
    const close = () => {
      box.checked = false;
    };
    box.addEventListener('change', () => {
      if (box.checked && box.matches(':focus-visible')) {
        const first = [...drawer.querySelectorAll(focusable)].find((e) => e.offsetParent !== null);
        if (first) {
          first.focus();
        }
      }
    });
    drawer.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && box.checked && !event.defaultPrevented) {  // a list's first
        close();
        box.focus();
      }
    });
    drawer.addEventListener('focusout', (event) => {
      const next = event.relatedTarget;
      if (box.checked && next && next !== box && !drawer.contains(next)) {
        close();
      }
    });
    if (id === '__toc') {
      drawer.addEventListener('click', (event) => {
        if (box.checked && event.target.closest && event.target.closest('a[href^="#"]')) {
          close();
        }
      });
    }
  }
  // furo's skip link comes after the drawers' checkboxes: first, as a skip link is
  const skip = document.querySelector('a.skip-to-content');
  if (skip && skip.parentElement === document.body) {
    document.body.prepend(skip);
  }

  // -- events, on the document ---------------------------------------------------------

  // where the pointer last moved: content moved under a pointer at rest (the
  // page scrolled as the focus moves down it, or the toolbar itself moving the
  // text after it) sends pointerover without a move: not a reader's
  let resting = null;
  document.addEventListener('pointermove', (event) => {
    resting = [event.clientX, event.clientY];
  }, {passive: true});
  document.addEventListener('pointerover', (event) => {
    if (resting && event.clientX === resting[0] && event.clientY === resting[1]) {
      return;
    }
    const target = hostOf(event.target);
    if (target && target !== dismissed) {
      show(target);
    } else if (!target && dismissed) {
      dismissed = null;
    }
  });
  document.addEventListener('pointerdown', (event) => {
    if (tools && !tools.contains(event.target) && !hostOf(event.target)) {
      hide();
    }
  });
  document.addEventListener('focusin', (event) => {
    if (tools && tools.contains(event.target)) {
      return;
    }
    const target = hostOf(event.target);
    if (target !== dismissed) {
      dismissed = null;
    }
    if (target) {
      show(target);
    } else if (host) {
      hide();
    }
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && host) {
      hide();
    }
  });
  document.addEventListener('click', (event) => {
    const button = event.target.closest && event.target.closest('button.reader-copy');
    if (button && tools && tools.contains(button)) {
      event.preventDefault();
      copy(button);
    }
  });
})();
