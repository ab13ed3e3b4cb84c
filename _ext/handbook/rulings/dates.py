"""Dated ruling references: the date of the official answer after a ruling.

A ruling line ends with the date (YY/M/D, as the official FAQ gives it) of
the answer it reports.  Write it with the ``ruling`` role::

    | 「`手札抹杀`_」……决斗平局。\\ :ruling:`18/12/24`
    | ……\\ :ruling:`17/3/24 <https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid=19691>`
    | ……\\ :ruling:`17/3/24 <faq:19691>`

The part in angle brackets is optional: a URL (https, on a host of
``handbook_ruling_hosts``), or ``faq:<id>``, an official FAQ id from which
``handbook_faq_url`` builds the URL.  The date alone is valid: many rulings'
links were lost.  Existing handbooks' anonymous date links,
```17/3/24 <https://…fid=19691…>`__``, are recognised as the same thing, and
their FAQ id is read from the URL.

Every ruling reference renders as the date as written, a link where it has
a URL, with the CSS class ``ruling`` and the attributes ``ruling_date`` (ISO
date), ``ruling_faq`` and ``ruling_url``.  What is wrong with one is a
warning ``handbook.ruling`` at its exact file and line:

* a malformed date (``17/3``, ``2017-3-24``): write YY/M/D;
* a date that is not in the calendar (``17/2/30``, ``17/13/1``);
* a date after the day of the build;
* a URL that is not https, or whose host is not in ``handbook_ruling_hosts``;
* a FAQ id that is not a positive integer.

Two-digit years are 20YY, except 90-99, which are 19YY (the OCG began in
1999).
"""

from __future__ import annotations

import datetime
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxRole

from handbook.core.source_lines import set_location

if TYPE_CHECKING:
    from sphinx.application import Sphinx

logger = logging.getLogger(__name__)

#: the role's text: a date, optionally followed by <URL> or <faq:ID>
_ROLE_TEXT = re.compile(r'^(?P<date>[^<]*?)\s*(?:<(?P<target>[^>]*)>)?$', re.S)
#: a date as the handbook writes it
_DATE = re.compile(r'^(\d{1,2})/(\d{1,2})/(\d{1,2})$')
#: text of an anonymous link that is a date (the legacy form)
_LINK_DATE = re.compile(r'^\d{1,2}/\d{1,2}/\d{1,2}$')


def parse_date(text: str) -> tuple[datetime.date | None, str | None]:
    """``(date, None)``, or ``(None, what is wrong)``."""
    m = _DATE.match(text)
    if not m:
        return None, (f'malformed ruling date {text!r}; write the date of the '
                      'official answer as YY/M/D, e.g. 17/3/24')
    yy, month, day = (int(g) for g in m.groups())
    year = 1900 + yy if yy >= 90 else 2000 + yy
    try:
        return datetime.date(year, month, day), None
    except ValueError:
        return None, f'ruling date {text!r} is not a calendar date; check the month and the day'


def faq_id_from_url(url: str) -> str | None:
    """The ``fid`` query parameter of an official FAQ URL."""
    values = parse_qs(urlsplit(url).query).get('fid')
    return values[0] if values else None


class RulingRole(SphinxRole):
    """``:ruling:`YY/M/D```, ``:ruling:`YY/M/D <URL>```, ``:ruling:`YY/M/D <faq:ID>```."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        m = _ROLE_TEXT.match(self.text)
        date, target = m['date'].strip(), (m['target'] or '').strip()
        faq = url = None
        if target.startswith('faq:'):
            faq = target.removeprefix('faq:').strip()
            url = self.config.handbook_faq_url.format(id=faq) if faq.isdigit() else None
        elif target:
            url = target
        if url:
            node = nodes.reference(self.rawtext, date, refuri=url)
        else:
            node = nodes.inline(self.rawtext, date)
        node['classes'].append('ruling')
        node['ruling_text'] = date
        node['ruling_faq'] = faq
        node['ruling_url'] = url
        return [node], []


class RulingReferences(SphinxTransform):
    """Recognise legacy date links; validate every ruling reference."""

    default_priority = 500

    def apply(self, **kwargs: Any) -> None:
        for node in self.document.findall(nodes.reference):
            if node.get('refuri') and 'ruling' not in node['classes'] \
                    and _LINK_DATE.match(node.astext().strip()):
                node['classes'].append('ruling')
                node['ruling_text'] = node.astext().strip()
                node['ruling_url'] = node.get('refuri')
                node['ruling_faq'] = faq_id_from_url(node.get('refuri', ''))
        today = datetime.date.today()
        for node in self.document.findall(nodes.Element):
            if 'ruling_text' in node:
                self.check(node, today)

    def check(self, node: nodes.Element, today: datetime.date) -> None:
        set_location(node, node)
        date, problem = parse_date(node['ruling_text'])
        if date is not None:
            node['ruling_date'] = date.isoformat()
            if date > today:
                problem = (f'ruling date {node["ruling_text"]!r} ({date.isoformat()}) is after '
                           f'today ({today.isoformat()}); check the year')
        faq = node.get('ruling_faq')
        url = node.get('ruling_url')
        if faq is not None and not (faq.isascii() and faq.isdigit() and int(faq) > 0):
            problem = problem or f'FAQ id {faq!r} is not a positive integer; write faq:<id> as in the FAQ URL'
        elif url:
            problem = problem or self.check_url(url)
        if problem:
            logger.warning(problem, location=node, type='handbook', subtype='ruling')

    def check_url(self, url: str) -> str | None:
        parts = urlsplit(url)
        if parts.scheme != 'https':
            return f'ruling URL {url!r} is not https; link the https page'
        hosts = self.config.handbook_ruling_hosts
        if parts.hostname not in hosts:
            return (f'ruling URL host {parts.hostname!r} is not an allowed source '
                    f'({", ".join(hosts)}); add it to handbook_ruling_hosts if it is a trusted source')
        return None


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value(
        'handbook_faq_url',
        'https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid={id}&request_locale=ja',
        'env', types=frozenset({str}))
    app.add_config_value(
        'handbook_ruling_hosts',
        ['www.db.yugioh-card.com', 'yugioh-wiki.net', 'ocg-rule.readthedocs.io', 'ygocdb.com'],
        'env', types=frozenset({list, tuple}))
    app.add_role('ruling', RulingRole())
    app.add_transform(RulingReferences)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
