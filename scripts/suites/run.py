#!/usr/bin/env python3
"""Run other projects' DynamoDB test suites against keyplan local and DynamoDB Local.

Each suite runs as its project wrote it (no shims, its own test files and
settings), once against `keyplan local` and once against DynamoDB Local,
each engine started fresh by this script for it; the script prints each
suite's counts on each engine and every test whose result differs.
docs/engines.md records what it found ("Other projects' suites").

    scripts/suites/run.py [--suites guregu,electrodb,admin] [--ddblocal DIR]
        [--electrodb DIR] [--admin DIR] [--keyplan BIN] [--json FILE]

- guregu: the Go library github.com/guregu/dynamo/v2 (GUREGU_VERSION, from
  the Go module proxy), `go test -json ./...` in a copy of the module, its
  integration tests pointed at the engine by DYNAMO_TEST_ENDPOINT and
  DYNAMO_TEST_TABLE (its README's way; its TestMain creates the tables).
- electrodb: ElectroDB's mocha suite (`test/init.js --recreate`, then its
  `test:unit` script's files), from a checkout given by --electrodb with
  its dev dependencies installed (`npm install --ignore-scripts` in it);
  its tests sign with the key id `test` and the secret `test`.
- admin: dynamodb-admin (npm, ADMIN_VERSION, installed by the script into
  --admin, default a directory in the user's cache), started on the
  engine; ADMIN_STEPS drive its HTTP UI and JSON API (create a table with
  a GSI and an LSI, add, edit, page, query, filter and delete items, the
  meta and TTL pages, purge, delete), and each answer's status and body
  (HTML pages by the item values they show) are compared.

The suites are other projects' code, run from outside the repository
(licences: guregu/dynamo BSD-2-Clause, ElectroDB ISC, dynamodb-admin MIT);
nothing of theirs is copied in. Not part of make test. Exit status 0 when
every suite did the same on both engines, 1 otherwise.
"""

import argparse
import glob
import html as htmllib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GUREGU_VERSION = "v2.1.1"
ADMIN_VERSION = "5.3.3"
ENGINES = ["keyplan-local", "dynamodb-local"]

_spec = importlib.util.spec_from_file_location("clients", os.path.join(REPO, "scripts", "clients", "run.py"))
clients = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(clients)


class Engines:
    """Starts an engine afresh for each run: keyplan local (built once) with
    the key given, or DynamoDB Local."""

    def __init__(self, work, ddblocal, keyplan=None):
        self.work, self.ddblocal = work, ddblocal
        self.keyplan = keyplan
        if not keyplan:
            self.keyplan = os.path.join(work, "keyplan")
            subprocess.run(["go", "build", "-o", self.keyplan, "./cmd/keyplan"], cwd=REPO, check=True)

    def start(self, name, key, secret):
        port = clients.free_port()
        log = open(os.path.join(self.work, f"{name}-{port}.log"), "w")
        if name == "keyplan-local":
            creds = os.path.join(self.work, f"credentials-{port}")
            with open(os.open(creds, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
                f.write(f"[default]\naws_access_key_id = {key}\naws_secret_access_key = {secret}\n")
            cmd = [self.keyplan, "local", "--port", str(port), "--credentials-file", creds]
        else:
            d = self.ddblocal
            cmd = ["java", f"-Djava.library.path={os.path.join(d, 'DynamoDBLocal_lib')}", "-jar", os.path.join(d, "DynamoDBLocal.jar"),
                   "-inMemory", "-port", str(port)]
        proc = subprocess.Popen(cmd, cwd=self.work, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        clients.wait_serving(url, proc)
        return proc, url


def base_env():
    return {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}


# guregu/dynamo

def run_guregu(engines, engine, work):
    src = json.loads(subprocess.run(["go", "mod", "download", "-json", f"github.com/guregu/dynamo/v2@{GUREGU_VERSION}"],
                                    cwd=work, capture_output=True, text=True, check=True).stdout)["Dir"]
    mod = os.path.join(work, "guregu-dynamo")
    if not os.path.exists(mod):
        shutil.copytree(src, mod)
        for root, dirs, files in os.walk(mod):
            for n in dirs + files:
                os.chmod(os.path.join(root, n), 0o755 if n in dirs else 0o644)
    key, secret = "AKIDGUREGU", "guregu-secret-for-the-run"
    proc, url = engines.start(engine, key, secret)
    try:
        env = {**base_env(), "DYNAMO_TEST_ENDPOINT": url, "DYNAMO_TEST_REGION": "us-east-1", "DYNAMO_TEST_TABLE": "TestDB-%",
               "AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret, "AWS_REGION": "us-east-1",
               "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull}
        p = subprocess.run(["go", "test", "-count=1", "-json", "./..."], cwd=mod, env=env, capture_output=True, text=True, timeout=1800)
    finally:
        clients.stop(proc)
    results, output = {}, {}
    for line in p.stdout.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        name = ev.get("Test")
        if not name:
            continue
        full = ev["Package"].rsplit("/", 1)[-1] + "." + name
        if ev["Action"] == "output":
            output[full] = output.get(full, "") + ev.get("Output", "")
        elif ev["Action"] in ("pass", "fail", "skip"):
            results[full] = ev["Action"]
    if not results:
        results["(build)"] = "fail"
        output["(build)"] = p.stdout[-3000:] + p.stderr[-3000:]
    return results, {k: output.get(k, "")[-1500:] for k, v in results.items() if v == "fail"}


# ElectroDB

def run_electrodb(engines, engine, work, d):
    if not d or not os.path.exists(os.path.join(d, "test", "init.js")):
        sys.exit("electrodb: --electrodb DIR, a checkout of ElectroDB (github.com/tywalch/electrodb)")
    if not os.path.exists(os.path.join(d, "node_modules", "mocha")):
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=d, check=True)
    # Its tests sign with the key id "test" and the secret "test".
    proc, url = engines.start(engine, "test", "test")
    report = os.path.join(work, f"electrodb-{engine}.xml")
    try:
        env = {**base_env(), "LOCAL_DYNAMO_ENDPOINT": url}
        # Its tables, on a fresh engine. One of them defines an attribute no
        # key uses (electro_localsecondaryindex: lsi3sk), which DynamoDB
        # refuses and DynamoDB Local accepts; init.js then exits at once, so
        # it runs again to create whatever that exit cut short.
        for _ in range(2):
            init = subprocess.run(["node", "./test/init.js"], cwd=d, env=env, capture_output=True, text=True, timeout=600)
        init_failed = init.returncode != 0
        specs = sorted(glob.glob(os.path.join(d, "test", "*.spec.*")))  # its script's ./test/**.spec.* in sh
        p = subprocess.run([os.path.join(d, "node_modules", ".bin", "mocha"), "-r", "ts-node/register", "--reporter", "xunit",
                            "--reporter-options", f"output={report}", *[os.path.relpath(s, d) for s in specs]],
                           cwd=d, env=env, capture_output=True, text=True, timeout=3600)
    finally:
        clients.stop(proc)
    if not os.path.exists(report):
        return {"(run)": "fail"}, {"(run)": p.stdout[-3000:] + p.stderr[-3000:]}
    results, failures = {}, {}
    if init_failed:
        results["(test/init.js)"] = "fail"
        failures["(test/init.js)"] = "\n".join(line for line in (init.stdout + init.stderr).splitlines() if "Exception" in line)[:1500]
    for tc in ET.parse(report).getroot().iter("testcase"):
        name = tc.get("classname", "") + " :: " + tc.get("name", "")
        if name in results:  # a title used twice: keep both
            name += " #2"
        fail = tc.find("failure")
        if fail is not None:
            results[name] = "fail"
            failures[name] = (fail.get("message") or fail.text or "")[:1500]
        elif tc.find("skipped") is not None:
            results[name] = "skip"
        else:
            results[name] = "pass"
    return results, failures


# dynamodb-admin

T = "admintable"

ADMIN_STEPS = [
    ("list tables (none)", "GET", "/api/tables", None),
    ("create table with a GSI and an LSI", "POST", "/create-table", {
        "TableDefinition": {"TableName": T, "HashAttributeName": "pk", "HashAttributeType": "S", "RangeAttributeName": "sk",
                            "RangeAttributeType": "S", "ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        "SecondaryIndexes": [
            {"IndexName": "byStatus", "IndexType": "global", "HashAttributeName": "status", "HashAttributeType": "S",
             "RangeAttributeName": "n", "RangeAttributeType": "N", "ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
            {"IndexName": "byN", "IndexType": "local", "HashAttributeName": "pk", "HashAttributeType": "S",
             "RangeAttributeName": "n", "RangeAttributeType": "N"}]}),
    ("create a table whose range key has no type", "POST", "/create-table", {
        "TableDefinition": {"TableName": "bad", "HashAttributeName": "pk", "HashAttributeType": "S", "RangeAttributeName": "sk",
                            "ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}),
    ("create the same table again", "POST", "/create-table", {
        "TableDefinition": {"TableName": T, "HashAttributeName": "pk", "HashAttributeType": "S", "ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}),
    ("list tables", "GET", "/api/tables", None),
    ("tables page", "GET", "/", None),
    ("table page", "GET", f"/tables/{T}", None),
    ("add-item page", "GET", f"/tables/{T}/add-item", None),
] + [
    (f"add item {pk}/{sk}", "PUT", f"/tables/{T}/add-item", {"pk": pk, "sk": sk, "status": st, "n": n, **extra})
    for pk, sk, st, n, extra in [
        ("a", "1", "open", 1, {"tags": ["x", "y"], "m": {"k": True, "z": None}}),
        ("a", "2", "closed", 2, {}), ("a", "10", "open", 10, {"price": 12.5}), ("a#b", "1", "open", 3, {"note": "100% #1"}),
        ("t1", "x", "open", 5, {}), ("t10", "x", "closed", 6, {})]
] + [
    ("add an item without its range key", "PUT", f"/tables/{T}/add-item", {"pk": "nosk"}),
    ("add an item with a key of the wrong type", "PUT", f"/tables/{T}/add-item", {"pk": 1, "sk": "1"}),
    ("scan page", "GET", f"/tables/{T}/items?operationType=scan&pageSize=25", None),
    ("scan pages of 2", "GET", f"/tables/{T}/items?operationType=scan&pageSize=2", None),
    ("scan with a string filter", "GET", f"/tables/{T}/items?" + urllib.parse.urlencode({
        "operationType": "scan", "filters": json.dumps({"status": {"operator": "=", "type": "S", "value": "open"}})}), None),
    ("scan with a number filter", "GET", f"/tables/{T}/items?" + urllib.parse.urlencode({
        "operationType": "scan", "filters": json.dumps({"n": {"operator": ">=", "type": "N", "value": "5"}})}), None),
    ("scan with begins_with", "GET", f"/tables/{T}/items?" + urllib.parse.urlencode({
        "operationType": "scan", "filters": json.dumps({"pk": {"operator": "begins_with", "type": "S", "value": "t1"}})}), None),
    ("query the table", "GET", f"/tables/{T}/items?" + urllib.parse.urlencode({
        "operationType": "query", "queryableSelection": "table", "filters": json.dumps({"pk": {"operator": "=", "type": "S", "value": "a"}})}), None),
    ("query the table, begins_with on the range key", "GET", f"/tables/{T}/items?" + urllib.parse.urlencode({
        "operationType": "query", "queryableSelection": "table", "filters": json.dumps({
            "pk": {"operator": "=", "type": "S", "value": "a"}, "sk": {"operator": "begins_with", "type": "S", "value": "1"}})}), None),
    ("query the GSI with a range condition", "GET", f"/tables/{T}/items?" + urllib.parse.urlencode({
        "operationType": "query", "queryableSelection": "byStatus", "filters": json.dumps({
            "status": {"operator": "=", "type": "S", "value": "open"}, "n": {"operator": "<", "type": "N", "value": "6"}})}), None),
    ("query the GSI with a filter on another attribute", "GET", f"/tables/{T}/items?" + urllib.parse.urlencode({
        "operationType": "query", "queryableSelection": "byStatus", "filters": json.dumps({
            "status": {"operator": "=", "type": "S", "value": "open"}, "pk": {"operator": "<>", "type": "S", "value": "a"}})}), None),
    ("query without the hash key", "GET", f"/tables/{T}/items?" + urllib.parse.urlencode({
        "operationType": "query", "queryableSelection": "table", "filters": json.dumps({"sk": {"operator": "=", "type": "S", "value": "1"}})}), None),
    ("item page", "GET", f"/tables/{T}/items/" + urllib.parse.quote("a,1", safe=""), None),
    ("item page of a key with # and %", "GET", f"/tables/{T}/items/" + urllib.parse.quote("a#b,1", safe=""), None),
    ("item page of a missing item", "GET", f"/tables/{T}/items/" + urllib.parse.quote("zz,1", safe=""), None),
    ("get page redirect", "GET", f"/tables/{T}/get?hash=a&range=2", None),
    ("edit item", "PUT", f"/tables/{T}/items/" + urllib.parse.quote("a,2", safe=""), {"pk": "a", "sk": "2", "status": "open", "n": 22, "added": [1, 2]}),
    ("delete item", "DELETE", f"/tables/{T}/items/" + urllib.parse.quote("a,10", safe=""), None),
    ("query after the edit and delete", "GET", f"/tables/{T}/items?" + urllib.parse.urlencode({
        "operationType": "query", "queryableSelection": "table", "filters": json.dumps({"pk": {"operator": "=", "type": "S", "value": "a"}})}), None),
    ("meta page", "GET", f"/tables/{T}/meta", None),
    ("ttl page", "GET", f"/tables/{T}/ttl", None),
    ("purge the table", "DELETE", f"/tables/{T}/all", None),
    ("scan after the purge", "GET", f"/tables/{T}/items?operationType=scan", None),
    ("delete the table", "DELETE", f"/tables/{T}", None),
    ("table page of a deleted table", "GET", f"/tables/{T}", None),
    ("list tables after the delete", "GET", "/api/tables", None),
]

# What differs by nature from engine to engine and run to run.
# BillingModeSummary, TableId and ProvisionedThroughput's last increase and
# decrease differ between the engines in every description (docs/engines.md
# says which is DynamoDB's); left out so that what else differs shows.
ADMIN_VOLATILE = {"TableArn", "TableId", "CreationDateTime", "IndexArn", "LastIncreaseDateTime", "LastDecreaseDateTime",
                  "NumberOfDecreasesToday", "LatestStreamArn", "LatestStreamLabel", "TableSizeBytes", "IndexSizeBytes",
                  "BillingModeSummary"}


def admin_normal(v):
    if isinstance(v, dict):
        return {k: admin_normal(x) for k, x in sorted(v.items()) if k not in ADMIN_VOLATILE}
    if isinstance(v, list):
        return [admin_normal(x) for x in v]
    return v


def admin_page(html):
    """What an HTML page shows: its text, the JSON it shows (an item, a
    table's description) parsed, so that the order of attributes, which
    DynamoDB does not promise, does not count."""
    text = re.sub(r"<script[\s\S]*?</script>|<style[\s\S]*?</style>", " ", html)
    text = htmllib.unescape(re.sub(r"<[^>]+>", " ", text))
    if "{" in text:
        i, j = text.index("{"), text.rindex("}") + 1
        try:
            return " ".join(text[:i].split()) + " " + json.dumps(admin_normal(json.loads(text[i:j])), sort_keys=True) + " " + " ".join(text[j:].split())
        except ValueError:
            pass
    text = re.sub(r"arn:aws:dynamodb:[^\s\"'<,]+", "ARN", text)
    text = re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+Z?|\b\d{10}(\.\d+)?\b", "TIME", text)
    text = re.sub(r"\"?(TableSizeBytes|IndexSizeBytes|NumberOfDecreasesToday)\"?:\s*\d+,?", "", text)
    return " ".join(text.split())


def install_admin(d):
    if not os.path.exists(os.path.join(d, "node_modules", "dynamodb-admin", "dist", "dynamodb-admin.js")):
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "package.json"), "w") as f:
            f.write('{"name": "keyplan-suites-admin", "private": true}\n')
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--no-save", f"dynamodb-admin@{ADMIN_VERSION}"], cwd=d, check=True)
    return os.path.join(d, "node_modules", "dynamodb-admin", "dist", "dynamodb-admin.js")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def run_admin(engines, engine, work, d):
    cli = install_admin(d)
    key, secret = "AKIDADMIN", "admin-secret-for-the-run"
    proc, url = engines.start(engine, key, secret)
    port = clients.free_port()
    env = {**base_env(), "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret}
    admin = subprocess.Popen(["node", cli, "--port", str(port), "--host", "127.0.0.1", "--dynamo-endpoint", url], env=env,
                             stdout=open(os.path.join(work, f"admin-{engine}.log"), "w"), stderr=subprocess.STDOUT)
    answers = []
    try:
        clients.wait_serving(f"http://127.0.0.1:{port}/api/tables", admin)
        opener = urllib.request.build_opener(NoRedirect)
        for name, method, path, body in ADMIN_STEPS:
            data = json.dumps(body).encode() if body is not None else None
            req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                         headers={"Content-Type": "application/json"} if data else {})
            try:
                r = opener.open(req, timeout=60)
                status, headers, raw = r.status, r.headers, r.read()
            except urllib.error.HTTPError as e:
                status, headers, raw = e.code, e.headers, e.read()
            text = raw.decode("utf-8", "replace")
            if "json" in (headers.get("Content-Type") or ""):
                shown = admin_normal(json.loads(text)) if text else None
            else:
                shown = admin_page(text)
            if status in (301, 302, 303, 307):
                shown = headers.get("Location")
            if name.startswith("scan") and isinstance(shown, dict) and "Items" in shown:
                # A Scan's order is the engine's own (DynamoDB promises none):
                # a page's items are compared as a set, pages by their size.
                if "pageSize=2" in path:
                    shown = {"page": len(shown["Items"]), "more": bool(shown.get("nextKey"))}
                else:
                    shown["Items"] = sorted(shown["Items"], key=lambda it: json.dumps(it, sort_keys=True))
            if isinstance(shown, dict) and "uniqueKeys" in shown:
                # The page's columns: the key, then the attributes in the order
                # the items hold them (DynamoDB promises no order).
                shown["uniqueKeys"] = sorted(shown["uniqueKeys"])
            answers.append({"status": status, "body": shown})
            # Let a created table become ACTIVE the way the UI's user would wait.
            if name.startswith("create table"):
                time.sleep(1)
    finally:
        clients.stop(admin)
        clients.stop(proc)
    results, failures = {}, {}
    for (name, *_rest), a in zip(ADMIN_STEPS, answers):
        results[name] = a
    return results, failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cache = os.environ.get("KEYPLAN_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "keyplan")
    found = sorted(glob.glob(os.path.join(cache, "*", "DynamoDBLocal.jar")))
    ap.add_argument("--suites", default="guregu,electrodb,admin")
    ap.add_argument("--ddblocal", default=os.environ.get("DYNAMODB_LOCAL_DIR") or (os.path.dirname(found[-1]) if found else None))
    ap.add_argument("--electrodb", help="a checkout of ElectroDB, its dev dependencies installed")
    ap.add_argument("--admin", default=os.path.join(cache, "suites-admin"), help="where dynamodb-admin is installed")
    ap.add_argument("--json", help="write every result to FILE")
    ap.add_argument("--keyplan", help="a keyplan binary to serve (default: built from this checkout)")
    args = ap.parse_args()
    if not args.ddblocal or not os.path.exists(os.path.join(args.ddblocal, "DynamoDBLocal.jar")):
        sys.exit("no DynamoDB Local: --ddblocal DIR (the directory holding DynamoDBLocal.jar)")

    work = tempfile.mkdtemp(prefix="keyplan-suites-")
    out, differ = {}, 0
    try:
        engines = Engines(work, args.ddblocal, args.keyplan and os.path.abspath(args.keyplan))
        for suite in args.suites.split(","):
            run = {"guregu": lambda e: run_guregu(engines, e, work),
                   "electrodb": lambda e: run_electrodb(engines, e, work, args.electrodb),
                   "admin": lambda e: run_admin(engines, e, work, args.admin)}[suite]
            by = {}
            for engine in ENGINES:
                by[engine] = run(engine)
                print(f"== {suite} on {engine}: done", flush=True)
            out[suite] = {e: {"results": r, "failures": f} for e, (r, f) in by.items()}
            differ += report(suite, by)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
    print(f"\n{differ} results differ")
    sys.exit(1 if differ else 0)


def report(suite, by):
    (ka, (ra, fa)), (kb, (rb, fb)) = by.items()
    print(f"\n## {suite}")
    if suite == "admin":
        same = sum(ra[n] == rb[n] for n in ra)
        print(f"{same} of {len(ra)} steps answered the same")
        for n in ra:
            if ra[n] != rb[n]:
                print(f"- {n}\n    {ka}: {json.dumps(ra[n], sort_keys=True)[:1500]}\n    {kb}: {json.dumps(rb[n], sort_keys=True)[:1500]}")
        return len(ra) - same
    for k, r in by.items():
        c = {s: sum(v == s for v in r[0].values()) for s in ("pass", "fail", "skip")}
        print(f"{k}: {c['pass']} passed, {c['fail']} failed, {c['skip']} skipped")
    differ = 0
    for n in sorted(set(ra) | set(rb)):
        if ra.get(n) != rb.get(n):
            differ += 1
            print(f"- {n}: {ka} {ra.get(n)}, {kb} {rb.get(n)}")
            for k, f in ((ka, fa), (kb, fb)):
                if n in f:
                    print(f"    {k}: " + f[n].strip().replace("\n", "\n      ")[:1500])
    return differ


if __name__ == "__main__":
    main()
