import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EpisodeTask, type RolloutRecord } from '../../src/core/index.js';
import { runEpisode } from '../../src/engine/index.js';
import { gymnasiumEnvironment } from '../../src/environments/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { episodeOptions, tokenizer } from '../support/plain-episode.js';

/** A deterministic blackjack-like game: the hand grows by 5 on "hit"; over 21 busts (-1), "stand" at 17 or more wins (+1). */
const game = gymnasiumEnvironment<{ hand: number }>({
  name: 'toy-blackjack',
  reset: (data) => ({ observation: `Your hand: ${(data as { start: number }).start}`, state: { hand: (data as { start: number }).start } }),
  step: ({ hand }, action) => {
    if (/<action>hit<\/action>/.test(action)) {
      const next = hand + 5;
      return next > 21
        ? { observation: `Bust with ${next}.`, reward: -1, terminated: true, info: { result: 'bust' }, state: { hand: next } }
        : { observation: `Your hand: ${next}`, reward: 0, terminated: false, state: { hand: next } };
    }
    return {
      observation: `You stand with ${hand}.`,
      reward: hand >= 17 ? 1 : -1,
      terminated: true,
      info: { result: hand >= 17 ? 'win' : 'lose' },
      state: { hand },
    };
  },
});

describe('the gymnasium-style loop', () => {
  it('shows the reset observation, plays every reply as an action, and ends on terminated with its info kept as the terminal metadata', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: '<action>hit</action>' }, { text: '<action>stand</action>' }] });
    const task = EpisodeTask.parse({ id: 'g', index: 0, messages: [{ role: 'system', content: 'Play.' }], data: { start: 12 } });
    const record = (await runEpisode(task, 0, episodeOptions(policy, game, { maxTurns: 5 }))) as RolloutRecord;
    assert.equal(record.termination.kind, 'env-done');
    assert.equal(record.reward, 1);
    assert.deepEqual(record.env_metadata, { state: { hand: 17 }, info: {} }, "the state before the terminal step, as NeMo RL's extra_env_info");
    assert.deepEqual(record.terminal_env_metadata, { state: { hand: 17 }, info: { result: 'win' } });
    assert.match(tokenizer.decode(policy.requests[0]!.prompt_token_ids), /user: Your hand: 12/);
    assert.match(tokenizer.decode(policy.requests[1]!.prompt_token_ids), /user: Your hand: 17\nassistant: $/);
  });
});
