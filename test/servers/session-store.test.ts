import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SessionStore } from '../../src/servers/resources/session-store.js';

describe('a resources server keeps its sessions bounded (SessionStore)', () => {
  it('forgets the least recently used session past maxSessions: its cookie then opens a fresh one', () => {
    let made = 0;
    const store = new SessionStore(() => ({ n: made++ }), 2);
    const a = store.open(undefined).session;
    const b = store.open(undefined).session;
    assert.equal(store.open(a.id).created, false, 'a is used again, so b is now the least recent');
    const c = store.open(undefined).session;
    assert.equal(store.size, 2);
    assert.deepEqual([store.open(a.id).session, store.open(c.id).session], [a, c]);
    const reopened = store.open(b.id);
    assert.ok(reopened.created && reopened.session.id !== b.id, 'b was forgotten');
  });

  it('forgets a closed session, and refuses a bound that is not a whole number of at least 1', () => {
    const store = new SessionStore(() => 0, 3);
    const { session } = store.open(undefined);
    store.delete(session.id);
    assert.equal(store.open(session.id).created, true);
    for (const bound of [0, -1, 1.5, Number.NaN]) assert.throws(() => new SessionStore(() => 0, bound), RangeError);
  });
});
