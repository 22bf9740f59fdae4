import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { findEnvironment } from '../../src/environments/registry.js';
import { environmentResourcesServer } from '../../src/servers/resources/environment-resources-server.js';
import { withServer } from '../support/with-server.js';

const rows = (name: string) =>
  readFileSync(new URL(`../../examples/${name}.jsonl`, import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const says = (text: string) => ({
  id: 'resp_1',
  object: 'response',
  output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
});
const post = async (url: string, path: string, body: unknown, cookie?: string) => {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
  return { body: (await response.json()) as Record<string, unknown>, cookie: response.headers.get('set-cookie')?.split(';')[0] };
};

describe('gymnast serve resources code and code-agent: NeMo Gym resources servers that run programs in the sandbox', () => {
  it("code: /verify runs the response's program against the row's unit tests and returns the per-test result", async () => {
    await withServer(environmentResourcesServer(findEnvironment('code')!.create()), async (url) => {
      const [sum] = rows('code');
      const right = await post(url, '/verify', { ...sum, response: says('```python\na, b = map(int, input().split())\nprint(a + b)\n```') });
      assert.equal(right.body.reward, 1);
      assert.deepEqual(right.body.result, [true, true, true]);
      const hostile = await post(url, '/verify', { ...sum, response: says('```python\nimport os\nwhile True:\n    os.fork()\n```') });
      assert.equal(hostile.body.reward, 0);
      assert.deepEqual(hostile.body.result, [false, false, false]);
    });
  });

  it('code-agent: run_code is an endpoint answering with the verdict, and /verify scores the final answer', async () => {
    await withServer(environmentResourcesServer(findEnvironment('code-agent')!.create()), async (url) => {
      const [reverse] = rows('code-agent').slice(1);
      const { cookie } = await post(url, '/seed_session', reverse);
      const ran = await post(url, '/run_code', { code: 'print(input()[::-1])', stdin: 'abc\n' }, cookie);
      assert.deepEqual([ran.body.status, ran.body.stdout], ['ok', 'cba\n']);
      const verified = await post(url, '/verify', { ...reverse, response: says('```python\nprint(input()[::-1])\n```') }, cookie);
      assert.equal(verified.body.reward, 1);
    });
  });
});
