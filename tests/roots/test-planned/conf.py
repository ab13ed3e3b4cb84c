# the project's _ext/ is on sys.path (tests/conftest.py)
extensions = ['handbook.sections.planned']
handbook_planned_sections = ['调整中', '已写']
