import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { findRuns } from '../../src/servers/viewer/run-files.js';
import { ViewerServer } from '../../src/servers/viewer/viewer-server.js';
import type { RolloutDetail, RolloutPage, RolloutSummary } from '../../src/viewer/rollout-views.js';
import type { RunOverview, RunSummary } from '../../src/viewer/run-overview.js';
import { MAX_TIMELINE_ROLLOUTS, type RunTimeline } from '../../src/viewer/run-timeline.js';
import { syntheticRow, toLines } from '../support/synthetic-rows.js';

type ErrorBody = { error: { message: string } };
type Group = { task: number; items: (RolloutSummary & { messages: Record<string, unknown>[] })[]; task_findings: { check: string }[] | null };

const gymnast = new URL('../../bin/gymnast.js', import.meta.url).pathname;
const examples = new URL('../../examples/arithmetic.jsonl', import.meta.url).pathname;

/** GET with the path sent exactly as written (fetch would fold `..` away before sending). */
function rawGet(base: string, path: string): Promise<{ status: number; type: string; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    request({ host: hostname, port, path }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, type: String(response.headers['content-type']), body }));
    })
      .on('error', reject)
      .end();
  });
}

/** GET a path of the viewer's API, its body parsed as JSON. */
async function getJson<T>(server: ViewerServer, path: string): Promise<T> {
  return (await (await fetch(`${server.url}${path}`)).json()) as T;
}

describe('gymnast view: the viewer API over a real run of the embedded model', () => {
  let directory: string;
  let assets: string;
  let server: ViewerServer;
  const get = async <T = ErrorBody>(path: string) => {
    const response = await fetch(`${server.url}${path}`);
    return { status: response.status, body: (await response.json()) as T };
  };

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'gymnast-view-'));
    await promisify(execFile)(process.execPath, [
      gymnast,
      'collect',
      '--input',
      examples,
      '--num-repeats',
      '2',
      '--output',
      join(directory, 'run', 'out.jsonl'),
    ]);
    assets = join(directory, 'assets');
    mkdirSync(join(assets, 'pages'), { recursive: true });
    writeFileSync(join(assets, 'index.html'), '<!doctype html><title>view</title>');
    writeFileSync(join(assets, 'app.js'), 'export {};');
    writeFileSync(join(assets, 'pages', 'runs.js'), 'export {};');
    writeFileSync(join(directory, 'secret.txt'), 'do not serve');
    server = await ViewerServer.open({ runs: await findRuns(join(directory, 'run')), assetsDirectory: assets });
    await server.start();
  });
  after(async () => {
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('listens on loopback and lists the run', async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    await server.indexed();
    const { body } = await get<{ runs: RunSummary[] }>('/api/runs');
    assert.deepEqual(
      body.runs.map(({ version: _, indexing: __, ...run }) => run),
      [{ id: 'out', file: join(directory, 'run', 'out.jsonl'), agents: ['arithmetic'], rollouts: 32, failures: 0, mean_reward: body.runs[0]!.mean_reward }],
    );
    assert.equal(body.runs[0]!.indexing.done, true);
  });

  it('gives an overview: counts, the model, pass@1 and pass@2, histograms, terminations', async () => {
    const { status, body } = await get<RunOverview>('/api/runs/out/overview');
    assert.equal(status, 200);
    assert.deepEqual(body.counts, { rollouts: 32, failures: 0, tasks: 16, prompt_too_long: 0 });
    assert.equal(body.model, 'gymnast-tiny-arith');
    assert.deepEqual(
      body.pass_at_k.map((entry) => entry.k),
      [1, 2],
    );
    assert.ok(body.pass_at_k[1]!.value >= body.pass_at_k[0]!.value);
    assert.equal(
      body.reward_histogram.reduce((sum, bin) => sum + bin.count, 0),
      32,
    );
    assert.equal(
      Object.values(body.terminations).reduce((a, b) => a + b, 0),
      32,
    );
    assert.deepEqual(body.drift, { rollouts: 0, total: 0 });
    assert.equal(typeof body.version, 'number');
  });

  it('pages sorted, filtered rollouts', async () => {
    const { body } = await get<RolloutPage>('/api/runs/out/rollouts?limit=5&offset=0&sort=-tokens');
    assert.equal(body.total, 32);
    assert.equal(body.items.length, 5);
    const tokens = body.items.map((item) => item.tokens);
    assert.deepEqual(
      tokens,
      [...tokens].sort((a, b) => b - a),
    );
    assert.deepEqual(Object.keys(body.items[0]!).sort(), [
      'agent',
      'drift',
      'drift_unchecked',
      'duration_ms',
      'failure_class',
      'health',
      'id',
      'reward',
      'rollout',
      'task',
      'termination',
      'tokens',
      'turns',
    ]);
    assert.equal((await get<RolloutPage>('/api/runs/out/rollouts?task=3')).body.total, 2);
    assert.equal((await get<RolloutPage>('/api/runs/out/rollouts?q=what%20is%2050%2B37')).body.total, 2);
  });

  it('shows one rollout: the row, every token decoded by the embedded tokenizer, the loss mask', async () => {
    const { status, body } = await get<RolloutDetail>('/api/runs/out/rollouts/o0');
    assert.equal(status, 200);
    assert.equal(body.summary.id, 'o0');
    // o0 is the file's first line: whichever rollout finished first, so its task is the row's, not a fixed one.
    assert.equal(body.row._ng_task_index, body.summary.task, 'the row is the one its summary names');
    const messages = body.row.messages ?? [];
    assert.deepEqual(
      body.tokens.map((token) => token.id),
      messages.flatMap((message) => message.token_ids ?? []),
    );
    const sampled = body.tokens.filter((token) => token.trained);
    assert.ok(sampled.length > 0 && sampled.every((token) => token.role === 'assistant' && typeof token.logprob === 'number'));
    assert.equal(
      body.tokens.filter((token) => !token.trained).every((token) => token.logprob === null),
      true,
    );
    assert.ok(body.tokens.every((token) => typeof token.text === 'string'));
    assert.deepEqual(body.drift_points, []);
  });

  it('decodes no tokens of rows an agent server sampled with its own model (the embedded tokenizer did not make them)', async () => {
    const copy = join(directory, 'remote');
    mkdirSync(copy);
    for (const name of ['out.jsonl', 'out_materialized_inputs.jsonl', 'out_failures.jsonl']) copyFileSync(join(directory, 'run', name), join(copy, name));
    const identity = JSON.parse(readFileSync(join(directory, 'run', 'out_run.json'), 'utf8')) as { config: Record<string, unknown> };
    identity.config.remote_agents = ['arithmetic'];
    writeFileSync(join(copy, 'out_run.json'), JSON.stringify(identity));
    const viewer = await ViewerServer.open({ runs: await findRuns(copy), assetsDirectory: assets });
    await viewer.start();
    try {
      await viewer.indexed();
      const body = (await (await fetch(`${viewer.url}/api/runs/out/rollouts/o0`)).json()) as RolloutDetail;
      assert.ok(body.tokens.length > 0);
      assert.ok(
        body.tokens.every((token) => token.text === null),
        "ids only, never another tokenizer's pieces",
      );
    } finally {
      await viewer.close();
    }
  });

  it('groups a task for the side-by-side view, messages without token fields', async () => {
    const { body } = await get<Group>('/api/runs/out/groups/5');
    assert.equal(body.task, 5);
    assert.deepEqual(
      body.items.map((item) => item.rollout),
      [0, 1],
    );
    assert.ok(body.items[0]!.messages.every((message) => !('token_ids' in message) && !('generation_logprobs' in message)));
  });

  it('answers 404 for an unknown run, rollout or task, and 400 naming a bad query parameter', async () => {
    for (const path of ['/api/runs/nope/overview', '/api/runs/out/rollouts/o999', '/api/runs/out/rollouts/x1', '/api/runs/out/groups/99', '/api/nothing']) {
      const { status, body } = await get(path);
      assert.equal(status, 404, path);
      assert.equal(typeof body.error.message, 'string');
    }
    const bad = await get('/api/runs/out/rollouts?limit=-3');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /limit/);
    assert.match((await get('/api/runs/out/rollouts?sort=size')).body.error.message, /sort/);
  });

  it('serves the front-end: index.html at /, files by name or under /static/, with their content types', async () => {
    const index = await rawGet(server.url, '/');
    assert.deepEqual([index.status, index.type], [200, 'text/html; charset=utf-8']);
    assert.match(index.body, /<title>view/);
    assert.equal((await rawGet(server.url, '/app.js')).type, 'text/javascript; charset=utf-8');
    assert.equal((await rawGet(server.url, '/static/app.js')).status, 200);
    assert.equal((await rawGet(server.url, '/pages/runs.js')).status, 200);
    assert.equal((await rawGet(server.url, '/missing.css')).status, 404);
  });

  it('refuses paths that climb out of the assets folder', async () => {
    for (const path of ['/../secret.txt', '/static/../../secret.txt', '/..%2Fsecret.txt', '/static/%2e%2e/secret.txt', '/pages/..%5C..%5Csecret.txt']) {
      const answer = await rawGet(server.url, path);
      assert.equal(answer.status, 400, path);
      assert.doesNotMatch(answer.body, /do not serve/);
    }
  });

  it('gives the timeline: every rollout by when it started, each turn with its start, generation and environment times (no server: the embedded model)', async () => {
    const { status, body } = await get<RunTimeline>('/api/runs/out/timeline');
    assert.equal(status, 200);
    assert.deepEqual([body.recorded, body.rollouts, body.timed, body.offset, body.left_out], [true, 32, 32, 0, { before: 0, after: 0 }]);
    const starts = body.items.map((item) => item.started_at);
    assert.deepEqual(
      starts,
      [...starts].sort((a, b) => a - b),
    );
    assert.equal(body.first_started_at, starts[0]);
    const summaries = new Map((await get<RolloutPage>('/api/runs/out/rollouts?limit=100')).body.items.map((item) => [item.id, item]));
    for (const item of body.items) {
      const summary = summaries.get(item.id)!;
      assert.deepEqual([item.task, item.rollout, item.reward, item.duration_ms], [summary.task, summary.rollout, summary.reward, summary.duration_ms]);
      assert.equal(item.turns.length, summary.turns);
      for (const turn of item.turns) {
        assert.equal(turn.server, null);
        assert.ok(turn.start_ms !== null && turn.start_ms + turn.generation_ms <= item.duration_ms! + 0.005, JSON.stringify(turn));
      }
    }
    const window = (await get<RunTimeline>('/api/runs/out/timeline?offset=30&limit=5')).body;
    assert.deepEqual(
      [window.items.map((item) => item.id), window.left_out, window.first_started_at],
      [body.items.slice(30).map((item) => item.id), { before: 30, after: 0 }, starts[0]],
    );
    assert.deepEqual((await get<RunTimeline>('/api/runs/out/timeline?limit=3')).body.left_out, { before: 0, after: 29 });
    for (const limit of ['0', String(MAX_TIMELINE_ROLLOUTS + 1)]) {
      const bad = await get(`/api/runs/out/timeline?limit=${limit}`);
      assert.equal(bad.status, 400, limit);
      assert.match(bad.body.error.message, /limit/);
    }
  });

  it('follows the run: a new line bumps the version and the count', async () => {
    const before = (await get<RunOverview>('/api/runs/out/overview')).body;
    const row = (await get<RolloutDetail>('/api/runs/out/rollouts/o0')).body.row;
    writeFileSync(join(directory, 'run', 'out.jsonl'), `${JSON.stringify({ ...row, _ng_task_index: 100 })}\n`, { flag: 'a' });
    const after = (await get<RunOverview>('/api/runs/out/overview')).body;
    assert.equal(after.counts.rollouts, before.counts.rollouts + 1);
    assert.ok(after.version > before.version);
  });
});

describe('gymnast view: the verdicts of gymnast health beside a run', () => {
  let directory: string;
  let server: ViewerServer;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'gymnast-view-health-'));
    const output = join(directory, 'out.jsonl');
    // Greedy, so every run is the same run: the report's counts are the corruption's, not sampling luck's.
    await promisify(execFile)(process.execPath, [gymnast, 'collect', '--input', examples, '--num-repeats', '2', '--temperature', '0', '--output', output]);
    // One row corrupted by hand (its first logprob above 0, as a sampler's bug would write it: on response.output, the one copy the row stores), then checked again as a user would.
    const lines = readFileSync(output, 'utf8').split('\n');
    const row = JSON.parse(lines[3]!);
    row.response.output.find((item: { generation_log_probs?: number[] }) => item.generation_log_probs).generation_log_probs[0] = 0.25;
    lines[3] = JSON.stringify(row);
    writeFileSync(output, lines.join('\n'));
    await promisify(execFile)(process.execPath, [gymnast, 'health', output, '--max-unhealthy', '1']);
    // The same run without a report.
    mkdirSync(join(directory, 'bare'));
    copyFileSync(output, join(directory, 'bare', 'bare.jsonl'));
    server = await ViewerServer.open({ runs: [...(await findRuns(output)), ...(await findRuns(join(directory, 'bare')))] });
    await server.start();
    await server.indexed();
  });
  after(async () => {
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('marks the corrupted rollout unhealthy in the list, and filters by verdict', async () => {
    const all = await getJson<RolloutPage>(server, '/api/runs/out/rollouts?limit=100');
    assert.deepEqual(
      all.items.filter((item) => item.health !== 'healthy').map((item) => [item.id, item.health]),
      [['o3', 'unhealthy']],
    );
    const unhealthy = await getJson<RolloutPage>(server, '/api/runs/out/rollouts?health=unhealthy');
    assert.deepEqual(
      unhealthy.items.map((item) => item.id),
      ['o3'],
    );
    assert.equal((await getJson<RolloutPage>(server, '/api/runs/out/rollouts?health=healthy')).total, 31);
  });

  it("gives the rollout's findings with its detail, and the report's counts with the overview", async () => {
    const detail = await getJson<RolloutDetail>(server, '/api/runs/out/rollouts/o3');
    assert.equal(detail.health?.verdict, 'unhealthy');
    assert.deepEqual(
      detail.health?.findings.map((finding) => finding.check),
      ['logprobs-positive'],
    );
    const overview = await getJson<RunOverview>(server, '/api/runs/out/overview');
    assert.deepEqual(overview.health, { healthy: 31, warning: 0, unhealthy: 1, evaluation_only: 0, failed: 0, checks: { 'logprobs-positive': 1 } });
    assert.deepEqual((await getJson<Group>(server, '/api/runs/out/groups/0')).task_findings, []);
  });

  it('says null where there is no report', async () => {
    assert.equal((await getJson<RunOverview>(server, '/api/runs/bare/overview')).health, null);
    assert.equal((await getJson<RolloutPage>(server, '/api/runs/bare/rollouts?limit=1')).items[0]!.health, null);
    assert.equal((await getJson<RolloutDetail>(server, '/api/runs/bare/rollouts/o3')).health, null);
    assert.equal((await getJson<Group>(server, '/api/runs/bare/groups/0')).task_findings, null);
  });
});

describe('gymnast view listens before a big run is indexed', () => {
  let directory: string;
  let server: ViewerServer;
  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'gymnast-view-big-'));
    const rows = Array.from({ length: 6000 }, (_, i) => syntheticRow({ task: Math.floor(i / 4), rollout: i % 4, reward: i % 2, tokensPerMessage: 100 }));
    writeFileSync(join(directory, 'big.jsonl'), toLines(rows));
  });
  after(async () => {
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('answers at once with what is indexed so far and the progress, then the whole run', async () => {
    server = await ViewerServer.open({ runs: await findRuns(join(directory, 'big.jsonl')) });
    await server.start();
    const early = (await (await fetch(`${server.url}/api/runs`)).json()) as { runs: RunSummary[] };
    const { indexing } = early.runs[0]!;
    assert.equal(indexing.done, false);
    assert.ok(indexing.bytes_read < indexing.bytes_total && indexing.bytes_total > 5e6, JSON.stringify(indexing));
    assert.ok(early.runs[0]!.rollouts < 6000);
    await server.indexed();
    const overview = (await (await fetch(`${server.url}/api/runs/big/overview`)).json()) as RunOverview;
    assert.deepEqual([overview.indexing.done, overview.indexing.bytes_read, overview.counts.rollouts], [true, overview.indexing.bytes_total, 6000]);
  });
});

describe('gymnast view: the timeline of runs that record replicas, and of runs that record no timing', () => {
  let directory: string;
  let server: ViewerServer;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'gymnast-view-timeline-'));
    const replicas = ['http://10.0.0.1:8000', 'http://10.0.0.2:8000'];
    // Rollouts written out of start order, and two rows of an older gymnast without started_at.
    const timed = Array.from({ length: 12 }, (_, i) =>
      syntheticRow({ task: i, rollout: 0, turns: 1 + (i % 3), startedAt: 1_795_000_000_000 + ((i * 7) % 12) * 100, server: replicas[i % 2]! }),
    );
    writeFileSync(join(directory, 'fleet.jsonl'), toLines([...timed, syntheticRow({ task: 20, rollout: 0 }), syntheticRow({ task: 21, rollout: 0 })]));
    writeFileSync(join(directory, 'old.jsonl'), toLines([syntheticRow({ task: 0, rollout: 0 }), syntheticRow({ task: 1, rollout: 0, failure: 'transport' })]));
    server = await ViewerServer.open({ runs: [...(await findRuns(join(directory, 'fleet.jsonl'))), ...(await findRuns(join(directory, 'old.jsonl')))] });
    await server.start();
    await server.indexed();
  });
  after(async () => {
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('places the rollouts that record their start, in start order, each turn with its replica; says how many were left out', async () => {
    const body = await getJson<RunTimeline>(server, '/api/runs/fleet/timeline');
    assert.deepEqual([body.recorded, body.rollouts, body.timed, body.first_started_at], [true, 14, 12, 1_795_000_000_000]);
    assert.deepEqual(
      body.items.map((item) => item.started_at - 1_795_000_000_000),
      Array.from({ length: 12 }, (_, i) => i * 100),
    );
    const task5 = body.items.find((item) => item.task === 5)!;
    assert.deepEqual(task5.turns, [
      { start_ms: 0, generation_ms: 1, env_ms: 1, server: 'http://10.0.0.2:8000' },
      { start_ms: 3, generation_ms: 1, env_ms: 1, server: 'http://10.0.0.2:8000' },
      { start_ms: 6, generation_ms: 1, env_ms: 1, server: 'http://10.0.0.2:8000' },
    ]);
    const window = await getJson<RunTimeline>(server, '/api/runs/fleet/timeline?offset=4&limit=5');
    assert.deepEqual(
      window.items.map((item) => item.id),
      body.items.slice(4, 9).map((item) => item.id),
    );
    assert.deepEqual(window.left_out, { before: 4, after: 3 });
  });

  it('says a run whose rows record no start has no timeline', async () => {
    const body = await getJson<RunTimeline>(server, '/api/runs/old/timeline');
    assert.deepEqual(
      [body.recorded, body.rollouts, body.timed, body.first_started_at, body.items, body.left_out],
      [false, 2, 0, null, [], { before: 0, after: 0 }],
    );
  });
});

describe('which paths are runs', () => {
  let directory: string;
  before(() => (directory = mkdtempSync(join(tmpdir(), 'gymnast-view-runs-'))));
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('names a missing path, a file that is not a run, and a folder without runs', async () => {
    await assert.rejects(findRuns(join(directory, 'nope.jsonl')), /cannot view .*nope\.jsonl: no such file/);
    writeFileSync(join(directory, 'data.jsonl'), '{"question": "2+2"}\n');
    await assert.rejects(findRuns(join(directory, 'data.jsonl')), /data\.jsonl is not a run: .*data\.jsonl:1/);
    await assert.rejects(findRuns(directory), /holds no run/);
  });
});
