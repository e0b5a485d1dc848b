#!/usr/bin/env python3
"""Run real DynamoDB clients against keyplan local and DynamoDB Local.

The AWS CLI v1 (`aws`, on PATH) and the JavaScript SDK v3
(@aws-sdk/client-dynamodb and -streams, installed by this script into a
directory outside the repository) each run one scenario (STEPS: tables,
items, queries, scans, batches, transactions, updates with expressions,
PartiQL, TTL, streams, index changes, errors) against each engine, both
started fresh by the script; every answer is printed, and each step's
answers on the two engines compared, fields that differ by nature (ARNs,
times, sequence numbers, request ids) left out. docs/engines.md records
what it found ("Real clients").

    scripts/clients/run.py [--ddblocal DIR] [--js DIR] [--json FILE]
        [--aws PATH] [--clients cli,sdk]

--ddblocal is the directory holding DynamoDBLocal.jar (default:
$DYNAMODB_LOCAL_DIR, else the one keyplan's tests installed in the user
cache); --js is where the SDK is installed (default a directory in the
user's cache, reused); --aws is the AWS CLI to run (default `aws` on PATH,
v1 or v2, named by its `--version`; Debian's awscli package is v2);
--clients picks the clients. Exit status 0 when every step answered the same
on both engines for both clients, 1 otherwise. Not part of make test.
"""

import argparse
import glob
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
JS_PACKAGES = ["@aws-sdk/client-dynamodb@3.1162.0", "@aws-sdk/client-dynamodb-streams@3.1141.0"]

T = "clients"


def S(v):
    return {"S": v}


def key(pk, sk):
    return {"PK": S(pk), "SK": S(sk)}


# Each step: a name, the service (dynamodb or streams), the operation and
# its input; "{Name}" strings are replaced by what an earlier step saved
# (SAVE). "wait:TableExists" waits for the table (the CLI's wait, the
# SDK's waiter).
STEPS = [
    ("create table with GSI and stream", "dynamodb", "CreateTable", {
        "TableName": T, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                                 {"AttributeName": "status", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        "GlobalSecondaryIndexes": [{"IndexName": "byStatus", "Projection": {"ProjectionType": "ALL"},
                                    "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]}],
        "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}}),
    ("create the same table again", "dynamodb", "CreateTable", {
        "TableName": T, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}),
    ("wait until the table exists", "dynamodb", "wait:TableExists", {"TableName": T}),
    ("describe table", "dynamodb", "DescribeTable", {"TableName": T}),
    ("put item of every type", "dynamodb", "PutItem", {"TableName": T, "Item": {
        **key("a", "1"), "status": S("open"), "n": {"N": "12.50"}, "b": {"B": "AQID"}, "ss": {"SS": ["b", "a", "c"]},
        "ns": {"NS": ["3", "1.0", "2"]}, "l": {"L": [S("x"), {"N": "1"}]}, "m": {"M": {"k": {"BOOL": True}, "z": {"NULL": True}}},
        "e": {"L": []}, "big": {"N": "123456789012345678901234567890123456.78"}}}),
    ("put item again, ALL_OLD and capacity", "dynamodb", "PutItem", {"TableName": T, "ReturnValues": "ALL_OLD",
        "ReturnConsumedCapacity": "TOTAL", "Item": {
        **key("a", "1"), "status": S("open"), "n": {"N": "12.50"}, "b": {"B": "AQID"}, "ss": {"SS": ["b", "a", "c"]},
        "ns": {"NS": ["3", "1.0", "2"]}, "l": {"L": [S("x"), {"N": "1"}]}, "m": {"M": {"k": {"BOOL": True}, "z": {"NULL": True}}}}}),
    ("get item with projection", "dynamodb", "GetItem", {"TableName": T, "Key": key("a", "1"), "ConsistentRead": True,
        "ProjectionExpression": "#n, ss, m.k, l[1], b", "ExpressionAttributeNames": {"#n": "n"}}),
    ("get item whole", "dynamodb", "GetItem", {"TableName": T, "Key": key("a", "1")}),
    ("get missing item", "dynamodb", "GetItem", {"TableName": T, "Key": key("a", "nope")}),
    ("batch write 12 items", "dynamodb", "BatchWriteItem", {"RequestItems": {T: [
        {"PutRequest": {"Item": {**key(pk, sk), "status": S("open" if i % 2 else "closed"), "n": {"N": str(i)}}}}
        for i, (pk, sk) in enumerate([("a", s) for s in ["2", "3", "4", "5", "6", "7", "8", "9", "10", "11"]] + [("b", "1"), ("t1", "x")])]}}),
    ("query begins_with, descending", "dynamodb", "Query", {"TableName": T, "KeyConditionExpression": "PK = :p AND begins_with(SK, :s)",
        "ExpressionAttributeValues": {":p": S("a"), ":s": S("1")}, "ScanIndexForward": False}),
    ("query Limit 3 (the CLI pages on)", "dynamodb", "Query", {"TableName": T, "KeyConditionExpression": "PK = :p",
        "ExpressionAttributeValues": {":p": S("a")}, "Limit": 3, "ProjectionExpression": "SK"}),
    ("query GSI with filter, COUNT", "dynamodb", "Query", {"TableName": T, "IndexName": "byStatus", "KeyConditionExpression": "#s = :o",
        "FilterExpression": "n >= :two", "ExpressionAttributeNames": {"#s": "status"},
        "ExpressionAttributeValues": {":o": S("open"), ":two": {"N": "2"}}, "Select": "COUNT", "ReturnConsumedCapacity": "INDEXES"}),
    ("query GSI BETWEEN", "dynamodb", "Query", {"TableName": T, "IndexName": "byStatus", "KeyConditionExpression": "#s = :o AND SK BETWEEN :lo AND :hi",
        "ExpressionAttributeNames": {"#s": "status"}, "ExpressionAttributeValues": {":o": S("closed"), ":lo": S("2"), ":hi": S("6")}}),
    ("scan with filter", "dynamodb", "Scan", {"TableName": T, "FilterExpression": "contains(ss, :v) OR size(l) > :z",
        "ExpressionAttributeValues": {":v": S("a"), ":z": {"N": "5"}}, "ReturnConsumedCapacity": "TOTAL"}),
    ("scan COUNT", "dynamodb", "Scan", {"TableName": T, "Select": "COUNT"}),
    ("batch get with projection", "dynamodb", "BatchGetItem", {"RequestItems": {T: {
        "Keys": [key("a", "1"), key("a", "2"), key("zz", "none")], "ProjectionExpression": "PK, SK, #s",
        "ExpressionAttributeNames": {"#s": "status"}}}}),
    ("update SET/REMOVE/ADD/DELETE, UPDATED_NEW", "dynamodb", "UpdateItem", {"TableName": T, "Key": key("a", "2"),
        "UpdateExpression": "SET n = if_not_exists(n, :zero) + :inc, l = list_append(if_not_exists(l, :empty), :more) REMOVE #s ADD ss :add, cnt :one DELETE ns :del",
        "ExpressionAttributeNames": {"#s": "status"},
        "ExpressionAttributeValues": {":zero": {"N": "0"}, ":inc": {"N": "0.5"}, ":empty": {"L": []}, ":more": {"L": [S("y")]},
                                      ":add": {"SS": ["q", "p"]}, ":one": {"N": "1"}, ":del": {"NS": ["1"]}},
        "ReturnValues": "UPDATED_NEW"}),
    ("update nested paths, ALL_NEW", "dynamodb", "UpdateItem", {"TableName": T, "Key": key("a", "1"),
        "UpdateExpression": "SET m.k = :f, l[0] = :x2, m.added = :x2 DELETE ss :b",
        "ExpressionAttributeValues": {":f": {"BOOL": False}, ":x2": S("x2"), ":b": {"SS": ["b"]}}, "ReturnValues": "ALL_NEW"}),
    ("update a new item, ALL_OLD", "dynamodb", "UpdateItem", {"TableName": T, "Key": key("c", "1"),
        "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": S("new")}, "ReturnValues": "ALL_OLD"}),
    ("update whose condition fails, ALL_OLD", "dynamodb", "UpdateItem", {"TableName": T, "Key": key("a", "1"),
        "UpdateExpression": "SET v = :v", "ConditionExpression": "attribute_not_exists(PK)", "ExpressionAttributeValues": {":v": S("no")},
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}),
    ("update with an unused value", "dynamodb", "UpdateItem", {"TableName": T, "Key": key("a", "1"),
        "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": S("x"), ":w": S("unused")}}),
    ("update a key attribute", "dynamodb", "UpdateItem", {"TableName": T, "Key": key("a", "1"),
        "UpdateExpression": "SET SK = :v", "ExpressionAttributeValues": {":v": S("x")}}),
    ("update with a syntax error", "dynamodb", "UpdateItem", {"TableName": T, "Key": key("a", "1"),
        "UpdateExpression": "SET v = ", "ExpressionAttributeValues": {":v": S("x")}}),
    ("put into a missing table", "dynamodb", "PutItem", {"TableName": "nosuchtable", "Item": key("a", "1")}),
    ("put with a key of the wrong type", "dynamodb", "PutItem", {"TableName": T, "Item": {"PK": {"N": "1"}, "SK": S("1")}}),
    ("put with an empty key string", "dynamodb", "PutItem", {"TableName": T, "Item": {"PK": S(""), "SK": S("1")}}),
    ("transaction cancelled", "dynamodb", "TransactWriteItems", {"TransactItems": [
        {"Put": {"TableName": T, "Item": {**key("a", "20"), "status": S("open")}}},
        {"Update": {"TableName": T, "Key": key("a", "3"), "UpdateExpression": "SET v = :v", "ConditionExpression": "attribute_exists(nope)",
                    "ExpressionAttributeValues": {":v": S("t")}, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
        {"ConditionCheck": {"TableName": T, "Key": key("a", "1"), "ConditionExpression": "attribute_exists(PK)"}}]}),
    ("transaction on one item twice", "dynamodb", "TransactWriteItems", {"TransactItems": [
        {"Put": {"TableName": T, "Item": key("a", "21")}}, {"Delete": {"TableName": T, "Key": key("a", "21")}}]}),
    ("transaction applied", "dynamodb", "TransactWriteItems", {"ClientRequestToken": "clients-run-1", "ReturnConsumedCapacity": "TOTAL", "TransactItems": [
        {"Put": {"TableName": T, "Item": {**key("a", "20"), "status": S("open")}}},
        {"Delete": {"TableName": T, "Key": key("a", "4")}},
        {"Update": {"TableName": T, "Key": key("a", "5"), "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": S("t")}}},
        {"ConditionCheck": {"TableName": T, "Key": key("a", "1"), "ConditionExpression": "attribute_exists(PK)"}}]}),
    ("transact get", "dynamodb", "TransactGetItems", {"TransactItems": [
        {"Get": {"TableName": T, "Key": key("a", "20")}}, {"Get": {"TableName": T, "Key": key("a", "4")}},
        {"Get": {"TableName": T, "Key": key("a", "5"), "ProjectionExpression": "v"}}]}),
    ("delete item, ALL_OLD", "dynamodb", "DeleteItem", {"TableName": T, "Key": key("a", "20"), "ReturnValues": "ALL_OLD"}),
    ("PartiQL select", "dynamodb", "ExecuteStatement", {"Statement": f"SELECT PK, SK, n FROM \"{T}\" WHERE PK = ? AND SK = ?",
        "Parameters": [S("a"), S("2")]}),
    ("PartiQL insert", "dynamodb", "ExecuteStatement", {"Statement": f"INSERT INTO \"{T}\" VALUE {{'PK': 'p', 'SK': '1', 'n': 5}}"}),
    ("PartiQL insert again", "dynamodb", "ExecuteStatement", {"Statement": f"INSERT INTO \"{T}\" VALUE {{'PK': 'p', 'SK': '1', 'n': 5}}"}),
    ("PartiQL update", "dynamodb", "ExecuteStatement", {"Statement": f"UPDATE \"{T}\" SET n = n + 1 WHERE PK = 'p' AND SK = '1' RETURNING ALL NEW *"}),
    ("PartiQL batch", "dynamodb", "BatchExecuteStatement", {"Statements": [
        {"Statement": f"SELECT * FROM \"{T}\" WHERE PK = 'p' AND SK = '1'"}, {"Statement": f"SELECT * FROM \"{T}\" WHERE PK = 'zz' AND SK = '1'"}]}),
    ("PartiQL transaction", "dynamodb", "ExecuteTransaction", {"TransactStatements": [
        {"Statement": f"DELETE FROM \"{T}\" WHERE PK = 'p' AND SK = '1'"}, {"Statement": f"INSERT INTO \"{T}\" VALUE {{'PK': 'p', 'SK': '2'}}"}]}),
    ("enable TTL", "dynamodb", "UpdateTimeToLive", {"TableName": T, "TimeToLiveSpecification": {"Enabled": True, "AttributeName": "exp"}}),
    ("describe TTL", "dynamodb", "DescribeTimeToLive", {"TableName": T}),
    ("describe table after writes", "dynamodb", "DescribeTable", {"TableName": T}),
    ("list streams", "streams", "ListStreams", {"TableName": T}),
    ("describe stream", "streams", "DescribeStream", {"StreamArn": "{StreamArn}"}),
    ("shard iterator TRIM_HORIZON", "streams", "GetShardIterator", {"StreamArn": "{StreamArn}", "ShardId": "{ShardId}", "ShardIteratorType": "TRIM_HORIZON"}),
    ("get records", "streams", "GetRecords", {"ShardIterator": "{ShardIterator}", "Limit": 1000}),
    ("get records with a bad iterator", "streams", "GetRecords", {"ShardIterator": "not-an-iterator"}),
    ("add a GSI", "dynamodb", "UpdateTable", {"TableName": T, "AttributeDefinitions": [{"AttributeName": "v", "AttributeType": "S"}],
        "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "byV", "KeySchema": [{"AttributeName": "v", "KeyType": "HASH"}],
                                                    "Projection": {"ProjectionType": "KEYS_ONLY"}}}]}),
    ("list tables", "dynamodb", "ListTables", {}),
    ("delete table", "dynamodb", "DeleteTable", {"TableName": T}),
    ("describe deleted table", "dynamodb", "DescribeTable", {"TableName": T}),
]


def save(name, out, ctx):
    """What later steps refer to."""
    if name == "describe table" and out:
        ctx["StreamArn"] = out.get("Table", {}).get("LatestStreamArn", "")
    if name == "describe stream" and out:
        shards = out.get("StreamDescription", {}).get("Shards", [])
        ctx["ShardId"] = shards[0]["ShardId"] if shards else ""
    if name == "shard iterator TRIM_HORIZON" and out:
        ctx["ShardIterator"] = out.get("ShardIterator", "")


def resolve(v, ctx):
    if isinstance(v, str) and v.startswith("{") and v.endswith("}") and v[1:-1] in ctx:
        return ctx[v[1:-1]]
    if isinstance(v, dict):
        return {k: resolve(x, ctx) for k, x in v.items()}
    if isinstance(v, list):
        return [resolve(x, ctx) for x in v]
    return v


# Fields that differ by nature from engine to engine and run to run.
VOLATILE = {"TableArn", "TableId", "CreationDateTime", "LatestStreamArn", "LatestStreamLabel", "StreamArn", "StreamLabel",
            "SequenceNumber", "StartingSequenceNumber", "EndingSequenceNumber", "ShardId", "ShardIterator", "NextShardIterator",
            "ApproximateCreationDateTime", "LastIncreaseDateTime", "LastDecreaseDateTime", "IndexArn", "ResponseMetadata",
            "eventID", "LastUpdateToPayPerRequestDateTime", "TableNames", "CreationRequestDateTime"}


def normal(v):
    if isinstance(v, dict):
        return {k: normal(x) for k, x in sorted(v.items()) if k not in VOLATILE}
    if isinstance(v, list):
        return [normal(x) for x in v]
    return v


def kebab(op):
    out = ""
    for i, c in enumerate(op):
        if c.isupper() and i:
            out += "-"
        out += c.lower()
    return out


class CLI:
    def __init__(self, endpoint, env, aws):
        self.endpoint, self.env, self.aws = endpoint, env, aws
        self.name = cli_name(aws, env)

    def call(self, service, op, inp):
        svc = "dynamodbstreams" if service == "streams" else "dynamodb"
        if op == "wait:TableExists":
            cmd = [self.aws, svc, "wait", "table-exists", "--table-name", inp["TableName"]]
        else:
            cmd = [self.aws, svc, kebab(op), "--cli-input-json", json.dumps(inp)]
        cmd += ["--endpoint-url", self.endpoint, "--region", "us-east-1", "--output", "json"]
        p = subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=120)
        if p.returncode == 0:
            return {"output": json.loads(p.stdout) if p.stdout.strip() else {}}
        err = p.stderr.strip()
        # "An error occurred (Code) when calling the Op operation: message"
        if err.startswith("An error occurred ("):
            code = err[len("An error occurred ("):err.index(")")]
            msg = err.split(" operation: ", 1)[1] if " operation: " in err else err
            return {"error": {"code": code, "message": msg}}
        return {"error": {"code": f"exit {p.returncode}", "message": err[-2000:]}}

    def close(self):
        pass


def cli_name(aws, env):
    """aws-cli-v1 or aws-cli-v2, from `aws --version` (aws-cli/2.9.19 ...)."""
    out = subprocess.run([aws, "--version"], env=env, capture_output=True, text=True).stdout
    major = out.split("/", 1)[1].split(".", 1)[0] if out.startswith("aws-cli/") else "?"
    return "aws-cli-v" + major


class SDK:
    name = "js-sdk-v3"

    def __init__(self, endpoint, env, js):
        self.p = subprocess.Popen(["node", os.path.join(HERE, "worker.mjs"), endpoint], env={**env, "NODE_PATH": os.path.join(js, "node_modules")},
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def call(self, service, op, inp):
        self.p.stdin.write(json.dumps({"service": service, "op": op, "input": inp}) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("the SDK worker died")
        return json.loads(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait(10)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_serving(url, proc, timeout=120):
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the engine at {url} exited ({proc.returncode})")
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"no engine answered at {url} within {timeout}s")


def start(name, work, args):
    port = free_port()
    log = open(os.path.join(work, name + ".log"), "w")
    if name == "keyplan-local":
        binary = os.path.join(work, "keyplan")
        subprocess.run(["go", "build", "-o", binary, "./cmd/keyplan"], cwd=REPO, check=True)
        cmd, cwd = [binary, "local", "--port", str(port), "--credentials-file", args.creds], work
    else:
        d = args.ddblocal
        cmd = ["java", f"-Djava.library.path={os.path.join(d, 'DynamoDBLocal_lib')}", "-jar", os.path.join(d, "DynamoDBLocal.jar"),
               "-inMemory", "-port", str(port)]
        cwd = work
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    wait_serving(url, proc)
    return proc, url


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def install_js(d):
    if all(os.path.exists(os.path.join(d, "node_modules", p.rsplit("@", 1)[0])) for p in JS_PACKAGES):
        return
    os.makedirs(d, exist_ok=True)
    if not os.path.exists(os.path.join(d, "package.json")):
        with open(os.path.join(d, "package.json"), "w") as f:
            f.write('{"name": "keyplan-clients", "private": true}\n')
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--no-save", *JS_PACKAGES], cwd=d, check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cache = os.environ.get("KEYPLAN_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "keyplan")
    found = sorted(glob.glob(os.path.join(cache, "*", "DynamoDBLocal.jar")))
    ap.add_argument("--ddblocal", default=os.environ.get("DYNAMODB_LOCAL_DIR") or (os.path.dirname(found[-1]) if found else None))
    ap.add_argument("--js", default=os.path.join(cache, "clients-js"))
    ap.add_argument("--json", help="write every answer to FILE")
    ap.add_argument("--aws", default="aws", help="the AWS CLI to run (default: aws on PATH)")
    ap.add_argument("--clients", default="cli,sdk", help="which clients: cli, sdk or both (default)")
    args = ap.parse_args()
    if not args.ddblocal or not os.path.exists(os.path.join(args.ddblocal, "DynamoDBLocal.jar")):
        sys.exit("no DynamoDB Local: --ddblocal DIR (the directory holding DynamoDBLocal.jar)")
    clients = args.clients.split(",")
    if "cli" in clients and not shutil.which(args.aws):
        sys.exit(f"no {args.aws} (the AWS CLI): --aws PATH")
    if "sdk" in clients:
        install_js(args.js)

    work = tempfile.mkdtemp(prefix="keyplan-clients-")
    key, secret = "AKIDCLIENTS" + secrets.token_hex(4).upper(), secrets.token_urlsafe(24)
    args.creds = os.path.join(work, "credentials")
    with open(os.open(args.creds, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(f"[default]\naws_access_key_id = {key}\naws_secret_access_key = {secret}\n")
    base = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env = {**base, "AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret, "AWS_DEFAULT_REGION": "us-east-1",
           "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull, "AWS_PAGER": ""}

    results = {}  # client -> engine -> [answers]
    try:
        for engine in ["keyplan-local", "dynamodb-local"]:
            makers = {"cli": lambda ep: CLI(ep, env, args.aws), "sdk": lambda ep: SDK(ep, env, args.js)}
            for make in [makers[c] for c in clients]:
                proc, url = start(engine, work, args)
                client = make(url)
                ctx, answers = {}, []
                try:
                    for name, service, op, inp in STEPS:
                        a = client.call(service, op, resolve(inp, ctx))
                        save(name, a.get("output"), ctx)
                        answers.append(a)
                        print(f"== {client.name} on {engine}: {name}\n{json.dumps(a, sort_keys=True)[:3000]}", flush=True)
                finally:
                    client.close()
                    stop(proc)
                results.setdefault(client.name, {})[engine] = answers
    finally:
        shutil.rmtree(work, ignore_errors=True)

    differ = 0
    print("\n| step | client | same on both | keyplan local | DynamoDB Local |\n|---|---|---|---|---|")
    for i, (name, *_rest) in enumerate(STEPS):
        for client, by in results.items():
            a, b = normal(by["keyplan-local"][i]), normal(by["dynamodb-local"][i])
            same = a == b
            differ += not same
            short = lambda x: ("error " + x["error"]["code"] + ": " + x["error"]["message"][:120]) if "error" in x else "ok"
            print(f"| {name} | {client} | {'yes' if same else 'NO'} | {short(a)} | {short(b)} |")
            if not same:
                print(f"|   | | | `{json.dumps(a, sort_keys=True)[:600]}` | `{json.dumps(b, sort_keys=True)[:600]}` |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"steps": [s[0] for s in STEPS], "results": results}, f, indent=1, sort_keys=True)
    print(f"\n{differ} step answers differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
