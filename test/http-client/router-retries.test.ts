import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { GymnastError } from '../../src/core/errors/gymnast-error.js';
import { HttpCallError } from '../../src/core/errors/http-call-error.js';
import { PolicyError } from '../../src/core/errors/policy-error.js';
import { RequestTimeoutError } from '../../src/core/errors/request-timeout-error.js';
import { ServerError } from '../../src/core/errors/server-error.js';
import { TransportError } from '../../src/core/errors/transport-error.js';
import { JsonClient } from '../../src/http-client/json-client.js';
import { Router } from '../../src/http-client/router/router.js';

const client = new JsonClient();
const routers: Router[] = [];
after(async () => {
  for (const router of routers) router.close();
  await client.close();
});

/** How many times the router sent a request that failed with `error` every time, before it gave up. */
async function attemptsOn(error: unknown): Promise<number> {
  const router = new Router(client, { urls: ['http://127.0.0.1:9'], retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 } });
  routers.push(router);
  let attempts = 0;
  const sent = router.call(
    'session',
    () => {
      attempts += 1;
      return Promise.reject(error);
    },
    new AbortController().signal,
  );
  await assert.rejects(sent, (thrown) => thrown === error);
  return attempts;
}

describe('HTTP call errors', () => {
  it("are nobody's in particular: a resources server, an agent and a policy all throw the same ones, none a PolicyError", () => {
    const errors = [new TransportError('http://h', 'connect ECONNREFUSED'), new RequestTimeoutError('http://h', 5), new ServerError('http://h', 503, 'busy')];
    for (const error of errors) assert.ok(error instanceof HttpCallError && !(error instanceof PolicyError), error.name);
  });

  it('say whether a retry may help from what came back: no answer, 429 or 5xx may; any other status would be refused again', () => {
    assert.equal(new TransportError('http://h', 'socket hang up').isRetryable, true);
    assert.equal(new RequestTimeoutError('http://h', 5).isRetryable, true);
    const byStatus = [400, 404, 408, 422, 429, 500, 502, 503].map((status) => [status, new ServerError('http://h', status, 'x').isRetryable]);
    assert.deepEqual(byStatus, [
      [400, false],
      [404, false],
      [408, false],
      [422, false],
      [429, true],
      [500, true],
      [502, true],
      [503, true],
    ]);
  });

  it('mask credentials in the URL and in URLs the message echoes', () => {
    const error = new ServerError('http://user:key@h/v1', 502, 'upstream http://u:p@other/ failed');
    assert.equal(error.url, 'http://***@h/v1');
    assert.doesNotMatch(error.message, /key|u:p/);
  });
});

describe('the router', () => {
  it('retries an error that says it is retryable, whatever its kind, up to its attempts', async () => {
    class FlakyError extends GymnastError {
      readonly kind = 'flaky';
      readonly isRetryable = true;
    }
    assert.equal(await attemptsOn(new FlakyError('try again')), 3);
    assert.equal(await attemptsOn(new ServerError('http://h', 503, 'busy')), 3);
    assert.equal(await attemptsOn(new PolicyError('bad reply', { isRetryable: true })), 3);
  });

  it("sends once an error that is not retryable, or not gymnast's", async () => {
    assert.equal(await attemptsOn(new ServerError('http://h', 400, 'unknown field')), 1);
    assert.equal(await attemptsOn(new PolicyError('unexpected response')), 1);
    assert.equal(await attemptsOn(Object.assign(new Error('a bug'), { isRetryable: true })), 1);
  });
});
