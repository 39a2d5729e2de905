"""A throwaway PostgreSQL cluster on 127.0.0.1 for tests and benchmarks.

    python -m tests.support.pg_cluster start DIR [--port N]   # prints the owner's URL
    python -m tests.support.pg_cluster stop DIR

The server binaries come from the Debian packages (`postgresql`), found on PATH or
under /usr/lib/postgresql/*/bin. PostgreSQL refuses to run as root, so as root the
cluster runs as the `postgres` user the package creates. Durability is switched off
(fsync, synchronous_commit, full_page_writes): the data is thrown away. Local socket
connections are trusted; TCP connections need a password (SCRAM), so a wrong one is
refused as it would be on a real server. The owner is `assay_admin`, password
`assay-admin`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

OWNER = "assay_admin"
OWNER_PASSWORD = "assay-admin"
SERVICE_USER = "postgres"


class ClusterError(RuntimeError):
    """Why no cluster could be started, in one line."""


def server_binary(name: str) -> Path:
    """`initdb` or `pg_ctl` from PATH, else the newest /usr/lib/postgresql/N/bin."""
    found = shutil.which(name)
    if found:
        return Path(found)
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=_version, reverse=True)
    for directory in versions:
        if (directory / name).is_file():
            return directory / name
    raise ClusterError(f"{name} not found (install the Debian package postgresql)")


def _version(directory: Path) -> int:
    name = directory.parent.name
    return int(name) if name.isdigit() else 0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_service_user(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    runuser = shutil.which("runuser")
    if runuser is None:
        raise ClusterError("running as root without runuser: cannot start PostgreSQL as a user")
    try:
        import pwd

        pwd.getpwnam(SERVICE_USER)
    except KeyError as exc:
        raise ClusterError(f"running as root and there is no {SERVICE_USER} user") from exc
    return [runuser, "-u", SERVICE_USER, "--", *command]


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(_as_service_user(command), capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ClusterError(f"{what} failed: {last[0]}")


def owner_url(port: int, database: str = "postgres") -> str:
    return f"postgresql+psycopg://{OWNER}:{OWNER_PASSWORD}@127.0.0.1:{port}/{database}"


def start(directory: Path, port: int | None = None) -> str:
    """Create and start a cluster under `directory`; return the owner's URL."""
    initdb, pg_ctl = server_binary("initdb"), server_binary("pg_ctl")
    port = port or free_port()
    directory.mkdir(parents=True, exist_ok=True)
    data, password_file = directory / "data", directory / "owner.pw"
    password_file.write_text(OWNER_PASSWORD + "\n")
    if os.geteuid() == 0:
        import pwd

        service = pwd.getpwnam(SERVICE_USER)
        for path in (directory, password_file):
            os.chown(path, service.pw_uid, service.pw_gid)
    _run(
        [str(initdb), "-D", str(data), "-U", OWNER, f"--pwfile={password_file}", "-E", "UTF8",
         "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync", "--locale=C"],
        "initdb",
    )
    options = (
        f"-p {port} -k {directory} -c listen_addresses=127.0.0.1 -c fsync=off "
        "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
    )
    _run([str(pg_ctl), "-D", str(data), "-l", str(directory / "server.log"), "-o", options,
          "-w", "start"], "pg_ctl start")
    (directory / "port").write_text(str(port))
    return owner_url(port)


def stop(directory: Path) -> None:
    data = directory / "data"
    if (data / "postmaster.pid").exists():
        _run([str(server_binary("pg_ctl")), "-D", str(data), "-m", "immediate", "-w", "stop"],
             "pg_ctl stop")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=("start", "stop"))
    parser.add_argument("directory", type=Path)
    parser.add_argument("--port", type=int, default=None)
    args = parser.parse_args(argv)
    try:
        if args.action == "start":
            print(start(args.directory.resolve(), args.port))
        else:
            stop(args.directory.resolve())
    except ClusterError as exc:
        print(f"pg_cluster: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
