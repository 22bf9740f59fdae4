import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redisTarget } from '../../src/queue/redis-target.js';

describe('a --queue URL', () => {
  it('is shown with its user and password masked, and kept whole for the connection', () => {
    const target = redisTarget('redis://gym:s3cret@redis.internal:6380/2');
    assert.equal(target.url, 'redis://gym:s3cret@redis.internal:6380/2');
    assert.equal(target.shown, 'redis://***@redis.internal:6380/2');
    assert.equal(redisTarget('rediss://:pw@host:6379/0').shown, 'rediss://***@host:6379/0');
    assert.equal(redisTarget('redis://127.0.0.1:6379').shown, 'redis://127.0.0.1:6379');
  });

  it('that is not a Redis URL is refused by the flag, its password never in the message', () => {
    for (const [value, message] of [
      ['http://user:pw-1@host:6379/0', /^--queue: expected a redis:\/\/ or rediss:\/\/ URL, got http:\/\/\*\*\*@host:6379\/0$/],
      ['redis://:pw-1@host:6379/zero', /^--queue: the database of redis:\/\/\*\*\*@host:6379\/zero must be a number/],
      ['localhost:6379', /^--queue: expected a redis:\/\/ or rediss:\/\/ URL/],
      ['not a url', /^--queue: expected redis:\/\/HOST:PORT\/DB, got not a url$/],
    ] as const)
      assert.throws(
        () => redisTarget(value),
        (error: Error & { kind?: string }) => {
          assert.equal(error.kind, 'config');
          assert.match(error.message, message);
          assert.doesNotMatch(error.message, /pw-1/);
          return true;
        },
      );
  });
});
