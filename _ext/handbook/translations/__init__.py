"""Translations: catalogs, card names in any language, the language switcher."""

from handbook import setup_concern


def setup(app):
    return setup_concern(app, 'handbook.translations.catalogs')
