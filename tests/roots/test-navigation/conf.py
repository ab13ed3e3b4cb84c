# A handbook's shapes of toctrees, for the navigation every page shows
# (handbook/speed/toctree_cache.py); the project's _ext/ is on sys.path (tests/conftest.py)
extensions = ['handbook.speed.toctree_cache']
html_theme = 'furo'
language = 'zh_CN'
