"""How every command reports a user's mistake: one `error: …` line on stderr and exit 2.

`fail` is that line. Ctrl-C is one line too (`exit_quietly_on_interrupt`, installed by
`warmjax/__init__.py` in every `python -m warmjax.<command>` process). `check_overrides`
runs before a Hydra command's `main`: it composes the config from the command line the way
Hydra will, and turns a bad override (an unknown group choice, a misspelt key, a malformed
value) into such a line instead of Hydra's multi-line report and exit 1.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import pathlib
import re
import signal
import socket
import sys
import threading
from collections.abc import Callable
from typing import NoReturn

# The Hydra configuration groups ship inside the package, so an installed wheel has them.
CONF_DIR = str(pathlib.Path(__file__).resolve().parent / "conf")
USER_ERROR = 2


def fail(message: object, command: str | None = None) -> NoReturn:
    """Prints `[command: ]error: message` to stderr and exits with status 2."""
    prefix = f"{command}: " if command else ""
    print(f"{prefix}error: {message}", file=sys.stderr)
    sys.exit(USER_ERROR)


def hydra_message(err: Exception) -> str:
    """One line from a Hydra composition error: what is wrong and, for a missing group
    choice, the choices there are."""
    text = str(err)
    first = text.splitlines()[0] if text else type(err).__name__
    first = re.sub(r"^In '[^']*': ", "", first)
    options = re.search(r"Available options in '[^']*':\n((?:\t.*\n?)+)", text)
    if options:
        choices = [line.strip() for line in options.group(1).splitlines() if line.strip()]
        return f"{first}; choose from {', '.join(choices)}"
    rest = [line.strip() for line in text.splitlines()[1:] if line.strip()]
    if rest and not rest[0].startswith("See https://"):
        return f"{first} ({rest[0]})"
    return first


def check_overrides(config_name: str, command: str | None, argv: list[str] | None = None) -> None:
    """Composes `conf/<config_name>.yaml` with the command line's overrides and exits with
    one `error:` line if Hydra would refuse them.

    Flags (`--help`, `-m`, …) and `hydra.*` overrides are left to Hydra itself, and so is a
    multirun command line, whose sweeps only Hydra's launcher composes.
    """
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    args = list(sys.argv[1:] if argv is None else argv)
    if any(a.startswith("-") for a in args):
        return
    overrides = [a for a in args if not a.lstrip("+~").startswith("hydra")]
    refuse_unplayable_choice(overrides, command)
    try:
        with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
            compose(config_name=config_name, overrides=overrides)
    except (HydraException, OmegaConfBaseException) as err:
        fail(_with_suggestion(hydra_message(err), config_name, overrides), command)


def _with_suggestion(message: str, config_name: str, overrides: list[str]) -> str:
    """Hydra's "Could not override 'train.iteratons'" with the setting meant, where one is
    close: "unknown setting train.iteratons; did you mean train.iterations?"."""
    import difflib

    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    found = re.match(r"Could not override '([^']+)'", message)
    if found is None:
        return message
    key = found.group(1)
    others = [o for o in overrides if o.lstrip("+~").split("=", 1)[0] != key]
    try:
        with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
            cfg = compose(config_name=config_name, overrides=others)
    except (HydraException, OmegaConfBaseException):
        return message

    def keys(node, prefix=""):
        for name, value in node.items():
            path = f"{prefix}{name}"
            yield path
            if isinstance(value, dict):
                yield from keys(value, f"{path}.")

    known = list(keys(OmegaConf.to_container(cfg, resolve=False)))
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.8)
    return f"unknown setting {key}; did you mean {close[0]}?" if close else message


def refuse_unplayable_choice(overrides: list[str], command: str | None) -> None:
    """`game=<pgx id>` of a pgx game warmjax cannot play (it has no config file): one line
    with pgx's reason (chance, not two players, hidden information) rather than Hydra's
    list of choices."""
    for override in overrides:
        key, eq, value = override.lstrip("+").partition("=")
        if key != "game" or not eq or (pathlib.Path(CONF_DIR) / "game" / f"{value}.yaml").exists():
            continue
        from warmjax.games.pgx_games import refused_message

        refused = refused_message(value)
        if refused is not None:
            fail(f"game={value}: {refused}", command)


class ArgumentParser(argparse.ArgumentParser):
    """The parser of a tool that acts on run folders (`python -m warmjax.<command>`): its
    usage errors, and the mistakes `fail` reports, are one `<command>: error: …` line on
    stderr and exit status 2."""

    def __init__(self, command: str, **kwargs):
        kwargs.setdefault("prog", f"python -m warmjax.{command}")  # a subcommand's its own
        super().__init__(**kwargs)
        self.command = command

    def error(self, message: str) -> NoReturn:
        fail(message, self.command)

    def fail(self, message: object) -> NoReturn:
        """A user's mistake found after parsing (a missing folder, a corrupt file)."""
        fail(message, self.command)


def writable_problem(path: str | os.PathLike) -> str | None:
    """Why the file `path` could not be written, or None where it can: the file itself, if
    it exists, opens for appending (nothing written), and otherwise its nearest existing
    folder takes a trial file (the missing folders below it are made later). Tried, not
    read off the permission bits, which say yes to root everywhere. Checked before a command
    starts its work, so that no result is computed and then lost to its output path."""
    import tempfile

    path = pathlib.Path(path)
    try:
        if path.is_dir():
            return f"cannot write {path}: it is a folder"
        if path.exists():
            with open(path, "a"):
                return None
        folder = path.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        if not folder.is_dir():
            return f"cannot write {path}: {folder} is not a folder"
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".warmjax-write-check-"):
            return None
    except OSError as err:
        return f"cannot write {path}: {err.strerror or err}"


def folder_problem(folder: str | os.PathLike) -> str | None:
    """Why files could not be written into `folder` (made if missing), or None."""
    problem = writable_problem(pathlib.Path(folder) / ".warmjax-write-check")
    return None if problem is None else problem.replace(
        f"cannot write {pathlib.Path(folder) / '.warmjax-write-check'}",
        f"cannot write into {folder}")


def check_writable(path: str | os.PathLike, parser: "ArgumentParser") -> None:
    """`parser.fail` with `writable_problem(path)`, if there is one."""
    problem = writable_problem(path)
    if problem is not None:
        parser.fail(problem)


# --- Ctrl-C ---------------------------------------------------------------------------------

_CLEANUPS: list[Callable[[], None]] = []  # what an interrupt undoes first (`interrupt_cleanup`)
# Held by the Ctrl-C watcher from its first step to the process's end, and by the main
# thread while it makes a run folder's files (`uninterrupted`): a Ctrl-C sees the folder
# before those files or after them, never half way, and never races the main thread.
_EXITING = threading.Lock()
# Set by Python's handler, in the main thread, as soon as a Ctrl-C (or SIGTERM) comes, before
# the watcher thread has started its handling (`finish_pending_interrupt`).
_PENDING = threading.Event()


SAY_SECONDS = 1.0  # the longest Ctrl-C's last line may take to write before the exit


def interrupted(command: str | None = None,
                line: Callable[[], str | None] | None = None) -> NoReturn:
    """Ctrl-C's end of a command, exit status 2. Where `line()` gives a line (a training
    run's: where it was saved), that line alone; else the registered cleanups (a run folder
    the command made and left empty) and one `<command>: interrupted` line on stderr.
    Without a command, the one this process runs (`command_of`), else plain `interrupted`.

    The process ends whatever its output is: the line is written by a thread of its own
    that holds no lock and is given `SAY_SECONDS` (a pipe whose reader died raises, a full
    one blocks), and `os._exit` follows in any case."""
    _EXITING.acquire()  # never released: the process ends below
    try:
        text = line() if line is not None else None
        if text is None:
            command = command or command_of(getattr(sys, "orig_argv", []))
            for cleanup in reversed(_CLEANUPS):
                with contextlib.suppress(Exception):
                    cleanup()
            text = f"{command}: interrupted" if command else "interrupted"
        say(text)
    finally:
        os._exit(USER_ERROR)


def say(text: str, seconds: float = SAY_SECONDS) -> None:
    """Flushes stdout and writes `text` as a line on stderr, from a thread of its own,
    waiting at most `seconds` for it; a write that fails (a closed pipe) is dropped."""

    def write():
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        with contextlib.suppress(Exception):
            os.write(2, (text + "\n").encode())

    writer = threading.Thread(target=write, name="ctrl-c line", daemon=True)
    writer.start()
    writer.join(timeout=seconds)


@contextlib.contextmanager
def uninterrupted():
    """Inside, a Ctrl-C waits: its cleanups run after the block, not during it."""
    with _EXITING:
        yield


def watch_interrupts(on_interrupt: Callable[[], None]) -> Callable[[], None]:
    """Calls `on_interrupt` from a watcher thread as soon as Ctrl-C (or SIGTERM) comes, and
    returns the function that puts the previous handling back.

    Python runs a signal handler only between bytecodes, so a Ctrl-C in compiled code (a
    compile, an iteration) would wait for it and then unwind a traceback. Instead Python's
    handler does nothing and the signal's wake-up byte reaches the watcher at once, which
    starts `on_interrupt` in a thread of its own and goes on listening: a second Ctrl-C ends
    the process at once (exit 2), whatever the first one's handling waits for.
    Call it in the main thread (where signals can be set).
    """
    reader, writer = socket.socketpair()
    writer.setblocking(False)

    def watch():
        handling = None  # the thread that runs `on_interrupt`, from the first Ctrl-C on
        while True:
            try:
                byte = reader.recv(1)
            except OSError:
                return
            if not byte:
                return
            if byte[0] not in (signal.SIGINT, signal.SIGTERM):
                continue
            if handling is None:
                handling = threading.Thread(target=on_interrupt, name="ctrl-c handler",
                                            daemon=True)
                handling.start()
            else:  # a second Ctrl-C ends the process at once, whatever the first waits on
                say("interrupted again: stopped at once", seconds=0.2)
                os._exit(USER_ERROR)

    # SIGTERM (`kill`, `timeout`, a scheduler) is handled as Ctrl-C: the same line, the same
    # cleanups, exit 2, where by default it would end the process with nothing undone.
    previous = signal.signal(signal.SIGINT, lambda signum, frame: _PENDING.set())
    previous_term = signal.signal(signal.SIGTERM, lambda signum, frame: _PENDING.set())
    old_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    watcher = threading.Thread(target=watch, name="ctrl-c", daemon=True)
    watcher.start()

    def undo():
        signal.set_wakeup_fd(old_fd)
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGTERM, previous_term)
        writer.close()
        watcher.join(timeout=1.0)
        reader.close()

    return undo


def exit_quietly_on_interrupt(command: str) -> None:
    """From here on, Ctrl-C ends this process with `interrupted(command)`, wherever it
    comes: an import, a prompt, a compile, a match (`watch_interrupts`). A run's training
    installs its own line for its iterations, which says where it was saved
    (`train.loop.stop_on_interrupt`), and puts this one back after. Outside the main thread
    (where signals cannot be set), a no-op."""
    if threading.current_thread() is threading.main_thread():
        # Kept: its sockets must stay open for the process's life.
        _WATCHING.append((command, watch_interrupts(lambda: interrupted(command))))
        atexit.register(finish_pending_interrupt, command)


def finish_pending_interrupt(command: str) -> None:
    """At a normal exit (`atexit`): a Ctrl-C that came before it still ends the process its
    own way, exit 2 and its line, not with the status the main thread reached meanwhile (the
    end of piped input, say, which the Ctrl-C's reader closing the pipe brings). Where its
    handling already runs, this waits for it (`_EXITING`); else it is the handling."""
    if _PENDING.is_set():
        interrupted(command)


_WATCHING: list[tuple[str, Callable[[], None]]] = []  # (command, its undo)


@contextlib.contextmanager
def ctrl_c_ends_normally():
    """Inside, Ctrl-C is the block's own normal end (a server that stops on it: uvicorn
    captures Python's default handling, shuts down, then raises the signal again), not the
    process's one line and exit 2: the watcher `exit_quietly_on_interrupt` installed is set
    aside for the block and put back after it, and a Ctrl-C that came inside is not left
    pending for the exit (`finish_pending_interrupt`). Without that watcher, a no-op."""
    if threading.current_thread() is not threading.main_thread() or not _WATCHING:
        yield
        return
    command, undo = _WATCHING.pop()
    undo()
    pending = _PENDING.is_set()
    try:
        yield
    finally:
        if not pending:
            _PENDING.clear()
        _WATCHING.append((command, watch_interrupts(lambda: interrupted(command))))


@contextlib.contextmanager
def interrupt_cleanup(cleanup: Callable[[], None]):
    """Inside, a Ctrl-C first calls `cleanup` (e.g. removes the run folder Hydra made while
    it is still empty). Cleanups registered later run first."""
    _CLEANUPS.append(cleanup)
    try:
        yield
    finally:
        _CLEANUPS.remove(cleanup)


def command_of(argv: list[str]) -> str | None:
    """`run` for a process started as `python -m warmjax.run …` (`sys.orig_argv`); None for
    any other (a library user, a test runner)."""
    for i, arg in enumerate(argv[:-1]):
        if arg == "-m":
            name = argv[i + 1]
            return name.split(".", 1)[1] if name.startswith("warmjax.") else None
    return None


@contextlib.contextmanager
def status(text: str):
    """A line with a spinner and the elapsed seconds on stderr while a long step runs
    (compiling, a probe, a match), cleared when it ends; nothing when stderr is not a
    terminal (a log file, a pipe, CI), so logs hold only the lines a step prints itself."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        yield
        return
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        bar.add_task(text, total=None)
        yield
