#!/usr/bin/env python3
"""A NeMo-Gym-shaped rollout collector in Python (3.11), the baseline of `npm run bench`'s collect
suite (issue 13).

What NeMo Gym's simple agent does for gymnast's `arithmetic` rows, with asyncio: POST
/v1/chat/completions with `return_token_ids` and `logprobs`, verify the answer in-process with the
arithmetic environment's rules (src/environments/arithmetic.ts: a direct answer is checked, a wrong
one gets "incorrect, try again" until `max_attempts`, `<calc>…</calc>` is evaluated as a tool call),
and append one JSON line per rollout.

HTTP is aiohttp's (`--http aiohttp`: one ClientSession whose connector keeps up to CONCURRENCY
connections, as NeMo Gym's servers client) or the standard library's (`--http stdlib`, the default:
one hand-written HTTP/1.1 keep-alive connection per concurrent worker, content-length bodies, the
cheapest client Python can have).

    python3 bench/python-collector.py [--http stdlib|aiohttp] URL[,URL…] MODEL INPUT OUTPUT CONCURRENCY REPEATS [MAX_TOKENS]

Several URLs (replicas of one model) share the workers: worker i talks to URL i mod n.

Prints one JSON line: rollouts, turns (generation requests sent), its own CPU split at the first
request (startup: interpreter, imports, reading the first row; run: the rest), and peak RSS.
"""

import asyncio
import json
import re
import resource
import sys
import time
from urllib.parse import urlsplit

CALL = re.compile(r"<calc>([^<]*)</calc>$")
INTEGER = re.compile(r"^-?\d+$")
EXPRESSION = re.compile(r"^[\d\s+\-*/()]+$")
MAX_TURNS = 8

first_request_cpu = None
turns = 0


def evaluate(expression):
    """The calculator tool: + - * / and parentheses over integers, else 'error' (as arithmetic-expression.ts)."""
    if not EXPRESSION.match(expression):
        return "error"
    try:
        value = eval(expression, {"__builtins__": {}}, {})  # only digits, operators and parentheses pass the check
    except Exception:
        return "error"
    if isinstance(value, float):
        if not value.is_integer():
            return "error"
        value = int(value)
    return value


class Connection:
    """One keep-alive HTTP/1.1 connection: a request at a time, bodies framed by content-length."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def post(self, path, body):
        global first_request_cpu, turns
        payload = json.dumps(body, separators=(",", ":")).encode()
        head = f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n".encode()
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        if first_request_cpu is None:
            first_request_cpu = time.process_time()
        turns += 1
        self.writer.write(head + payload)
        header = await self.reader.readuntil(b"\r\n\r\n")
        lines = header.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        length, close = 0, False
        for line in lines[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "connection" and value.strip().lower() == "close":
                close = True
        data = await self.reader.readexactly(length)
        if close:
            self.writer.close()
            self.reader = self.writer = None
        if status != 200:
            raise RuntimeError(f"{path}: HTTP {status}: {data[:200]!r}")
        return json.loads(data)

    def close(self):
        if self.writer is not None:
            self.writer.close()


class AiohttpClient:
    """NeMo Gym's way: one aiohttp ClientSession shared by every worker, JSON in and out."""

    def __init__(self, concurrency):
        import aiohttp

        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency), timeout=aiohttp.ClientTimeout(total=None))

    def at(self, url):
        """The session's requests to one server."""
        return AiohttpServer(self.session, url.rstrip("/"))

    async def close(self):
        await self.session.close()


class AiohttpServer:
    def __init__(self, session, url):
        self.session, self.url = session, url

    async def post(self, path, body):
        global first_request_cpu, turns
        if first_request_cpu is None:
            first_request_cpu = time.process_time()
        turns += 1
        async with self.session.post(self.url + path, json=body) as response:
            if response.status != 200:
                raise RuntimeError(f"{path}: HTTP {response.status}: {(await response.text())[:200]!r}")
            return await response.json()


async def rollout(connection, model, row, max_tokens, seed):
    """One episode of the arithmetic environment: returns the output row."""
    request = row["responses_create_params"]
    messages = [{"role": item["role"], "content": item["content"]} for item in request["input"]]
    answer = row["answer"]
    max_attempts = row.get("max_attempts", 2)
    max_tool_calls = row.get("max_tool_calls", 3)
    attempts = tool_calls = 0
    reward, extracted = 0, None
    output = []
    for turn in range(MAX_TURNS):
        body = {
            "model": model,
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": 1.0,
            "seed": seed * MAX_TURNS + turn,
            "stop": ["</calc>"],
            "include_stop_str_in_output": True,
            "return_token_ids": True,
            "logprobs": True,
        }
        response = await connection.post("/v1/chat/completions", body)
        choice = response["choices"][0]
        said = (choice["message"]["content"] or "").strip()
        output.append({
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": choice["message"]["content"]}],
            "prompt_token_ids": response.get("prompt_token_ids"),
            "generation_token_ids": choice.get("token_ids"),
            "generation_log_probs": [entry["logprob"] for entry in (choice.get("logprobs") or {}).get("content", [])],
        })
        messages.append({"role": "assistant", "content": said})
        call = CALL.search(said)
        if call:
            tool_calls += 1
            if tool_calls > max_tool_calls:
                break
            messages.append({"role": "user", "content": f"<result>{evaluate(call.group(1))}</result>"})
            continue
        attempts += 1
        extracted = said
        if INTEGER.match(said) and int(said) == answer:
            reward = 1
            break
        if attempts >= max_attempts:
            break
        messages.append({"role": "user", "content": "incorrect, try again"})
    return {**row, "response": {"output": output}, "reward": reward, "extracted_answer": extracted}


def jobs(path, repeats):
    """(task index, rollout index, row), read lazily: memory follows the concurrency, not the file."""
    with open(path) as rows:
        for task, line in enumerate(rows):
            if not line.strip():
                continue
            row = json.loads(line)
            for repeat in range(repeats):
                yield task, repeat, row


async def main():
    args = sys.argv[1:]
    http = "stdlib"
    if args[:1] == ["--http"]:
        http, args = args[1], args[2:]
    if http not in ("stdlib", "aiohttp"):
        sys.exit(f"python-collector: --http is stdlib or aiohttp, not {http!r}")
    urls, model, input_path, output_path = args[0].split(","), *args[1:4]
    concurrency, repeats = int(args[4]), int(args[5])
    max_tokens = int(args[6]) if len(args) > 6 else 256
    shared = AiohttpClient(concurrency) if http == "aiohttp" else None
    pending = jobs(input_path, repeats)
    rollouts = 0
    with open(output_path, "w") as out:

        async def worker(index):
            nonlocal rollouts
            url = urls[index % len(urls)]
            parts = urlsplit(url)
            connection = shared.at(url) if shared else Connection(parts.hostname, parts.port)
            try:
                for task, repeat, row in pending:
                    result = await rollout(connection, model, row, max_tokens, task * repeats + repeat)
                    out.write(json.dumps({"_ng_task_index": task, "_ng_rollout_index": repeat, **result}) + "\n")
                    rollouts += 1
            finally:
                if shared is None:
                    connection.close()

        try:
            await asyncio.gather(*(worker(index) for index in range(concurrency)))
        finally:
            if shared is not None:
                await shared.close()
    return rollouts


if __name__ == "__main__":
    done = asyncio.run(main())
    usage = resource.getrusage(resource.RUSAGE_SELF)
    total = usage.ru_utime + usage.ru_stime
    startup = first_request_cpu if first_request_cpu is not None else total
    print(json.dumps({
        "rollouts": done,
        "turns": turns,
        "startup_cpu_s": startup,
        "run_cpu_s": total - startup,
        "cpu_s": total,
        "peak_rss_mb": usage.ru_maxrss / 1024,
    }))
