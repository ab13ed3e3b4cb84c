# the project's _ext/ is on sys.path (tests/conftest.py, tools/check.py)
extensions = ['handbook.rulings.dates']
