# the project's _ext/ is on sys.path (tests/conftest.py)
extensions = ['planned_sections']
handbook_planned_sections = ['调整中', '已写']
