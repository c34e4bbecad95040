#!/usr/bin/env bash
# Install pbm with its test dependencies in .venv, make sure the services the
# tests talk to are there (PostgreSQL on 127.0.0.1:5432; Dovecot and poppler
# from Debian packages for the IMAP and PDF tests), and run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v dovecot >/dev/null 2>&1 || ! command -v pdftoppm >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing Debian packages: dovecot-imapd poppler-utils"
    (apt-get install -y -q dovecot-imapd poppler-utils >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q dovecot-imapd poppler-utils >/dev/null; }) \
      || echo "warning: could not install dovecot-imapd/poppler-utils; the IMAP and PDF-image tests will say so"
  fi
fi

# Debian's chromium for the browser tests (tests/web/test_browser.py): playwright drives it and never
# downloads a browser of its own
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing Debian package: chromium"
    (apt-get install -y -q chromium >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null; }) \
      || echo "warning: could not install chromium; the browser tests will say so"
  fi
fi

if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "== starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  fi
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".[test]"
# Every core runs tests, up to 4 (pytest-xdist; PBM_TEST_WORKERS=N sets how many, 0 runs them in this one
# process).  Each worker has its own PostgreSQL template, Dovecot and ports (tests/conftest.py); more than 4
# would mostly wait on the one PostgreSQL server and could run it out of connections (100 by default).
workers="${PBM_TEST_WORKERS:-$(n=$(nproc 2>/dev/null || echo 2); [ "$n" -gt 4 ] && echo 4 || echo "$n")}"
exec .venv/bin/python -m pytest -q -n "$workers" --dist worksteal --durations=30 "$@"
