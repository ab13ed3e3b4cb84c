# the project's _ext/ is on sys.path (tests/conftest.py)
extensions = ['handbook.listings.timeline']
