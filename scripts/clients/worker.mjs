// worker.mjs: the JavaScript SDK v3 side of scripts/clients/run.py. It
// reads one request a line on stdin ({"service": "dynamodb" or
// "streams", "op": "PutItem", "input": {...}}, binary values base64) and
// writes one answer a line on stdout: {"output": ...} or {"error":
// {"code", "message", ...}}, binary values base64, dates ISO, no $metadata.
// Usage: node worker.mjs ENDPOINT (credentials from AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY; the SDK from NODE_PATH).
import { createInterface } from "node:readline";
import { createRequire } from "node:module";

const require = createRequire(process.env.NODE_PATH + "/");
const ddb = require("@aws-sdk/client-dynamodb");
const streams = require("@aws-sdk/client-dynamodb-streams");

const endpoint = process.argv[2];
const config = {
  endpoint,
  region: "us-east-1",
  maxAttempts: 1,
  credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY },
};
const clients = { dynamodb: [new ddb.DynamoDBClient(config), ddb], streams: [new streams.DynamoDBStreamsClient(config), streams] };

// binary turns base64 strings under "B" and "BS" into bytes.
function binary(v) {
  if (Array.isArray(v)) return v.map(binary);
  if (v === null || typeof v !== "object") return v;
  const out = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === "B" && typeof x === "string") out[k] = Buffer.from(x, "base64");
    else if (k === "BS" && Array.isArray(x) && x.every((s) => typeof s === "string")) out[k] = x.map((s) => Buffer.from(s, "base64"));
    else out[k] = binary(x);
  }
  return out;
}

function plain(k, v) {
  if (k === "$metadata" || k === "$fault" || k === "$response") return undefined;
  if (v instanceof Uint8Array) return Buffer.from(v).toString("base64");
  if (v && v.type === "Buffer" && Array.isArray(v.data)) return Buffer.from(v.data).toString("base64");
  return v;
}

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  const { service, op, input } = JSON.parse(line);
  const [client, mod] = clients[service];
  let answer;
  try {
    if (op === "wait:TableExists") {
      await mod.waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1 }, binary(input));
      answer = { output: { waited: true } };
    } else {
      const Command = mod[op + "Command"];
      if (!Command) throw Object.assign(new Error(`no ${op}Command in the SDK`), { name: "NoSuchCommand" });
      answer = { output: await client.send(new Command(binary(input))) };
    }
  } catch (e) {
    const err = { code: e.name, message: e.message };
    for (const k of ["CancellationReasons", "Item"]) if (e[k] !== undefined) err[k] = e[k];
    answer = { error: err };
  }
  // Dates are ISO (Date's toJSON) before the replacer sees them.
  process.stdout.write(JSON.stringify(answer, plain) + "\n");
}
