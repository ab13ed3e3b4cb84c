# the project's _ext/ is on sys.path (tests/conftest.py)
extensions = ['handbook.sections.ids']
html_theme = 'furo'
locale_dirs = ['locale']  # used by the test that builds with language='zh_TW'
