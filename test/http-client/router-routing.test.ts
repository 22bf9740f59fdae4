import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { JsonClient } from '../../src/http-client/json-client.js';
import { Router, type RouterOptions } from '../../src/http-client/router/router.js';

const client = new JsonClient();
const routers: Router[] = [];
after(async () => {
  for (const router of routers) router.close();
  await client.close();
});

const URLS = ['http://127.0.0.1:9001', 'http://127.0.0.1:9002', 'http://127.0.0.1:9003'];

/** A router over three replicas whose requests stay in flight until `finishAll`: placement by load is then observable. */
function router(options: Partial<RouterOptions> = {}) {
  const made = new Router(client, { urls: URLS, ...options });
  routers.push(made);
  const pending: (() => void)[] = [];
  const signal = new AbortController().signal;
  /** Sends one request of `session` (its prompt's key `key`) and gives the replica index it went to, leaving it in flight. */
  const send = (session: string, key?: number): Promise<number> =>
    new Promise((placed) => {
      void made.call(
        session,
        (replica) =>
          new Promise<void>((resolve) => {
            placed(URLS.indexOf(replica.url));
            pending.push(resolve);
          }),
        signal,
        key === undefined ? undefined : () => key,
      );
    });
  const finishAll = async () => {
    for (const resolve of pending.splice(0)) resolve();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { router: made, send, finishAll };
}

describe('routing', () => {
  it('sticky (the default): a session stays on its replica while new sessions go to the least loaded', async () => {
    const { send, finishAll } = router();
    assert.deepEqual([await send('a'), await send('b'), await send('c')], [0, 1, 2]);
    // a's replica is busiest now (two in flight), yet a stays there.
    assert.equal(await send('a'), 0);
    assert.equal(await send('d'), 1);
    await finishAll();
    assert.deepEqual([await send('c'), await send('b'), await send('a')], [2, 1, 0]);
  });

  it('sticky: a new session with the same first prompt as an earlier one joins its replica (a GRPO group prefilled once)', async () => {
    const { send } = router();
    const placed: number[] = [];
    for (let sample = 0; sample < 4; sample++) placed.push(await send(`g1-${sample}`, 111));
    for (let sample = 0; sample < 4; sample++) placed.push(await send(`g2-${sample}`, 222));
    assert.deepEqual(placed, [0, 0, 0, 0, 1, 1, 1, 1]);
  });

  it('sticky: a group whose replica is far busier than the least loaded goes on elsewhere', async () => {
    const { send } = router();
    const placed: number[] = [];
    for (let sample = 0; sample < 40; sample++) placed.push(await send(`g-${sample}`, 7));
    const perReplica = [0, 1, 2].map((replica) => placed.filter((at) => at === replica).length);
    assert.equal(perReplica[0], 33, 'the group keeps its replica until it has 32 more in flight than the least loaded');
    assert.equal(perReplica[1], 7, 'then the rest of it goes to the least loaded, which becomes its replica');
    assert.equal(perReplica[2], 0);
  });

  it('sticky without group placement: samples of one prompt spread by load', async () => {
    const { send } = router({ groupPlacement: false });
    const placed: number[] = [];
    for (let sample = 0; sample < 6; sample++) placed.push(await send(`s-${sample}`, 7));
    assert.deepEqual(placed, [0, 1, 2, 0, 1, 2]);
  });

  it('least-loaded: every request goes to the replica with the fewest in flight, a session included', async () => {
    const { send, router: made } = router({ routing: 'least-loaded' });
    assert.deepEqual([await send('a'), await send('a'), await send('a'), await send('a')], [0, 1, 2, 0]);
    assert.equal(made.pinnedSessions, 0, 'no pins are kept');
  });

  it('round-robin: every request to the next replica in turn, whatever its load', async () => {
    const { send, finishAll } = router({ routing: 'round-robin' });
    const placed: number[] = [];
    for (let request = 0; request < 4; request++) {
      placed.push(await send('a'));
      await finishAll();
    }
    assert.deepEqual(placed, [0, 1, 2, 0]);
  });
});
