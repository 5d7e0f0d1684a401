"""The two rules oracles of NOTATION.md as long-lived subprocesses: the server's engine
(``python -m server.engine``) and the browser's (``scripts/oracle-js``, Node), and the
browser engine's test harness (``tests/js/harness.js``). One JSON request per line in, one
answer per line out; many requests may be written before their answers are read."""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60

COMMANDS: dict[str, list[str]] = {
    "python": [sys.executable, "-m", "server.engine"],
    "js": [str(ROOT / "scripts" / "oracle-js")],
}
HARNESS = ["node", str(ROOT / "tests" / "js" / "harness.js")]
NODE = shutil.which("node")


class Oracle:
    """Talks to one running oracle process, a line at a time or many lines at once."""

    def __init__(self, command: list[str], name: str = "") -> None:
        self.name = name or command[-1]
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")  # end of output

    def _answer(self, line: str) -> dict[str, Any]:
        try:
            answer = self.lines.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError(
                f"{self.name}: no answer to {line[:200]!r} in {TIMEOUT} s"
            ) from None
        assert answer, f"{self.name} stopped after {line[:200]!r}"
        data = json.loads(answer)
        assert isinstance(data, dict)
        return data

    def ask_line(self, line: str) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        # the oracle flushes after each answer: it arrives while stdin is still open
        return self._answer(line)

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        return self.ask_line(json.dumps(request))

    def ask_many(self, requests: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """Writes every request, then reads every answer (a reader thread keeps the output
        flowing, so the pipes never fill up)."""
        return self.receive(self.send([json.dumps(r) for r in requests]))

    def send(self, lines: list[str]) -> list[str]:
        """Starts writing ``lines`` (in a thread of its own); ``receive`` reads the answers."""
        if lines:
            threading.Thread(target=self._write, args=(lines,), daemon=True).start()
        return lines

    def receive(self, lines: list[str]) -> list[dict[str, Any]]:
        return [self._answer(line) for line in lines]

    def _write(self, lines: list[str]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("".join(line + "\n" for line in lines))
        self.process.stdin.flush()

    def close(self) -> tuple[int, str]:
        """Ends the input; the exit code and whatever else the process wrote."""
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        assert process.stderr is not None
        process.stdin.close()
        code = process.wait(timeout=TIMEOUT)
        rest = ""
        while (line := self.lines.get(timeout=TIMEOUT)) != "":
            rest += line
        rest += process.stderr.read()
        process.stdout.close()  # the reader saw its end
        process.stderr.close()
        return code, rest


def ask_both(
    first: Oracle, second: Oracle, requests: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The same requests to two oracles at once (they work side by side)."""
    lines = [json.dumps(r) for r in requests]
    first.send(lines)
    second.send(lines)
    return first.receive(lines), second.receive(lines)


def oracle(name: str) -> Oracle:
    return Oracle(COMMANDS[name], name)


def harness() -> Oracle:
    return Oracle(HARNESS, "harness")
