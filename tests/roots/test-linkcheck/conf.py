# the project's _ext/ is on sys.path (tests/conftest.py); the test writes
# index.rst with links to a server it runs on 127.0.0.1
extensions = ['handbook.publishing.linkcheck_policy']
linkcheck_timeout = 5
linkcheck_retries = 1
linkcheck_workers = 1
