import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Message, RolloutRecord } from '../../src/core/index.js';
import { runEpisode } from '../../src/engine/index.js';
import { parseAction, slidingPuzzleEnvironment, type SlidingPuzzleMetadata } from '../../src/environments/index.js';
import { StepResult } from '../../src/core/step-result.js';
import { isSolved, renderBoard, shuffledBoard, slide, solvedBoard, type Board, type Direction } from '../../src/environments/sliding-puzzle-board.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { episodeOptions, task, tokenizer } from '../support/plain-episode.js';

const signal = new AbortController().signal;
const directions: Direction[] = ['up', 'down', 'left', 'right'];
const key = (board: Board) => board.grid.flat().join(',');

/** The shortest list of slides that solves `board` (breadth-first search), or undefined when none does. */
function solve(board: Board): Direction[] | undefined {
  const goal = key(solvedBoard(board.size));
  const parents = new Map<string, { from: string; move: Direction } | null>([[key(board), null]]);
  let frontier = [board];
  while (frontier.length > 0) {
    const next: Board[] = [];
    for (const current of frontier) {
      const here = key(current);
      if (here === goal) {
        const moves: Direction[] = [];
        for (let step = parents.get(here); step; step = parents.get(step.from)) moves.unshift(step.move);
        return moves;
      }
      for (const move of directions) {
        const moved = slide(current, move);
        if (moved === undefined || parents.has(key(moved))) continue;
        parents.set(key(moved), { from: here, move });
        next.push(moved);
      }
    }
    frontier = next;
  }
  return undefined;
}

async function step(content: string, metadata: SlidingPuzzleMetadata): Promise<StepResult> {
  const messages: Message[] = [{ role: 'assistant', content }];
  return StepResult.parse(await slidingPuzzleEnvironment().step({ messages, metadata }, signal));
}

const metadataFor = (board: Board, num_moves = 0, max_moves = 40): SlidingPuzzleMetadata => ({ board, num_moves, max_moves });
const text = (result: StepResult) => result.observation.map((message) => message.content).join('');

describe('sliding puzzle boards', () => {
  it('shuffles the same way for the same seed, and differently for another', () => {
    assert.deepEqual(shuffledBoard(3, 20, 5), shuffledBoard(3, 20, 5));
    const boards = new Set(Array.from({ length: 10 }, (_, seed) => key(shuffledBoard(3, 20, seed))));
    assert.ok(boards.size > 1);
  });

  it('never hands out a solved board, even with zero shuffle moves', () => {
    for (let seed = 0; seed < 20; seed++) {
      assert.equal(isSolved(shuffledBoard(3, 0, seed)), false);
      assert.equal(isSolved(shuffledBoard(2, 2, seed)), false);
    }
  });

  it('always shuffles to a solvable board holding each tile once', () => {
    for (let seed = 0; seed < 20; seed++) {
      const board = shuffledBoard(3, 30, seed);
      assert.deepEqual(
        board.grid.flat().sort((a, b) => a - b),
        [0, 1, 2, 3, 4, 5, 6, 7, 8],
      );
      assert.equal(board.grid[board.empty[0]]![board.empty[1]], 0, 'empty points at the 0 tile');
      assert.notEqual(solve(board), undefined, `seed ${seed} gave an unsolvable board`);
    }
  });

  it('slides "up" the tile below the empty space, and refuses a slide with no tile to move', () => {
    const solved = solvedBoard(3);
    assert.equal(slide(solved, 'up'), undefined, 'nothing is below the bottom-right corner');
    assert.equal(slide(solved, 'left'), undefined, 'nothing is right of the bottom-right corner');
    const down = slide(solved, 'down')!;
    assert.deepEqual(down.grid, [
      [1, 2, 3],
      [4, 5, 0],
      [7, 8, 6],
    ]);
    assert.deepEqual(down.empty, [1, 2]);
    assert.deepEqual(slide(down, 'up'), solved);
    assert.deepEqual(slide(solved, 'right')!.grid, [
      [1, 2, 3],
      [4, 5, 6],
      [7, 0, 8],
    ]);
  });

  it('draws the board bordered, with rows and columns numbered from 1', () => {
    assert.equal(
      renderBoard(solvedBoard(3)),
      ['', '  +---------+', '1 | 1  2  3 |', '2 | 4  5  6 |', '3 | 7  8    |', '  +---------+', '     1  2  3 '].join('\n'),
    );
  });
});

describe('parseAction', () => {
  it('takes the last complete action, lower-cased and trimmed', () => {
    assert.equal(parseAction('<action>up</action> no, <ACTION> Left </Action>'), 'left');
  });

  it('finds no action when the last one is never closed, or there is none', () => {
    assert.equal(parseAction('<action>up'), undefined);
    assert.equal(parseAction('I would go up.'), undefined);
  });
});

describe('the sliding puzzle environment', () => {
  it('resets to the seeded board, shown in a user message, and stops generation at </action>', async () => {
    const reset = await slidingPuzzleEnvironment().reset({ seed: 3, shuffle_moves: 10 }, signal);
    assert.deepEqual(reset.metadata, { board: shuffledBoard(3, 10, 3), num_moves: 0, max_moves: 40 });
    assert.equal(reset.observation?.length, 1);
    assert.equal(reset.observation![0]!.role, 'user');
    assert.ok(reset.observation![0]!.content.includes(renderBoard(reset.metadata.board)));
    assert.deepEqual(reset.stop_strings, ['</action>']);
  });

  it('answers a reply without an action with a format hint, keeping the game as it was', async () => {
    const board = shuffledBoard(3, 10, 1);
    const result = await step('I slide the 8 left.', metadataFor(board, 2));
    assert.match(text(result), /Invalid response format/);
    assert.ok(text(result).includes(renderBoard(board)));
    assert.equal(result.reward, 0);
    assert.equal(result.terminated, false);
    assert.equal(result.metadata, undefined, 'no new state: the move count stays');
    assert.deepEqual(result.next_stop_strings, ['</action>']);
  });

  it('shows the board on "view" without counting a move', async () => {
    const board = shuffledBoard(3, 10, 1);
    const result = await step('<action>view</action>', metadataFor(board, 2));
    assert.ok(text(result).includes(renderBoard(board)));
    assert.equal(result.metadata, undefined);
    assert.equal(result.terminated, false);
  });

  it('counts a legal move and moves the tile', async () => {
    const board = slide(slide(solvedBoard(3), 'down')!, 'right')!;
    const result = await step('<action>up</action>', metadataFor(board, 2));
    assert.deepEqual(result.metadata, metadataFor(slide(board, 'up')!, 3));
    assert.match(text(result), /Slid tile 8 up\./);
    assert.equal(result.reward, 0);
    assert.equal(result.terminated, false);
  });

  it('counts an impossible slide as a move without changing the board', async () => {
    const board = slide(solvedBoard(3), 'right')!;
    const result = await step('<action>up</action>', metadataFor(board, 4));
    assert.match(text(result), /Cannot slide up\./);
    assert.deepEqual(result.metadata, metadataFor(board, 5));
  });

  it('rewards solving the puzzle with 1 and ends the game', async () => {
    const result = await step('<action>left</action>', metadataFor(slide(solvedBoard(3), 'right')!, 7));
    assert.equal(result.reward, 1);
    assert.equal(result.terminated, true);
    assert.deepEqual(result.metadata, metadataFor(solvedBoard(3), 8));
  });

  it('truncates the game when the last allowed move does not solve it', async () => {
    const board = slide(slide(solvedBoard(3), 'right')!, 'right')!;
    const result = await step('<action>down</action>', metadataFor(board, 9, 10));
    assert.equal(result.truncated, true);
    assert.equal(result.terminated, false);
    assert.equal(result.reward, 0);
    assert.ok(text(result).includes('<error>Maximum moves (10) reached.</error>'));
  });

  it('plays a whole episode with the engine: scripted solving moves earn reward 1', async () => {
    const data = { seed: 11, shuffle_moves: 6 };
    const moves = solve(shuffledBoard(3, 6, 11))!;
    assert.ok(moves.length > 0);
    const policy = new ScriptedPolicy({ tokenizer, script: (_request, turn) => ({ text: `<action>${moves[turn]}</action>` }) });
    const options = episodeOptions(policy, slidingPuzzleEnvironment(), { maxTurns: moves.length + 2 });
    const record = await runEpisode(task(0, { data }), 0, options);
    assert.equal(record.record_type, 'rollout', JSON.stringify(record));
    const rollout = record as RolloutRecord;
    assert.equal(rollout.reward, 1);
    assert.deepEqual(rollout.termination, { kind: 'env-done' });
    assert.equal(rollout.turns.length, moves.length);
    assert.deepEqual(
      policy.requests.map((request) => request.stop_strings),
      moves.map(() => ['</action>']),
    );
  });
});
