import { z } from 'zod';
import type { Environment } from './environment.js';
import type { StepResultInput } from '../core/step-result.js';
import { parseTaskData } from './parse-task-data.js';
import { isSolved, renderBoard, shuffledBoard, slide, tileAt, type Board, type Direction } from './sliding-puzzle-board.js';

const SlidingPuzzleTask = z.object({
  size: z.number().int().min(2).max(6).default(3),
  shuffle_moves: z.number().int().nonnegative().default(20),
  max_moves: z.number().int().positive().default(40),
  seed: z.number().int(),
});

export interface SlidingPuzzleMetadata {
  board: Board;
  num_moves: number;
  max_moves: number;
}

const STOP_STRINGS = ['</action>'];
const directions: readonly string[] = ['up', 'down', 'left', 'right'];

/**
 * NeMo RL's sliding puzzle game. The model answers `<action>up|down|left|right|view</action>` (the last
 * one counts, case-insensitive). A missing action gets a format hint and does not end the game; `view`
 * shows the board without a move; every other action is a move, legal or not. Reward 1 on solving;
 * the game is truncated after `max_moves` moves.
 */
export function slidingPuzzleEnvironment(): Environment<SlidingPuzzleMetadata> {
  return {
    name: 'sliding-puzzle',
    taskSchema: SlidingPuzzleTask,
    opensConversation: true,
    async reset(data) {
      const { size, shuffle_moves, max_moves, seed } = parseTaskData('sliding-puzzle', SlidingPuzzleTask, data);
      const board = shuffledBoard(size, shuffle_moves, seed);
      return {
        metadata: { board, num_moves: 0, max_moves },
        observation: [{ role: 'user', content: `${welcome(size)}\n${renderBoard(board)}\n` }],
        stop_strings: STOP_STRINGS,
      };
    },
    async step({ messages, metadata }) {
      const action = parseAction(messages.at(-1)?.content ?? '');
      if (action === undefined) {
        return reply(`${renderBoard(metadata.board)}\n\nInvalid response format no move made. Try <action></action> like this: <action>your_action</action>`);
      }
      if (action === 'view') return reply(`${renderBoard(metadata.board)}\n\nViewing the board. No move made.`);
      return move(metadata, action);
    },
  };
}

function move(metadata: SlidingPuzzleMetadata, action: string): StepResultInput {
  const num_moves = metadata.num_moves + 1;
  const moved = directions.includes(action) ? slide(metadata.board, action as Direction) : undefined;
  const board = moved ?? metadata.board;
  const next = { ...metadata, board, num_moves };
  if (moved && isSolved(board)) {
    return { ...reply("Congratulations! You've solved the puzzle!", next), reward: 1, terminated: true };
  }
  const response = moved
    ? `Slid tile ${tileAt(metadata.board, moved.empty)} ${action}.`
    : directions.includes(action)
      ? `Cannot slide ${action}.`
      : "Unknown command. Use 'up', 'down', 'left', 'right' or 'view'.";
  if (num_moves >= metadata.max_moves) {
    return { ...reply(`${response}\n<error>Maximum moves (${metadata.max_moves}) reached.</error>`, next), truncated: true };
  }
  return reply(response, next);
}

function reply(text: string, metadata?: SlidingPuzzleMetadata): StepResultInput {
  return {
    observation: [{ role: 'environment', content: `<environment>\n${text}\n</environment>\n` }],
    reward: 0,
    terminated: false,
    ...(metadata ? { metadata } : {}),
    next_stop_strings: STOP_STRINGS,
  };
}

/** The content of the last `<action>…</action>`, lower-cased and trimmed. */
export function parseAction(text: string): string | undefined {
  const lower = text.toLowerCase();
  const start = lower.lastIndexOf('<action>');
  if (start < 0) return undefined;
  const end = lower.indexOf('</action>', start + '<action>'.length);
  return end < 0 ? undefined : lower.slice(start + '<action>'.length, end).trim();
}

function welcome(size: number): string {
  return [
    '===== SLIDING PUZZLE =====',
    `Arrange the ${size}x${size} grid by sliding tiles into the empty space.`,
    `- The goal is to arrange numbers from 1 to ${size * size - 1} in order, the empty space last`,
    "- Use 'up', 'down', 'left', 'right' to slide a tile into the empty space from the opposite side",
    "- Use 'view' to see the current state of the board",
    '- Answer with one action like this: <action>up</action>',
  ].join('\n');
}
