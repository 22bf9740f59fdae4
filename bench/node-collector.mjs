#!/usr/bin/env node
// bench/python-collector.py in Node: a rollout collector that does what NeMo Gym's simple agent does
// for gymnast's `arithmetic` rows (POST /v1/chat/completions with `return_token_ids` and `logprobs`,
// verify in-process with the arithmetic environment's rules, append one JSON line per rollout), and
// nothing else: no chat template, no tokenizer, no checks. It measures the floor under gymnast collect
// on Node itself, in the same run (issue 13): what the runtime and its HTTP client cost per turn.
//
// HTTP is undici's (`--http undici`: one Pool of up to CONCURRENCY connections, the client gymnast's
// JsonClient is built on) or a hand-written one (`--http net`, the default: one keep-alive HTTP/1.1
// connection per concurrent worker over node:net, content-length bodies, the cheapest client Node
// can have). Plain JavaScript, run by node itself: nothing to compile or load beyond the client.
//
//     node bench/node-collector.mjs [--http net|undici] URL[,URL…] MODEL INPUT OUTPUT CONCURRENCY REPEATS [MAX_TOKENS]
//
// Several URLs (replicas of one model) share the workers: worker i talks to URL i mod n.
//
// Prints one JSON line, as the Python collector does: rollouts, turns (generation requests sent), its
// own CPU split at the first request (startup, run), and peak RSS.
import { closeSync, createWriteStream, openSync, readSync } from 'node:fs';
import { connect } from 'node:net';
import { once } from 'node:events';
import { StringDecoder } from 'node:string_decoder';

const CALL = /<calc>([^<]*)<\/calc>$/;
const INTEGER = /^-?\d+$/;
const EXPRESSION = /^[\d\s+\-*/()]+$/;
const MAX_TURNS = 8;

let firstRequestCpu;
let turns = 0;

function countTurn() {
  firstRequestCpu ??= process.cpuUsage();
  turns += 1;
}

/** The calculator tool: + - * / and parentheses over integers, else 'error' (as arithmetic-expression.ts). */
function evaluate(expression) {
  if (!EXPRESSION.test(expression)) return 'error';
  let value;
  try {
    // Only digits, operators and parentheses pass the check; strict mode refuses legacy octals as Python refuses 010.
    value = new Function(`'use strict'; return (${expression});`)();
  } catch {
    return 'error';
  }
  return Number.isInteger(value) ? value : 'error';
}

/** One keep-alive HTTP/1.1 connection: a request at a time, bodies framed by content-length. */
class Connection {
  #url;
  #socket;
  #received = [];
  #receivedBytes = 0;
  #waiting;

  constructor(url) {
    this.#url = url;
  }

  async post(path, body) {
    const payload = Buffer.from(JSON.stringify(body));
    const head = `POST ${path} HTTP/1.1\r\nHost: ${this.#url.host}\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n`;
    if (!this.#socket) await this.#connect();
    countTurn();
    const response = new Promise((resolve, reject) => (this.#waiting = { resolve, reject }));
    this.#socket.write(Buffer.concat([Buffer.from(head, 'latin1'), payload]));
    const { status, data, close } = await response;
    if (close) this.close();
    if (status !== 200) throw new Error(`${path}: HTTP ${status}: ${data.toString().slice(0, 200)}`);
    return JSON.parse(data.toString());
  }

  close() {
    this.#socket?.end();
    this.#socket = undefined;
  }

  async #connect() {
    const socket = connect(Number(this.#url.port), this.#url.hostname);
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.#receive(chunk));
    socket.on('error', (error) => this.#waiting?.reject(error));
    await once(socket, 'connect');
    this.#socket = socket;
  }

  #receive(chunk) {
    this.#received.push(chunk);
    this.#receivedBytes += chunk.length;
    const bytes = this.#received.length === 1 ? chunk : Buffer.concat(this.#received, this.#receivedBytes);
    const end = bytes.indexOf('\r\n\r\n');
    if (end < 0) return;
    const lines = bytes.toString('latin1', 0, end).split('\r\n');
    const status = Number(lines[0].split(' ')[1]);
    let length = 0;
    let close = false;
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') length = Number(value);
      else if (name === 'connection' && value.toLowerCase() === 'close') close = true;
    }
    if (bytes.length < end + 4 + length) {
      this.#received = [bytes];
      return;
    }
    this.#received = [];
    this.#receivedBytes = 0;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting.resolve({ status, data: bytes.subarray(end + 4, end + 4 + length), close });
  }
}

/** The gymnast way: one undici Pool shared by every worker, JSON in and out. */
class UndiciClient {
  #pool;

  constructor(Pool, url, concurrency) {
    this.#pool = new Pool(url.origin, { connections: concurrency });
  }

  async post(path, body) {
    countTurn();
    const response = await this.#pool.request({ path, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`${path}: HTTP ${response.statusCode}: ${text.slice(0, 200)}`);
    return JSON.parse(text);
  }

  close() {
    return this.#pool.close();
  }
}

/** One episode of the arithmetic environment: returns the output row. */
async function rollout(client, model, row, maxTokens, seed) {
  const messages = row.responses_create_params.input.map((item) => ({ role: item.role, content: item.content }));
  const maxAttempts = row.max_attempts ?? 2;
  const maxToolCalls = row.max_tool_calls ?? 3;
  let attempts = 0;
  let toolCalls = 0;
  let reward = 0;
  let extracted = null;
  const output = [];
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const body = {
      model,
      messages,
      max_tokens: maxTokens,
      temperature: 1.0,
      seed: seed * MAX_TURNS + turn,
      stop: ['</calc>'],
      include_stop_str_in_output: true,
      return_token_ids: true,
      logprobs: true,
    };
    const response = await client.post('/v1/chat/completions', body);
    const choice = response.choices[0];
    const said = (choice.message.content ?? '').trim();
    output.push({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: choice.message.content }],
      prompt_token_ids: response.prompt_token_ids,
      generation_token_ids: choice.token_ids,
      generation_log_probs: (choice.logprobs?.content ?? []).map((entry) => entry.logprob),
    });
    messages.push({ role: 'assistant', content: said });
    const call = CALL.exec(said);
    if (call) {
      toolCalls += 1;
      if (toolCalls > maxToolCalls) break;
      messages.push({ role: 'user', content: `<result>${evaluate(call[1])}</result>` });
      continue;
    }
    attempts += 1;
    extracted = said;
    if (INTEGER.test(said) && Number(said) === row.answer) {
      reward = 1;
      break;
    }
    if (attempts >= maxAttempts) break;
    messages.push({ role: 'user', content: 'incorrect, try again' });
  }
  return { ...row, response: { output }, reward, extracted_answer: extracted };
}

/** (task index, rollout index, row), read lazily in 64 KiB chunks: memory follows the concurrency, not the file. */
function* jobs(path, repeats) {
  const file = openSync(path, 'r');
  const chunk = Buffer.alloc(1 << 16);
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let task = 0;
  try {
    for (;;) {
      const read = readSync(file, chunk, 0, chunk.length, null);
      const lines = (rest + (read === 0 ? decoder.end() : decoder.write(chunk.subarray(0, read)))).split('\n');
      rest = read === 0 ? '' : lines.pop();
      for (const line of lines) {
        if (line.trim() === '') continue;
        const row = JSON.parse(line);
        for (let repeat = 0; repeat < repeats; repeat++) yield [task, repeat, row];
        task += 1;
      }
      if (read === 0) return;
    }
  } finally {
    closeSync(file);
  }
}

async function main(args) {
  let http = 'net';
  if (args[0] === '--http') [http, args] = [args[1], args.slice(2)];
  if (http !== 'net' && http !== 'undici') throw new Error(`--http is net or undici, not ${JSON.stringify(http)}`);
  const [urls, model, input, outputPath] = args;
  const [concurrency, repeats] = [Number(args[4]), Number(args[5])];
  const maxTokens = args[6] === undefined ? 256 : Number(args[6]);
  const bases = urls.split(',').map((url) => new URL(url));
  const Pool = http === 'undici' ? (await import('undici')).Pool : undefined;
  const shared = Pool ? bases.map((base) => new UndiciClient(Pool, base, concurrency)) : undefined;
  const pending = jobs(input, repeats);
  const out = createWriteStream(outputPath);
  let rollouts = 0;
  // One wait for every worker: a once('drain') each would pile up CONCURRENCY listeners.
  let drained;
  const write = async (line) => {
    if (out.write(line)) return;
    drained ??= once(out, 'drain').finally(() => (drained = undefined));
    await drained;
  };
  const worker = async (_, index) => {
    const client = shared?.[index % bases.length] ?? new Connection(bases[index % bases.length]);
    try {
      for (const [task, repeat, row] of pending) {
        const result = await rollout(client, model, row, maxTokens, task * repeats + repeat);
        await write(`${JSON.stringify({ _ng_task_index: task, _ng_rollout_index: repeat, ...result })}\n`);
        rollouts += 1;
      }
    } finally {
      if (!shared) client.close();
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await Promise.all((shared ?? []).map((client) => client.close()));
    out.end();
    await once(out, 'close');
  }
  return rollouts;
}

let done;
try {
  done = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`node-collector: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
const usage = process.resourceUsage();
const total = (usage.userCPUTime + usage.systemCPUTime) / 1e6;
const startup = firstRequestCpu === undefined ? total : (firstRequestCpu.user + firstRequestCpu.system) / 1e6;
process.stdout.write(
  `${JSON.stringify({ rollouts: done, turns, startup_cpu_s: startup, run_cpu_s: total - startup, cpu_s: total, peak_rss_mb: usage.maxRSS / 1024 })}\n`,
);
