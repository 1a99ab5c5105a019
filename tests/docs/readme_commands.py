#!/usr/bin/python3
"""Run every quorum command that a README.md shows, as written, and fail if one fails.

Convention: code blocks fenced as ```sh in any README.md are run; blocks that cannot run on one machine (hostfiles,
Slurm, clusters) are fenced ```sh-cluster, synopses with optional arguments ```text, and neither is run. From an sh
block this takes every line that starts with `build/quorum`, `./build/quorum`, `quorum ` or `scripts/mpirun-local ...
build/quorum` (`\\` continuations joined; other programs, e.g. ./scripts/test or plots.py, are not run), and inside a
`for VAR in WORDS; do ... done` loop the same lines for the loop's first value.

The READMEs are taken one after the other; each runs in a fresh temporary folder holding `build` (the binary folder),
`scripts`, `notebooks` (and `data`, if the checkout has one) as links to the checkout and a copy of `scenarios` (so a
scenario's relative file names resolve inside the temporary folder), and its commands run in the order written, so
one may read what an earlier one of the same README wrote.

What changes, so that the whole set takes about a minute on 2 cores: `run`, `sweep` and `validate` get
`--set workload.iterations=N` (4) unless the command sets that field itself, and run timing only
(`--set 'math={"model":"none"}'`: loading the proxy's data set is most of a short run's time). Commands that start
MPI (`scripts/mpirun-local -np N`, `validate --np N`) run on at most 4 ranks and only the first entry of the
scenario's algorithm list, and `validate` without --calibration reuses one quick calibration made once
(`calibrate --quick` on 2 ranks). With --full, commands keep their proxy math (a few scenarios get smaller data sets,
EXTRA_SETS), every algorithm and their own calibration: only the iterations and the ranks change. Without MPI in the
build, MPI commands are skipped.

Usage: tests/docs/readme_commands.py [--build DIR] [--full] [--only README.md ...] [--list] [--keep]
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SKIP_DIRS = {".git", "build", "results", "node_modules"}
COMMAND = re.compile(r"^(\./)?build/quorum\s|^quorum\s|^scripts/mpirun-local\s.*\bbuild/quorum\s")
NOT_RUN = ("./scripts/test", "./scripts/demo", "./scripts/install-deps", "./scripts/build")
MAX_RANKS = 4
# Scenarios whose proxy data set alone takes minutes to generate: a smaller one (fields of the math block).
EXTRA_SETS = {
    "scenarios/eager_sgd/fig10_hyperplane.json": ["math.train_size=2048", "math.test_size=512"],
}


def readmes(root, only):
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        if "README.md" in files:
            found.append(os.path.relpath(os.path.join(folder, "README.md"), root))
    found.sort(key=lambda p: (p.count(os.sep), p))  # the front page first
    if only:
        wanted = {os.path.normpath(p) for p in only}
        found = [p for p in found if os.path.normpath(p) in wanted]
    return found


def sh_blocks(text):
    """(first line number, lines) of every ```sh block, continuation lines joined."""
    blocks, block, start, fence = [], None, 0, None
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if fence is None:
            match = re.match(r"^(```+|~~~+)\s*([\w+-]*)", stripped)
            if match:
                fence = match.group(1)
                if match.group(2) == "sh":
                    block, start = [], number + 1
            continue
        if stripped.startswith(fence) and stripped.strip("`~") == "":
            if block is not None:
                blocks.append((start, block))
            block, fence = None, None
            continue
        if block is not None:
            if block and block[-1][1].endswith("\\"):
                first, previous = block[-1]
                block[-1] = (first, previous[:-1].rstrip() + " " + stripped)
            else:
                block.append((number, stripped))
    return blocks


def strip_comment(line):
    """The line without a trailing shell comment (a # outside quotes, at the start of a word)."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def split_statements(text):
    """Split a one-line loop body on ';' outside quotes and $(...)."""
    parts, current, quote, depth = [], "", None, 0
    for c in text:
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == ";" and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        current += c
    parts.append(current.strip())
    return [p for p in parts if p]


def commands_of(path):
    """[(line number, command, loop variable assignment or None)] of one README."""
    with open(os.path.join(SOURCE, path), encoding="utf-8") as f:
        text = f.read()
    found = []
    for _, lines in sh_blocks(text):
        i = 0
        while i < len(lines):
            number, line = lines[i]
            line = strip_comment(line)
            loop = re.match(r"^for\s+(\w+)\s+in\s+(.*?);\s*do\b(.*)$", line)
            if loop:
                var, words, rest = loop.groups()
                body = []
                if re.search(r"(^|;)\s*done\s*$", rest):
                    body = [(number, s) for s in split_statements(re.sub(r";?\s*done\s*$", "", rest))]
                else:
                    body = [(number, s) for s in split_statements(rest)]
                    i += 1
                    while i < len(lines) and not re.match(r"^done\b", strip_comment(lines[i][1])):
                        body += [(lines[i][0], s) for s in split_statements(strip_comment(lines[i][1]))]
                        i += 1
                for n, statement in body:
                    if COMMAND.match(statement):
                        found.append((n, statement, (var, words)))
            elif COMMAND.match(line) and not line.startswith(NOT_RUN):
                found.append((number, line, None))
            i += 1
    return found


def read_jsonc(path):
    """A scenario file: JSON with // and /* */ comments."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out, i, quote = [], 0, False
    while i < len(text):
        c = text[i]
        if quote:
            out.append(c)
            if c == "\\":
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                quote = False
        elif c == '"':
            quote = True
            out.append(c)
        elif text.startswith("//", i):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 1
        else:
            out.append(c)
        i += 1
    return json.loads("".join(out))


class Runner:
    def __init__(self, build, full, iterations, timeout, keep):
        self.build, self.full, self.iterations, self.timeout, self.keep = build, full, iterations, timeout, keep
        self.quorum = os.path.join(build, "quorum")
        self.has_mpi = shutil.which("mpirun") is not None and subprocess.run(
            [self.quorum, "validate", "--help"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
        self.calibration = None
        self.calibration_lock = threading.Lock()
        self.root = tempfile.mkdtemp(prefix="quorum-readme-")

    def workdir(self, readme):
        folder = os.path.join(self.root, readme.replace(os.sep, "_").replace(".md", ""))
        os.makedirs(os.path.join(folder, "bin"))
        os.symlink(self.build, os.path.join(folder, "build"))
        for name in ("scripts", "notebooks", "data"):
            if os.path.exists(os.path.join(SOURCE, name)):
                os.symlink(os.path.join(SOURCE, name), os.path.join(folder, name))
        shutil.copytree(os.path.join(SOURCE, "scenarios"), os.path.join(folder, "scenarios"), symlinks=True)
        os.symlink(self.quorum, os.path.join(folder, "bin", "quorum"))  # for commands written as `quorum ...`
        return folder

    def quick_calibration(self):
        with self.calibration_lock:
            if self.calibration is None:
                path = os.path.join(self.root, "calibration.json")
                subprocess.run([os.path.join(SOURCE, "scripts", "mpirun-local"), "-np", "2", self.quorum, "calibrate",
                                "--quick", "--out", path], cwd=self.root, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=self.timeout, check=True)
                self.calibration = path
        return self.calibration

    def adapt(self, command, cwd, loop_value):
        """The command as run (fewer iterations, ...) and a note saying what changed; (None, why) to skip it."""
        words = shlex.split(command.replace("$", "\\$"), posix=True)
        at = next(i for i, w in enumerate(words) if w.endswith("quorum"))
        sub = words[at + 1] if at + 1 < len(words) else ""
        mpi = words[0].endswith("mpirun-local") or sub in ("validate", "calibrate")
        if mpi and not self.has_mpi:
            return None, "skipped: this build has no MPI"
        scenario = next((w for w in words[at + 2:] if w.endswith(".json") and not w.startswith("-")), None)
        if scenario and loop_value:
            scenario = scenario.replace("${%s}" % loop_value[0], loop_value[1]).replace("$" + loop_value[0],
                                                                                      loop_value[1])
        sets, notes = [], []
        if sub in ("run", "sweep", "validate"):
            if "workload.iterations" not in command:
                sets.append(f"workload.iterations={self.iterations}")
            if self.full:
                sets += EXTRA_SETS.get(scenario, [])
            else:
                sets.append('math={"model":"none"}')
                notes.append("timing only")
        if mpi:
            np_match = re.search(r"(-np|--np)\s+(\d+)", command)
            if np_match and int(np_match.group(2)) > MAX_RANKS:
                command = command[:np_match.start(2)] + str(MAX_RANKS) + command[np_match.end(2):]
                notes.append(f"{np_match.group(2)} -> {MAX_RANKS} ranks")
                if words[0].endswith("mpirun-local") and "platform.nodes" not in command:
                    sets.append(f"platform.nodes={MAX_RANKS}")
            if not self.full and scenario and "$" not in scenario and sub in ("run", "validate"):
                algorithm = read_jsonc(os.path.join(cwd, scenario)).get("algorithm")
                if isinstance(algorithm, list) and len(algorithm) > 1 and "--set 'algorithm=" not in command:
                    sets.append("algorithm=" + json.dumps(algorithm[:1], separators=(",", ":")))
                    notes.append(f"the first of {len(algorithm)} algorithms")
            if not self.full and sub == "validate" and "--calibration" not in command:
                command += " --calibration " + shlex.quote(self.quick_calibration())
                notes.append("one shared quick calibration")
            given = re.search(r"--calibration\s+(\S+)", command)
            if not self.full and sub == "validate" and given and given.group(1).startswith("/tmp/") \
                    and not os.path.exists(given.group(1)):
                # Written by an earlier validate of the README, which ran on the shared quick calibration instead.
                command = command[:given.start(1)] + shlex.quote(self.quick_calibration()) + command[given.end(1):]
                notes.append("the shared quick calibration for " + given.group(1))
        if sets:
            command += "".join(" --set " + shlex.quote(s) for s in sets)
            notes.insert(0, " ".join("--set " + s for s in sets if not s.startswith("algorithm=")))
        return command, "; ".join(notes)

    def readme(self, readme, commands):
        """Run one README's commands in order in a fresh folder; (results, report lines)."""
        cwd, results, report = self.workdir(readme), [], []
        for number, command, loop in commands:
            results.append(self.run(cwd, readme, number, command, loop, report))
        return results, report

    def run(self, cwd, readme, number, command, loop, report):
        print = lambda line: report.append(line)  # noqa: E731 (a README's report is printed when it is done)
        loop_value = None
        prefix = ""
        if loop:
            var, words = loop
            values = subprocess.run(["bash", "-c", f"for {var} in {words}; do printf '%s\\n' \"${var}\"; done"],
                                    cwd=cwd, capture_output=True, text=True).stdout.split("\n")
            loop_value = (var, values[0])
            prefix = f"{var}={shlex.quote(values[0])}; "
        adapted, note = self.adapt(command, cwd, loop_value)
        label = f"{readme}:{number}: {command}" + (f"   [{loop[0]}={loop_value[1]}]" if loop else "")
        if adapted is None:
            print(f"skip          {label}\n              ({note})")
            return "skip"
        env = dict(os.environ, PATH=os.path.join(cwd, "bin") + os.pathsep + os.environ.get("PATH", ""))
        started = time.monotonic()
        try:
            done = subprocess.run(["bash", "-c", "set -eo pipefail; " + prefix + adapted], cwd=cwd, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  timeout=self.timeout, start_new_session=True)
            status, output = ("ok" if done.returncode == 0 else f"exit {done.returncode}"), done.stdout
        except subprocess.TimeoutExpired as e:
            status, output = f"timeout {self.timeout}s", (e.stdout or b"").decode(errors="replace") \
                if isinstance(e.stdout, bytes) else (e.stdout or "")
        seconds = time.monotonic() - started
        print(f"{'ok' if status == 'ok' else 'FAIL':4} {seconds:6.1f}s  {label}")
        if note:
            print(f"              ({note})")
        if status != "ok":
            print(f"              {status}; ran: {adapted}")
            for line in output.strip().split("\n")[-15:]:
                print(f"              | {line}")
        return "ok" if status == "ok" else "fail"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"), help="folder holding the quorum binary")
    parser.add_argument("--full", action="store_true", help="keep the proxy math, every algorithm of an MPI command, its own calibration")
    parser.add_argument("--only", nargs="*", default=[], help="only these READMEs (paths from the repository root)")
    parser.add_argument("--list", action="store_true", help="print the commands found and run nothing")
    parser.add_argument("--iterations", type=int, default=4, help="workload.iterations of every run (default 4)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per command (default 300)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="READMEs run at a time (default 2)")
    args = parser.parse_args()

    files = readmes(SOURCE, args.only)
    if args.list:
        for readme in files:
            for number, command, loop in commands_of(readme):
                print(f"{readme}:{number}: {command}" + (f"   [first value of {loop[0]} in {loop[1]}]" if loop else ""))
        return 0
    build = os.path.abspath(args.build)
    if not os.access(os.path.join(build, "quorum"), os.X_OK):
        print(f"readme_commands: no quorum binary in {build}", file=sys.stderr)
        return 2
    runner = Runner(build, args.full, args.iterations, args.timeout, args.keep)
    results, started = [], time.monotonic()
    work = [(readme, commands_of(readme)) for readme in files]
    work = [(readme, commands) for readme, commands in work if commands]
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [pool.submit(runner.readme, readme, commands) for readme, commands in work]
            for future in futures:  # reports in the READMEs' order, each as soon as it and those before are done
                done, report = future.result()
                results += done
                print("\n".join(report), flush=True)
    finally:
        if args.keep:
            print(f"readme_commands: temporary folders kept in {runner.root}")
        else:
            shutil.rmtree(runner.root, ignore_errors=True)
    failed = results.count("fail")
    print(f"readme_commands: {len(results)} commands from {len(files)} READMEs: {results.count('ok')} ok, "
          f"{failed} failed, {results.count('skip')} skipped, {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
