"""Publishing: editions, the site's address, link previews, page dates, linkcheck's policy,
files of the site written only when they change, reading offline."""

from handbook import setup_concern


def setup(app):
    return setup_concern(app, 'handbook.publishing.editions', 'handbook.publishing.site_urls',
                         'handbook.publishing.link_previews', 'handbook.publishing.page_dates',
                         'handbook.publishing.linkcheck_policy',
                         'handbook.publishing.unchanged_files', 'handbook.publishing.offline')
