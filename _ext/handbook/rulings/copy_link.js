/* Copy a ruling's permalink (handbook.rulings.lines): each ruling's
 * <button class="ruling-copy"> copies the address the reader is on, without
 * its fragment, with "#" and the ruling's id, percent-encoded.  navigator.clipboard where
 * the browser has it, else a selected text copied with execCommand, else a
 * prompt showing the address.  A polite live region says it was copied. */
(() => {
  'use strict';
  const script = document.currentScript;
  const data = (name) => (script && script.getAttribute(name)) || '';

  function permalink(button) {
    const line = button.closest('.ruling-line');
    return window.location.href.split('#')[0] + '#' + encodeURIComponent(line.id);
  }

  function announce(text) {
    let region = document.getElementById('ruling-copy-status');
    if (!region) {
      region = document.createElement('span');
      region.id = 'ruling-copy-status';
      region.className = 'ruling-copy-status';
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
    button.classList.add('ruling-copied');
    announce(data('data-copied'));
    window.setTimeout(() => button.classList.remove('ruling-copied'), 2000);
  }

  function fallback(button, url) {
    if (copyBySelection(url)) {
      copied(button);
    } else {
      window.prompt(data('data-failed'), url);
    }
  }

  function copy(button) {
    const url = permalink(button);
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(() => copied(button), () => fallback(button, url));
    } else {
      fallback(button, url);
    }
  }

  document.addEventListener('click', (event) => {
    const button = event.target.closest && event.target.closest('button.ruling-copy');
    if (button) {
      event.preventDefault();
      copy(button);
    }
  });
})();
