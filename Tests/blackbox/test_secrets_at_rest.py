"""What Latchkey writes holds password hashes, keys and mail: its folder is 0700 and its files 0600, and a database
that others can read is named in a warning at start."""
import os
import stat
import subprocess

from harness import BINARY, Server


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_database_folder_and_files_are_private(tmp_path):
    s = Server()
    s.env["LATCHKEY_DATABASE_PATH"] = os.path.join(s.dir, "data", "latchkey.sqlite")
    s.start()
    try:
        folder = os.path.join(s.dir, "data")
        assert mode(folder) == 0o700
        files = [f for f in os.listdir(folder)]
        assert "latchkey.sqlite" in files and any(f.endswith("-wal") for f in files), files
        for name in files:
            assert mode(os.path.join(folder, name)) == 0o600, name
        export = os.path.join(s.dir, "export.jsonl")
        out = subprocess.run([BINARY, "export", export], env=s.env, cwd=s.dir, capture_output=True, timeout=60)
        assert out.returncode == 0 and mode(export) == 0o600, out.stderr
    finally:
        s.cleanup()


def test_an_existing_database_readable_by_others_is_warned_about():
    s = Server().start()
    s.stop()
    try:
        os.chmod(s.db_path, 0o644)
        s.start()
        assert f"{s.db_path} is readable by other users" in s.read_log()
    finally:
        s.cleanup()
