"""Publishing: editions, the site's address, link previews, page dates, the readers'
tools (permalinks, copy, card pages), linkcheck's policy, the published site (built
aside, swept in: published.py), reading offline; every page written again where the
site's navigation changed (handbook.render.navigation)."""

from handbook import setup_concern


def setup(app):
    return setup_concern(app, 'handbook.publishing.editions', 'handbook.publishing.site_urls',
                         'handbook.publishing.link_previews', 'handbook.publishing.page_dates',
                         'handbook.publishing.reader_tools', 'handbook.publishing.theme',
                         'handbook.publishing.linkcheck_policy',
                         'handbook.publishing.published',
                         'handbook.publishing.offline', 'handbook.render.navigation')
