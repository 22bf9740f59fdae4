import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Queue } from 'bullmq';
import { commitOutcome } from '../../src/queue/commit-outcome.js';
import { jobId, QUEUE_NAME, QUEUE_PREFIX, runKeys } from '../../src/queue/queue-keys.js';
import { RedisServer, redisMissing } from '../support/redis-server.js';

describe('one outcome per rollout key', { skip: redisMissing }, () => {
  let redis: RedisServer;
  before(async () => (redis = await RedisServer.start()));
  after(async () => redis.stop());

  it('the first commit of a key is kept and announced once; a second run of the same job is dropped', async () => {
    const client = redis.client();
    const keys = runKeys('0123456789abcdef');
    try {
      await client.set(keys.config, '{}');
      await client.hset(keys.rows, '3.1.0', '{"planned":true}');
      assert.equal(await commitOutcome(client, keys, '3.1.0', '{"first":true}'), 'committed');
      assert.equal(await commitOutcome(client, keys, '3.1.0', '{"second":true}'), 'duplicate');
      assert.equal(await client.hget(keys.results, '3.1.0'), '{"first":true}');
      assert.deepEqual(await client.lrange(keys.done, 0, -1), ['3.1.0']);
      // Once the coordinator has written the row it removes the row and outcome: a late run still commits nothing.
      await client.hdel(keys.rows, '3.1.0');
      await client.hdel(keys.results, '3.1.0');
      assert.equal(await commitOutcome(client, keys, '3.1.0', '{"late":true}'), 'duplicate');
      assert.equal(await client.hexists(keys.results, '3.1.0'), 0);
      await client.del(keys.config);
      assert.equal(await commitOutcome(client, keys, '3.2.0', '{}'), 'run-over');
    } finally {
      client.disconnect();
    }
  });

  it('a rollout enqueued twice under its job id is one job', async () => {
    const client = redis.client();
    const queue = new Queue(QUEUE_NAME, { connection: client, prefix: QUEUE_PREFIX });
    try {
      const id = jobId('0123456789abcdef', '5.0.1');
      await queue.add('rollout', { run: '0123456789abcdef', key: '5.0.1' }, { jobId: id });
      await queue.add('rollout', { run: '0123456789abcdef', key: '5.0.1' }, { jobId: id });
      assert.equal(await queue.getWaitingCount(), 1);
    } finally {
      await queue.close();
      client.disconnect();
    }
  });
});
