"""`sweep --scheduler` pointed at something that is not a Dask scheduler (a TCP server
that accepts and stays silent, an HTTP server) ends within its timeout with one line,
instead of waiting for a handshake for ever."""

from __future__ import annotations

import http.server
import socket
import subprocess
import sys
import threading

import pytest

pytest.importorskip("distributed")


@pytest.fixture
def versions(tmp_path):
    paths = []
    for n, text in enumerate(["A first version. Of words.\n", "A second version. Of more words.\n"]):
        path = tmp_path / f"v{n}.md"
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    return paths


@pytest.fixture
def silent_server():
    """Accepts connections and never writes a byte."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def serve():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join()
    for conn in accepted:
        conn.close()
    server.close()


@pytest.fixture
def http_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _sweep(versions, *extra: str) -> subprocess.CompletedProcess:
    """A real process with a timeout well past the scheduler's: a hang fails the test."""
    return subprocess.run([sys.executable, "-m", "steadlith_core.cli.main", "sweep", "--versions", *versions, *extra],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("server", ["silent_server", "http_server"])
def test_a_server_that_is_not_a_scheduler_ends_in_one_line_within_the_timeout(request, versions, server):
    address = request.getfixturevalue(server)
    r = _sweep(versions, "--scheduler", address, "--scheduler-timeout", "2")
    assert r.returncode == 2 and r.stdout == "", r.stderr
    lines = [line for line in r.stderr.replace("\r", "\n").splitlines() if line.startswith("steadlith: error:")]
    assert len(lines) == 1
    assert lines[0].startswith(f"steadlith: error: cannot reach the Dask scheduler at {address}: ")
    assert "Traceback" not in r.stderr


def test_the_timeout_is_checked(versions):
    for value in ("0", "-1", "nan", "inf"):
        r = _sweep(versions, "--scheduler", "127.0.0.1:1", "--scheduler-timeout", value)
        assert r.returncode == 2 and "--scheduler-timeout: must be in (0, 3600] seconds" in r.stderr
    r = _sweep(versions, "--scheduler-timeout", "5")
    assert r.returncode == 2 and "--scheduler-timeout: goes with --scheduler ADDRESS" in r.stderr
