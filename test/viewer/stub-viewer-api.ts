// A stand-in for `gymnast view`'s server, for the viewer's browser tests: serves assets/viewer/
// and canned JSON in the shape of the viewer API (GET /api/runs, …/overview, …/rollouts,
// …/rollouts/:id, …/groups/:task), with the list filters applied as the real server applies them.

import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ASSETS = fileURLToPath(new URL('../../assets/viewer/', import.meta.url));

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

export interface StubItem {
  id: string;
  task: number;
  rollout: number;
  agent: string;
  reward: number | null;
  termination: string;
  failure_class: string | null;
  turns: number;
  tokens: number;
  drift: number;
  duration_ms: number;
}

const TERMINATIONS = ['env-done', 'env-done', 'max-turns', 'max-seq-len'];

/** 6 tasks × 4 rollouts; rewards, terminations and lengths vary; one failure, two with drift. */
export function stubItems(run: string): StubItem[] {
  const items: StubItem[] = [];
  for (let task = 0; task < 6; task++) {
    for (let rollout = 0; rollout < 4; rollout++) {
      const n = task * 4 + rollout;
      const failed = n === 7;
      items.push({
        id: `${task}-${rollout}`,
        task,
        rollout,
        agent: run === 'demo' ? 'arithmetic' : 'calculator',
        reward: failed ? null : [1, 0, 0.5, 0.25][(task + rollout) % 4]!,
        termination: failed ? 'policy-error' : TERMINATIONS[n % TERMINATIONS.length]!,
        failure_class: failed ? 'transport' : null,
        turns: 1 + (n % 3),
        tokens: 20 + n * 3,
        drift: n === 5 || n === 13 ? 2 : 0,
        duration_ms: 100 + n * 17,
      });
    }
  }
  return items;
}

function messages(item: StubItem) {
  return [
    { role: 'system', content: 'Answer with a number. <b>not bold</b>' },
    { role: 'user', content: `what is ${item.task}+37?`, token_ids: [1, 46, 31, 24] },
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'calculator', arguments: `{"a":${item.task},"b":37,"op":"sum"}` } }], token_ids: [12, 11], generation_logprobs: [-0.01, -2.3] },
    { role: 'tool', content: String(item.task + 37), tool_call_id: 'call_1', token_ids: [5, 6] },
    { role: 'assistant', content: String(item.task + 37), token_ids: [12, 11, 3], generation_logprobs: [-0.0003, -0.7, -4.5] },
  ];
}

function detail(item: StubItem) {
  const msgs = messages(item);
  const tokens = msgs.flatMap((msg, message) =>
    (msg.token_ids ?? []).map((id, i) => ({
      id,
      text: id === 3 ? null : i === 0 && msg.role === 'user' ? '<script>alert(1)</script>' : `t${id}${i === 1 ? '\n' : ''}`,
      logprob: msg.generation_logprobs?.[i] ?? null,
      trained: msg.role === 'assistant',
      message,
      role: msg.role,
    })),
  );
  return {
    summary: item,
    row: {
      messages: msgs,
      turns: [
        { index: 0, prompt_tokens: 5, generated_tokens: 2, env_tokens: 2, finish_reason: { unified: 'tool-calls', raw: 'tool_calls' }, timing: { generation_ms: 41.5, env_ms: 1.2 } },
        { index: 1, prompt_tokens: 9, generated_tokens: 3, finish_reason: { unified: 'stop', raw: 'stop' }, timing: { generation_ms: 60.1, env_ms: 0.8 }, reward: item.reward },
      ],
      reward: item.reward,
      reward_components: { correct: item.reward ?? 0, format: 1 },
      termination: { kind: item.termination },
      response: { output: [] },
    },
    tokens,
    drift_points: item.drift > 0 ? [7] : [],
  };
}

function histogram(values: number[], bins: number) {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const width = (hi - lo) / bins || 1;
  return Array.from({ length: bins }, (_, i) => ({
    lo: lo + i * width,
    hi: lo + (i + 1) * width,
    count: values.filter((v) => (i === bins - 1 ? v >= lo + i * width : v >= lo + i * width && v < lo + (i + 1) * width)).length,
  }));
}

function tally(values: string[]) {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

export function stubOverview(run: string, version: number) {
  const items = stubItems(run);
  const ok = items.filter((item) => item.failure_class === null);
  const rewards = ok.map((item) => item.reward!);
  return {
    id: run,
    file: `/tmp/runs/${run}/rollouts.jsonl`,
    agents: [...new Set(items.map((item) => item.agent))],
    model: run === 'demo' ? 'embedded' : null,
    counts: { rollouts: ok.length, failures: items.length - ok.length, tasks: 6 },
    mean_reward: rewards.reduce((a, b) => a + b, 0) / rewards.length,
    pass_at_k: [1, 2, 3, 4].map((k) => ({ k, value: run === 'demo' ? 1 - 0.5 ** k : 0.3 + k * 0.1 })),
    reward_histogram: histogram(rewards, 10),
    terminations: tally(ok.map((item) => item.termination)),
    failure_classes: tally(items.flatMap((item) => (item.failure_class ? [item.failure_class] : []))),
    turns_histogram: histogram(ok.map((item) => item.turns), 3),
    tokens_histogram: histogram(ok.map((item) => item.tokens), 8),
    drift: { rollouts: 2, total: 4 },
    version,
  };
}

function list(run: string, query: URLSearchParams) {
  let items = stubItems(run);
  const eq = (name: 'termination' | 'agent' | 'failure_class', param: string) => {
    const value = query.get(param);
    if (value) items = items.filter((item) => String(item[name]) === value);
  };
  eq('termination', 'termination');
  eq('agent', 'agent');
  eq('failure_class', 'failure');
  if (query.get('task')) items = items.filter((item) => String(item.task) === query.get('task'));
  if (query.get('drift') === '1') items = items.filter((item) => item.drift > 0);
  if (query.get('min_reward')) items = items.filter((item) => item.reward !== null && item.reward >= Number(query.get('min_reward')));
  if (query.get('max_reward')) items = items.filter((item) => item.reward !== null && item.reward <= Number(query.get('max_reward')));
  const q = query.get('q')?.toLowerCase();
  if (q) items = items.filter((item) => messages(item).some((msg) => msg.content.toLowerCase().includes(q)));
  const sort = query.get('sort');
  if (sort) {
    const key = ({ reward: 'reward', tokens: 'tokens', turns: 'turns', task: 'task', duration: 'duration_ms' } as const)[sort.replace(/^-/, '') as 'reward'];
    const sign = sort.startsWith('-') ? -1 : 1;
    items.sort((a, b) => sign * (((a[key] as number | null) ?? -Infinity) - ((b[key] as number | null) ?? -Infinity)));
  }
  const offset = Number(query.get('offset') ?? 0);
  const limit = Number(query.get('limit') ?? 50);
  return { total: items.length, offset, items: items.slice(offset, offset + limit) };
}

export interface StubViewer {
  url: string;
  /** Bumps a run's version, as a growing run does. */
  bump(run: string): void;
  /** The API paths requested so far. */
  requests: string[];
  close(): Promise<void>;
}

export async function startStubViewer(): Promise<StubViewer> {
  const versions = new Map([
    ['demo', 1],
    ['other', 1],
  ]);
  const requests: string[] = [];
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://stub');
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (url.pathname.startsWith('/api/')) {
      requests.push(url.pathname + url.search);
      const parts = url.pathname.split('/').slice(2).map(decodeURIComponent);
      if (parts.length === 1 && parts[0] === 'runs') {
        return send(200, { runs: [...versions].map(([id, version]) => { const o = stubOverview(id, version); return { id, file: o.file, agents: o.agents, rollouts: o.counts.rollouts, failures: o.counts.failures, mean_reward: o.mean_reward, version }; }) });
      }
      const run = parts[1]!;
      if (parts[0] !== 'runs' || !versions.has(run)) return send(404, { error: { message: `no run ${run}` } });
      if (parts[2] === 'overview') return send(200, stubOverview(run, versions.get(run)!));
      if (parts[2] === 'rollouts' && parts.length === 3) return send(200, list(run, url.searchParams));
      if (parts[2] === 'rollouts' && parts.length === 4) {
        const item = stubItems(run).find((one) => one.id === parts[3]);
        return item ? send(200, detail(item)) : send(404, { error: { message: `no rollout ${parts[3]}` } });
      }
      if (parts[2] === 'groups' && parts.length === 4) {
        const items = stubItems(run).filter((one) => String(one.task) === parts[3]);
        return send(200, { task: parts[3], items: items.map((item) => ({ ...item, messages: messages(item).map(({ role, content }) => ({ role, content })) })) });
      }
      return send(404, { error: { message: `no route ${url.pathname}` } });
    }
    const name = url.pathname === '/' ? 'index.html' : normalize(decodeURIComponent(url.pathname)).replace(/^[/\\]+/, '');
    if (name.startsWith('..')) return send(404, { error: { message: 'not found' } });
    try {
      const body = await readFile(join(ASSETS, name));
      response.writeHead(200, { 'content-type': TYPES[extname(name)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      send(404, { error: { message: `no file ${name}` } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    bump: (run) => versions.set(run, (versions.get(run) ?? 0) + 1),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
