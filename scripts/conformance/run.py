#!/usr/bin/env python3
"""Run ScyllaDB's Alternator test suite against keyplan's local DynamoDB
engines and print how many of its tests each one passes.

    scripts/conformance/run.py SUITE [--engine memory,dynalite,dynamodb-local]
        [--ddblocal DIR] [--files test_query,test_scan] [--json OUT] [--literal]

SUITE is a directory holding the suite's test/alternator (or that directory
itself), e.g. from a scylladb checkout:

    git -C scylladb archive HEAD test/alternator | tar -x -C /tmp/alt
    scripts/conformance/run.py /tmp/alt

The suite is AGPL: it is read from SUITE and copied to a temporary
directory, never into this repository. README.md says what is counted.
Each engine is started here, on a free loopback port, and stopped after
its run: memory (keyplan's in-process engine, built from
internal/engine/minidyn/cmd/minidyn), dynalite (node_modules/dynalite/cli.js) and
dynamodb-local (DynamoDB Local's unpacked DynamoDBLocal.jar: --ddblocal DIR
or $DYNAMODB_LOCAL_DIR). Python needs boto3, pytest and pytest-timeout
(Debian: python3-boto3 python3-pytest python3-pytest-timeout); $PYTHON
picks the interpreter (default /usr/bin/python3).

Output: passed/failed per engine and per file, then the failing test ids;
--json OUT writes {engine: {"passed": [...], "failed": [...], "skipped":
[...]}} for machines. The exit status is 0 when every engine ran.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# The 21 files of issue 21: the DynamoDB data-plane behaviour keyplan
# relies on (tables, items, expressions, queries, indexes, batches,
# transactions, limits).
FILES = [
    "test_query", "test_scan", "test_gsi", "test_condition_expression",
    "test_update_expression", "test_item", "test_batch", "test_number",
    "test_projection_expression", "test_filter_expression",
    "test_key_conditions", "test_key_condition_expression", "test_transact",
    "test_limits", "test_table", "test_returnvalues", "test_lsi",
    "test_nested", "test_describe_table", "test_expected",
    "test_query_filter",
]
ENGINES = ["memory", "dynalite", "dynamodb-local"]
# The in-process engine's TTL sweep period, in seconds (what the suite's
# TTL expiry tests read as Scylla's alternator_ttl_period_in_seconds).
TTL_PERIOD = "1"
# Also runnable (--engine local): `keyplan local`, the in-process engine as
# other processes use it, accepting the one access key the suite signs
# with when it finds no Scylla roles.
SUITE_KEY = "unknownuser"
# ... and the secret it signs with (conftest.py returns both without CQL).
SUITE_SECRET = "unknownsecret"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_serving(url, proc, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the engine exited with status {proc.returncode} before serving")
        try:
            # Any HTTP answer (DynamoDB Local answers an unsigned GET with 400)
            # means it is serving.
            urllib.request.urlopen(url, timeout=2)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the engine did not answer at {url} within {timeout}s")


def start_engine(name, port, args, work):
    log = open(os.path.join(work, f"{name}.log"), "a")
    if name == "memory":
        binary = os.path.join(work, "minidyn")
        if not os.path.exists(binary):
            subprocess.run(["go", "build", "-o", binary, "./internal/engine/minidyn/cmd/minidyn"],
                           cwd=REPO, check=True)
        # The engine checks every request's signature: the suite signs
        # with its placeholder key (conftest's get_valid_alternator_role
        # without CQL), given to the engine in a credentials file, never
        # in argv.
        creds = os.path.join(work, "credentials")
        with open(os.open(creds, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            f.write(f"[default]\naws_access_key_id = {SUITE_KEY}\naws_secret_access_key = {SUITE_SECRET}\n")
        cmd = [binary, "-addr", f"127.0.0.1:{port}", "-credentials-file", creds]
        cwd = REPO
    elif name == "local":
        binary = os.path.join(work, "keyplan")
        if not os.path.exists(binary):
            subprocess.run(["go", "build", "-o", binary, "./cmd/keyplan"], cwd=REPO, check=True)
        # keyplan local checks signatures too: `--access-key` alone names
        # the key id with a secret made for the run, which the suite does
        # not know (every test failed with InvalidSignatureException), so
        # the suite's key goes in a credentials file here as well.
        creds = os.path.join(work, "credentials")
        with open(os.open(creds, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            f.write(f"[default]\naws_access_key_id = {SUITE_KEY}\naws_secret_access_key = {SUITE_SECRET}\n")
        cmd = [binary, "local", "--port", str(port), "--credentials-file", creds]
        cwd = REPO
    elif name == "dynalite":
        cli = os.path.join(REPO, "node_modules", "dynalite", "cli.js")
        if not os.path.exists(cli):
            raise RuntimeError(f"no {cli}: run npm ci")
        cmd = ["node", cli, "--host", "127.0.0.1", "--port", str(port),
               "--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0"]
        cwd = REPO
    elif name == "dynamodb-local":
        d = args.ddblocal or os.environ.get("DYNAMODB_LOCAL_DIR")
        if not d or not os.path.exists(os.path.join(d, "DynamoDBLocal.jar")):
            raise RuntimeError("dynamodb-local needs --ddblocal DIR or $DYNAMODB_LOCAL_DIR: "
                               "the directory holding DynamoDBLocal.jar and DynamoDBLocal_lib")
        cmd = ["java", f"-Djava.library.path={os.path.join(d, 'DynamoDBLocal_lib')}", "-jar",
               os.path.join(d, "DynamoDBLocal.jar"), "-inMemory", "-port", str(port)]
        # Its settings file goes to its working directory: not the
        # install's (keyplan checks its install's files at every start).
        cwd = work
    else:
        raise RuntimeError(f"unknown engine {name!r} (one of {', '.join(ENGINES)})")
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(url, proc)
    except Exception:
        stop(proc)
        raise
    return proc, url


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def prepare_suite(suite, work):
    """Copies test/alternator next to keyplan's stand-ins for the rest of
    scylladb's test/ package it imports (shim/)."""
    src = os.path.join(suite, "test", "alternator")
    if not os.path.isdir(src):
        src = suite
    if not os.path.exists(os.path.join(src, "conftest.py")) or not os.path.exists(
            os.path.join(src, "util.py")):
        raise SystemExit(f"{suite}: no Alternator suite there (test/alternator/conftest.py)")
    root = os.path.join(work, "suite")
    shutil.copytree(os.path.join(HERE, "shim"), root)
    shutil.copytree(src, os.path.join(root, "test", "alternator"))
    return root


def run_engine(name, root, files, args, work):
    """Runs each file in its own pytest session, on one engine (with
    --fresh, a new one for each file). When the engine dies (dynalite crashes on some requests) or hangs (stops
    answering for --timeout seconds: it is then killed), the test it was
    on fails, and the tests the suite then skipped run again on a
    restarted engine; the next file starts on a fresh one."""
    results, restarts = {}, 0
    start = time.time()
    proc, url = start_engine(name, free_port(), args, work)
    try:
        for i, f in enumerate(files):
            if args.fresh and i > 0:
                stop(proc)
                proc, url = start_engine(name, free_port(), args, work)
            targets = [os.path.join("test", "alternator", f + ".py")]
            while targets:
                res = run_pytest(name, root, targets, url, args, work, restarts, proc)
                died = proc.poll() is not None
                results.update({t: o for t, o in res.items() if not (o == "down" and t in results)})
                targets = sorted(t for t, o in res.items() if o == "down")
                if targets and not died:
                    raise RuntimeError(f"{name}: the suite saw the engine down but it is still running")
                if died:
                    restarts += 1
                    if restarts > 100:
                        raise RuntimeError(f"{name}: more than 100 restarts")
                    print(f"   {name} exited during {f}; restart {restarts}", file=sys.stderr)
                    stop(proc)
                    proc, url = start_engine(name, free_port(), args, work)
    finally:
        stop(proc)
    return results, time.time() - start


def run_pytest(name, root, targets, url, args, work, n, engine):
    out = os.path.join(work, f"{name}.{n}.json")
    env = dict(os.environ, KEYPLAN_CONFORMANCE_OUT=out, PYTHONDONTWRITEBYTECODE="1",
               AWS_EC2_METADATA_DISABLED="true")
    if not args.literal:
        # Scylla's configuration hooks behave as on AWS (README.md).
        env.update(KEYPLAN_CONFORMANCE_AS_ON_AWS="1", KEYPLAN_CONFORMANCE_TTL_PERIOD=TTL_PERIOD)
    cmd = [args.python, "-m", "pytest", "-p", "keyplan_conformance", "-p", "no:cacheprovider",
           "--runxfail", "-q", "-rN", "--tb=no", "--timeout", str(args.timeout), "--url=" + url]
    logname = os.path.join(work, f"{name}.{n}.pytest.log")
    with open(logname, "w") as log:
        p = subprocess.Popen(cmd + targets, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
        # pytest prints a character per test: no output for --timeout
        # seconds means the engine hangs (pytest-timeout cannot interrupt a
        # read the engine never answers); killing it fails that test.
        size, last = -1, time.time()
        while p.poll() is None:
            time.sleep(1)
            now = os.path.getsize(logname)
            if now != size:
                size, last = now, time.time()
            elif time.time() - last > args.timeout and engine.poll() is None:
                print(f"   {name} stopped answering for {args.timeout}s: killed", file=sys.stderr)
                engine.kill()
    with open(logname) as log:
        lines = log.read().strip().splitlines()
    print(f"   {targets[0].rsplit('/', 1)[-1] if len(targets) == 1 else len(targets)}: " + (lines[-1] if lines else "no output"), file=sys.stderr)
    if not os.path.exists(out):
        raise RuntimeError(f"{name}: pytest wrote no results (see {logname})")
    with open(out) as f:
        return json.load(f)


def file_of(nodeid):
    return nodeid.split("::")[0].rsplit("/", 1)[-1].removesuffix(".py")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("suite", help="directory holding test/alternator (from scylladb)")
    p.add_argument("--engine", default=",".join(ENGINES), help="engines to run, comma-separated")
    p.add_argument("--ddblocal", help="DynamoDB Local's directory (DynamoDBLocal.jar)")
    p.add_argument("--files", default=",".join(FILES), help="suite files to run, comma-separated")
    p.add_argument("--json", help="write the outcomes per engine here")
    p.add_argument("--literal", action="store_true",
                   help="leave Scylla's configuration hooks as they are off AWS (their tests then fail)")
    p.add_argument("--fresh", action="store_true", help="a new engine for each file")
    p.add_argument("--keep", action="store_true", help="keep the work directory (logs)")
    p.add_argument("--timeout", type=int, default=300, help="seconds per test")
    p.add_argument("--python", default=os.environ.get("PYTHON", "/usr/bin/python3"))
    args = p.parse_args()

    files = [f.removesuffix(".py") for f in args.files.split(",") if f]
    engines = [e for e in args.engine.split(",") if e]
    work = tempfile.mkdtemp(prefix="keyplan-conformance-")
    results, failed_to_run = {}, []
    try:
        root = prepare_suite(os.path.abspath(args.suite), work)
        for name in engines:
            print(f"== {name}", file=sys.stderr, flush=True)
            try:
                res, secs = run_engine(name, root, files, args, work)
            except Exception as e:  # report and go on with the next engine
                print(f"{name}: {e}", file=sys.stderr)
                failed_to_run.append(name)
                continue
            results[name] = res
            print(f"   {secs:.0f}s", file=sys.stderr)
    finally:
        if args.keep:
            print(f"work directory: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)

    report(results, files)
    if args.json:
        out = {e: {o: sorted(t for t, v in r.items() if v == o) for o in ("passed", "failed", "skipped")}
               for e, r in results.items()}
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 1 if failed_to_run else 0


def report(results, files):
    names = list(results)
    if not names:
        return
    w = max(len(f) for f in files + ["total"])
    print(f"{'file':<{w}} " + " ".join(f"{n + ' pass/run':>22}" for n in names))
    totals = {n: [0, 0] for n in names}
    for f in files:
        row = []
        for n in names:
            outs = [v for t, v in results[n].items() if file_of(t) == f]
            passed = outs.count("passed")
            ran = passed + outs.count("failed")
            totals[n][0] += passed
            totals[n][1] += ran
            row.append(f"{passed:>10}/{ran:<11}")
        print(f"{f:<{w}} " + " ".join(row))
    print(f"{'total':<{w}} " + " ".join(f"{totals[n][0]:>10}/{totals[n][1]:<11}" for n in names))
    for n in names:
        failing = sorted(t for t, v in results[n].items() if v == "failed")
        print(f"\n# {n}: {len(failing)} failing")
        for t in failing:
            print(f"{n} FAILED {t}")


if __name__ == "__main__":
    sys.exit(main())
