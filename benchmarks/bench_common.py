"""Shared pieces of the Python benchmarks: the release binary, measured child runs, the media server."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def build_release_richpush():
    """Builds `richpush` in release mode; returns the binary's path."""
    subprocess.run(["swift", "build", "-c", "release", "--product", "richpush"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    bin_dir = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.strip()
    return os.path.join(bin_dir, "richpush")


def run_measured(argv):
    """Runs argv; returns (exit status, stdout, max RSS in KiB from the kernel via os.wait4)."""
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        return os.waitstatus_to_exitcode(status), out.read().decode(), usage.ru_maxrss


def start_media_server():
    """Starts Tests/Support/media_server.py on a free loopback port; returns (process, base URL)."""
    server = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests/Support/media_server.py")],
                              stdout=subprocess.PIPE, text=True)
    port = int(server.stdout.readline().split()[1])
    return server, "http://127.0.0.1:%d" % port
